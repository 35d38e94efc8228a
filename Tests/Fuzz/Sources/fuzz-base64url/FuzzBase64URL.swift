// Base64URL.decode on raw bytes and on String; checks that both entry points
// agree, that accepted text is canonical (re-encodes to itself), and that
// encode/decode round-trips the input bytes.
import FuzzSupport
@_spi(Testing) import JOSE

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let fromBytes = try? JOSEFuzzing.base64URLDecode(buffer)
    let text = Fuzz.string(data, size)
    let fromString = try? JOSEFuzzing.base64URLDecode(text)
    if Array(text.utf8) == Array(buffer), fromBytes != fromString {
        fatalError("Base64URL: byte and String decoders disagree")
    }
    if let fromBytes, JOSEFuzzing.base64URLEncode(fromBytes) != text {
        fatalError("Base64URL: accepted a non-canonical encoding")
    }
    let encoded = JOSEFuzzing.base64URLEncode(buffer)
    guard let decoded = try? JOSEFuzzing.base64URLDecode(encoded), decoded.elementsEqual(buffer) else {
        fatalError("Base64URL: round trip failed")
    }
    blackHole(fromBytes)
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
