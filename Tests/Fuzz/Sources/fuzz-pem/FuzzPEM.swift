// JWK(pem:) on arbitrary text (PUBLIC KEY, PRIVATE KEY, RSA/EC PRIVATE KEY,
// CERTIFICATE blocks reach the strict in-house DER reader), then thumbprint of
// the result, and a differential check against libcrypto's own DER decoders.
import FuzzSupport
@_spi(Testing) import JOSE

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = Fuzz.string(data, size)
    if let key = try? JWK(pem: text) {
        blackHole(key.thumbprint())
        blackHole(String(describing: key))
        // Differential: what the in-house reader accepts, libcrypto's decoder
        // (d2i_PUBKEY / d2i_AutoPrivateKey / d2i_X509) must accept too, reading the
        // same public key. One allowed difference: a certificate is only walked down
        // to its subjectPublicKeyInfo, so one libcrypto refuses for a malformed
        // name, validity or extension may still give its key here.
        let reference = JWK.openSSLPublicJWK(pem: text)
        if reference == nil, firstLabel(text) == "CERTIFICATE" { return 0 }
        guard let reference else { fatalError("PEM: libcrypto's decoder refused a key the DER reader accepted") }
        guard reference == key.publicJWK else { fatalError("PEM: libcrypto's decoder read another public key than the DER reader") }
    }
    return 0
}

/// The label of the first `-----BEGIN ...-----` line, found as `JWK(pem:)` finds it.
func firstLabel(_ text: String) -> String? {
    let bytes = Array(text.utf8), begin = Array("-----BEGIN ".utf8), dashes = Array("-----".utf8)
    func find(_ needle: [UInt8], from: Int) -> Int? {
        var index = from
        while index + needle.count <= bytes.count {
            if bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
    guard let start = find(begin, from: 0), let end = find(dashes, from: start + begin.count) else { return nil }
    return String(decoding: bytes[(start + begin.count)..<end], as: UTF8.self)
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
