import JOSE

/// A key file as the tool reads it, for every command: PEM (public key, certificate or
/// private key), a JWK, or a JWK Set. The one place that tells the forms apart.
enum KeyFile {
    case pem(String)
    case jwk(JSONObject)
    case set(JWKSet)

    /// Reads and classifies `path`; throws a setup error naming the file.
    static func read(_ path: String) throws(SetupError) -> KeyFile {
        let bytes = try IO.readFile(path)
        if contains(bytes, "-----BEGIN ") { return .pem(String(decoding: bytes, as: UTF8.self)) }
        do {
            let object = try JSONParser.parseObject(bytes, what: "the key file")
            if object["keys"] != nil { return .set(try JWKSet(jsonBytes: bytes)) }
            return .jwk(object)
        } catch {
            throw unusable(path, error)
        }
    }

    /// The key of a PEM or JWK file; `privateHalf` keeps its private half (signing,
    /// conversion), otherwise only the public half is built.
    func key(_ path: String, privateHalf: Bool) throws(SetupError) -> JWK {
        do {
            switch self {
            case .pem(let text): return privateHalf ? try JWK(pem: text) : try JWK(publicKeyFromPEM: text)
            case .jwk(let object):
                let key = try JWK(jsonObject: object)
                return privateHalf ? key : key.publicKey
            case .set: throw SetupError("the key file \(path) is a JWK Set; one key is needed here")
            }
        } catch let error as SetupError {
            throw error
        } catch {
            throw KeyFile.unusable(path, error)
        }
    }

    /// A plain byte search: `String.contains` instantiates the generic string searcher of
    /// _StringProcessing on every run, which the start-up budget notices.
    static func contains(_ bytes: [UInt8], _ marker: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount)
        guard bytes.count >= pattern.count, let first = pattern.first else { return false }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == first {
            var index = 1
            while index < pattern.count, bytes[start + index] == pattern[index] { index += 1 }
            if index == pattern.count { return true }
        }
        return false
    }

    static func unusable(_ path: String, _ error: any Error) -> SetupError {
        if let error = error as? JOSEError {
            return SetupError("the key file \(path) is not usable: \(error) (expected PEM, a JWK or a JWK Set)")
        }
        return SetupError("the key file \(path) is not usable")
    }
}
