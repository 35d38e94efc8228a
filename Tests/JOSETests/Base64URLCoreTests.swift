import Testing
@testable import JOSE

@Suite("Base64URL decoder against a reference implementation")
struct Base64URLCoreTests {
    /// A slow, obviously-correct reference encoder.
    static func reference(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var bits = ""
        for byte in bytes { bits += String(String(byte, radix: 2).reversed()).padding(toLength: 8, withPad: "0", startingAt: 0).reversed() }
        var out = ""
        var index = bits.startIndex
        while index < bits.endIndex {
            let end = bits.index(index, offsetBy: 6, limitedBy: bits.endIndex) ?? bits.endIndex
            var chunk = String(bits[index..<end])
            while chunk.count < 6 { chunk += "0" }
            out.append(alphabet[Int(chunk, radix: 2)!])
            index = end
        }
        return out
    }

    @Test("every length 0...70 round-trips and matches the reference encoding")
    func roundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == Self.reference(bytes))
            #expect(try Base64URL.decode(encoded) == bytes)
        }
    }

    @Test("rejects non-alphabet characters anywhere, padding, impossible lengths, non-canonical trailing bits",
          arguments: ["Zm9v=", "Zm9v\n", "Zm 9v", "Zm+v", "Zm/v", "Zm9vY", "Zh", "Zm9", "Zm9vYr", "QUJD-_!x", "====", "\u{e9}abc"])
    func rejects(_ text: String) {
        #expect { try Base64URL.decode(text) } throws: { ($0 as? JOSEError)?.code == .invalidBase64URL }
    }

    @Test("a character outside the alphabet is found at every position of a long text")
    func badCharacterAnywhere() {
        let valid = Array(Base64URL.encode(Array(0..<30 as Range<UInt8>)).utf8)
        for position in valid.indices {
            for bad in [UInt8(ascii: "="), UInt8(ascii: "+"), 0x00, 0x80, 0xFF] {
                var text = valid
                text[position] = bad
                #expect(throws: JOSEError.self, "byte \(bad) at \(position)") { try text.withUnsafeBufferPointer { try Base64URL.decode($0) } }
            }
        }
    }

    @Test("canonical trailing characters decode", arguments: [("Zg", [UInt8(0x66)]), ("Zm8", [0x66, 0x6F]), ("", [])])
    func canonical(_ pair: (String, [UInt8])) throws {
        #expect(try Base64URL.decode(pair.0) == pair.1)
    }
}
