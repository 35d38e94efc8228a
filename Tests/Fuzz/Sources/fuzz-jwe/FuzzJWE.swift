// JWE parsing and decryption: a compact JWE (CompactJWE) or a JSON serialization
// (JSONSerializedJWE, flattened or general), decrypted with fixed private keys of every
// kind (RSA, P-256, X25519, oct of each wrap and CEK length), one by one and as a set,
// under the default policy. Every outcome must be a value or a JOSEError, never a crash.
// Seed corpus (Corpus/fuzz-jwe/): Wycheproof JWE strings, the RFC 7520 §5 JSON forms, and
// tokens made with `jwt-inspect encrypt` to these keys (every algorithm family).
import FuzzSupport
import JOSE

/// The decryption keys: the repository's RSA and P-256 PEMs (no `use`, so every
/// algorithm reaches the crypto), a fixed X25519 key (RFC 7748 §6.1, Bob) and `oct` keys.
let decryptionKeys: [JWK] = {
    var keys: [JWK] = []
    for name in ["rsa2048.pem", "p256.pem"] {
        if let key = try? JWK(pem: Fuzz.keyFile(name)) { keys.append(key) }
    }
    let x25519 = #"{"kty":"OKP","crv":"X25519","x":"3p7bfXt9wbTTW2HC7OQ1Nz-DQ8hbeGdNrfx-FG-IK08","d":"XasIfmJKikt54X-Lg4AO5m87sSkmGLb9HC-LJ_-I4Os"}"#
    if let key = try? JWK(json: x25519) { keys.append(key) }
    return keys
}()

/// The `oct` keys, made for each input: held in a global, LeakSanitizer cannot follow the enum payload that
/// points at their secret bytes and reports them as leaked when an input runs its leak check.
func withSymmetricKeys() -> [JWK] {
    decryptionKeys + [16, 24, 32, 48, 64].map { length in JWK(symmetricKey: (0..<length).map { UInt8($0) }) }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    Fuzz.warmUp()
    blackHole(decryptionKeys.count)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = Fuzz.string(data, size)
    let decryptionKeys = withSymmetricKeys()
    let decryptionSet = JWKSet(keys: decryptionKeys)
    if let jwe = try? CompactJWE(text) {
        blackHole(jwe.header)
        for key in decryptionKeys { blackHole(try? jwe.decrypt(with: key)) }
        blackHole(try? jwe.decrypt(with: decryptionSet))
        blackHole(try? jwe.key(in: decryptionSet))
    }
    if let jwe = try? JSONSerializedJWE(json: text) {
        blackHole(jwe.recipients.count)
        blackHole(jwe.additionalAuthenticatedData)
        for key in decryptionKeys { blackHole(try? jwe.decrypt(with: key)) }
        blackHole(try? jwe.decrypt(with: decryptionSet))
        for index in jwe.recipients.indices.prefix(4) { blackHole(try? jwe.decrypt(recipientAt: index, with: decryptionKeys[0])) }
    }
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
