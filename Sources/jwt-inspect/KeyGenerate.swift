import JOSE

/// `jwt-inspect key --kty ...`: a new key from JOSE's `JWK.generate` (asymmetric) or
/// `SecureRandom` (an `oct` secret), written with its public half and thumbprint.
extension KeyCommand {
    /// The key `--kty`, `--crv` and `--size` ask for.
    func newKey() throws -> JWK {
        switch kty {
        case "EC":
            guard size == nil, let crv, let curve = JWK.Curve(rawValue: crv) else {
                throw UsageError("--kty EC takes --crv P-256, P-384 or P-521")
            }
            return try JWK.generate(.ec(curve))
        case "OKP":
            guard size == nil, crv == "Ed25519" || crv == "X25519" else { throw UsageError("--kty OKP takes --crv Ed25519 or X25519") }
            return try JWK.generate(crv == "X25519" ? .x25519 : .ed25519)
        case "RSA":
            guard crv == nil, let size, [2048, 3072, 4096].contains(size) else { throw UsageError("--kty RSA takes --size 2048, 3072 or 4096") }
            return try JWK.generate(.rsa(bits: size))
        case "oct":
            guard crv == nil, let size, [256, 384, 512].contains(size) else { throw UsageError("--kty oct takes --size 256, 384 or 512") }
            return JWK(symmetricKey: try SecureRandom.bytes(size / 8))
        case "AKP":
            guard crv == nil, size == nil, let algorithm, let set = JWK.MLDSAParameterSet(rawValue: algorithm) else {
                throw UsageError("--kty AKP takes --alg ML-DSA-44, ML-DSA-65 or ML-DSA-87")
            }
            return try JWK.generate(.mlDSA(set))
        default:
            throw UsageError("--kty takes EC, OKP, RSA, oct or AKP")
        }
    }

    func generate() throws {
        var key = try newKey()
        let thumbprint = key.thumbprint()
        key.keyID = kid ?? thumbprint
        key.use = use ?? (key.keyType == .x25519 ? "enc" : "sig")
        if let algorithm { key.algorithm = algorithm }
        let form = format ?? .jwk
        let privateText = try Self.text(key, form, publicOnly: false)
        let publicText: String? = key.keyType == .oct ? nil : try Self.text(key, form, publicOnly: true)
        guard let out else {
            IO.write(privateText + (publicText ?? "") + "thumbprint: \(thumbprint)\n", to: 1)
            return
        }
        try IO.createFile(out, contents: privateText, mode: 0o600)
        var summary = "private key: \(out)\n"
        if let publicText {
            let publicPath = Self.publicPath(out)
            try IO.createFile(publicPath, contents: publicText, mode: 0o644)
            summary += "public key:  \(publicPath)\n"
        }
        IO.write(summary + "kid:         \(key.keyID ?? "")\nthumbprint:  \(thumbprint)\n", to: 1)
    }

    /// `key.jwk` -> `key.pub.jwk`, `dir/key` -> `dir/key.pub`.
    static func publicPath(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + ".pub" }
        let directory = path.dropLast(name.count)
        return directory + name[..<dot] + ".pub" + name[dot...]
    }
}
