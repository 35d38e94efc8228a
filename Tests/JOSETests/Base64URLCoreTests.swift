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

    @Test(
        "rejects non-alphabet characters anywhere, padding, impossible lengths, non-canonical trailing bits",
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

    /// A slow, obviously-correct reference decoder (nil for any byte outside the alphabet).
    static func referenceDecode(_ text: [UInt8]) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var bits: [Bool] = []
        for byte in text {
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            for shift in (0..<6).reversed() { bits.append(value >> shift & 1 == 1) }
        }
        return stride(from: 0, to: bits.count - bits.count % 8, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }

    @Test(
        "every byte value at every position of a 96-character text (the SSSE3 blocks and the tail): refused exactly when outside the alphabet, else decoded as the reference does"
    )
    func everyByteEveryPosition() throws {
        var generator = SystemRandomNumberGenerator()
        let base = Array(Base64URL.encode((0..<72).map { _ in UInt8.random(in: 0...255, using: &generator) }).utf8)
        #expect(base.count == 96)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var wrong = 0
        for position in base.indices {
            for byte in 0...255 {
                var text = base
                text[position] = UInt8(byte)
                let decoded = try? text.withUnsafeBufferPointer { try Base64URL.decode($0) }
                if alphabet.contains(UInt8(byte)) {
                    if decoded == nil || decoded != Self.referenceDecode(text) { wrong += 1 }
                } else if decoded != nil {
                    wrong += 1
                }
            }
        }
        #expect(wrong == 0, "\(wrong) of \(96 * 256) texts decoded wrongly")
    }

    @Test("random texts of every length 0...300 decode as the reference does")
    func randomLengths() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Array(Base64URL.encode(bytes).utf8)
            #expect(Self.referenceDecode(text) == bytes)
            #expect(try text.withUnsafeBufferPointer { try Base64URL.decode($0) } == bytes, "length \(length)")
        }
    }

    @Test("canonical trailing characters decode", arguments: [("Zg", [UInt8(0x66)]), ("Zm8", [0x66, 0x6F]), ("", [])])
    func canonical(_ pair: (String, [UInt8])) throws {
        #expect(try Base64URL.decode(pair.0) == pair.1)
    }
}
