import JOSE

/// The verification key(s) named on the command line.
enum KeySource {
    case single(JWK)
    case set(JWKSet)

    /// Loads keys from `--key`, `--secret-file`, `--jwks-url` or `--issuer`; `nil` when none was given.
    static func load(_ options: Options, fetcher: (String) throws(SetupError) -> [UInt8]) throws(SetupError) -> KeySource? {
        if let path = options.keyPath { return try fromKeyFile(path) }
        if let path = options.secretFile {
            let secret = try IO.readFile(path)
            guard !secret.isEmpty else { throw SetupError("the secret file \(path) is empty") }
            return .single(JWK(symmetricKey: secret))
        }
        if let url = options.jwksURL { return .set(try keySet(from: fetcher(url), origin: url)) }
        if let issuer = options.issuerURL {
            let jwksURI = try Discovery.jwksURI(issuer: issuer, fetcher: fetcher)
            return .set(try keySet(from: fetcher(jwksURI), origin: jwksURI))
        }
        return nil
    }

    static func fromKeyFile(_ path: String) throws(SetupError) -> KeySource {
        let bytes = try IO.readFile(path)
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            if text.contains("-----BEGIN ") {
                return .single(try JWK(publicKeyFromPEM: text))
            }
            let object = try JSONParser.parseObject(bytes, what: "the key file")
            if object["keys"] != nil { return .set(try JWKSet(jsonBytes: bytes)) }
            return .single(try JWK(jsonObject: object).publicKey)
        } catch let error as JOSEError {
            throw SetupError("the key file \(path) is not usable: \(error) (expected PEM, a JWK or a JWK Set)")
        } catch {
            throw SetupError("the key file \(path) is not usable")
        }
    }

    static func keySet(from bytes: [UInt8], origin: String) throws(SetupError) -> JWKSet {
        do {
            return try JWKSet(jsonBytes: bytes)
        } catch let error as JOSEError {
            throw SetupError("the JWK Set from \(origin) is not usable: \(error)")
        } catch {
            throw SetupError("the JWK Set from \(origin) is not usable")
        }
    }

    /// One line for the verdict, e.g. `RSA 2048-bit public key kid="abc"`.
    var summary: String {
        switch self {
        case .single(let key): return key.description
        case .set(let set): return "JWK Set of \(set.keys.count) keys" + (set.skipped.isEmpty ? "" : " (\(set.skipped.count) skipped)")
        }
    }
}

/// The bit of OpenID Connect Discovery the tool needs, without the OIDC module
/// (which would pull in more than an offline inspection should load).
enum Discovery {
    static func jwksURI(issuer: String, fetcher: (String) throws(SetupError) -> [UInt8]) throws(SetupError) -> String {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let url = base + "/.well-known/openid-configuration"
        let bytes = try fetcher(url)
        let document: JSONObject
        do {
            document = try JSONParser.parseObject(bytes, what: "the discovery document")
        } catch {
            throw SetupError("the discovery document at \(url) is not a JSON object")
        }
        guard let advertised = document["issuer"]?.stringValue else {
            throw SetupError("the discovery document at \(url) has no \"issuer\"")
        }
        guard advertised == issuer else {
            throw SetupError("discovery issuer mismatch: \(url) says \"\(advertised)\", expected exactly \"\(issuer)\"")
        }
        guard let jwksURI = document["jwks_uri"]?.stringValue else {
            throw SetupError("the discovery document at \(url) has no \"jwks_uri\"")
        }
        return jwksURI
    }
}
