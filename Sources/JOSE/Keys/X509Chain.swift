import CLibCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `x5c` chain (RFC 7515 §4.1.6) validated by libcrypto's X.509 path validation (`X509_verify_cert`) against
/// the caller's trust anchors at a given time: the leaf's key is used only when a path from it to an anchor
/// validates (signatures, validity periods, basic constraints and path length, name constraints, critical extensions).
/// The certificates after the leaf are only a pool to build the path from; none is trusted for being there.
enum X509Chain {
    /// The most certificates an `x5c` may hold.
    static let maximumLength = 10
    /// The largest certificate accepted, in bytes.
    static let maximumCertificateBytes = 16 * 1024

    /// The leaf of a validated chain: its key and its DER encoding.
    struct Leaf {
        let key: JWK
        let der: [UInt8]
    }

    /// Standard, padded Base64 (the encoding of `x5c` entries and PEM bodies, RFC 7515 §4.1.6), or `nil`.
    static func base64(_ text: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: text) else { return nil }
        return [UInt8](data)
    }

    /// The `x5c` member of a header: 1 to ``maximumLength`` Base64 DER certificates, the leaf first.
    /// - Throws: ``JOSEError`` `.x5cInvalid`.
    static func certificates(ofX5C value: JSONValue?) throws -> [[UInt8]] {
        guard let value else { throw JOSEError(.x5cInvalid, "the issuer-signed JWT has no x5c header", member: "x5c") }
        guard let entries = value.arrayValue, (1...maximumLength).contains(entries.count) else {
            throw JOSEError(.x5cInvalid, "x5c must be an array of 1 to \(maximumLength) certificates", member: "x5c")
        }
        return try entries.map { entry in
            guard let text = entry.stringValue, text.utf8.count <= maximumCertificateBytes * 2, let der = base64(text), !der.isEmpty else {
                throw JOSEError(.x5cInvalid, "an x5c entry is not standard Base64 of a DER certificate", member: "x5c")
            }
            return der
        }
    }

    /// Runs `body` with the libcrypto certificate of `der`, freed afterwards.
    /// - Throws: ``JOSEError`` `.invalidKey` when `der` is not exactly one DER certificate.
    static func withCertificate<T>(_ der: [UInt8], what: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let certificate = parse(der) else { throw JOSEError(.invalidKey, "\(what) is not a DER X.509 certificate") }
        defer { X509_free(certificate) }
        return try body(certificate)
    }

    /// The libcrypto certificate of `der` (to be freed by the caller), or `nil` unless `der` is exactly one DER
    /// certificate of at most ``maximumCertificateBytes``.
    private static func parse(_ der: [UInt8]) -> OpaquePointer? {
        guard der.count <= maximumCertificateBytes else { return nil }
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let parsed = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            // Exactly one certificate: no trailing bytes.
            guard let cursor, let base = buffer.baseAddress, cursor - base == buffer.count else {
                X509_free(parsed)
                return nil
            }
            return parsed
        }
        ERR_clear_error()
        return certificate
    }

    /// Validates `chain` (leaf first) against `anchors` at `time` and returns the leaf's key (read by JOSE's own
    /// certificate reader, with the usual key checks).
    /// - Throws: ``JOSEError`` `.x5cInvalid` (a certificate that does not parse), `.x5cUntrusted` (no valid path to an anchor,
    ///   libcrypto's reason named), and the key errors of the leaf's key.
    static func validate(_ chain: [[UInt8]], anchors: X509TrustAnchors, at time: Date) throws -> Leaf {
        guard let leafDER = chain.first else { throw JOSEError(.x5cInvalid, "x5c holds no certificate", member: "x5c") }
        var parsed: [OpaquePointer] = []
        defer { for certificate in parsed { X509_free(certificate) } }
        func parse(_ der: [UInt8]) throws -> OpaquePointer {
            guard let certificate = X509Chain.parse(der) else {
                throw JOSEError(.x5cInvalid, "an x5c entry is not a DER X.509 certificate", member: "x5c")
            }
            parsed.append(certificate)
            return certificate
        }
        let leaf = try parse(leafDER)
        let intermediates = try chain.dropFirst().map(parse)
        let anchorCertificates = try anchors.certificates.map(parse)

        guard let store = X509_STORE_new() else { throw cryptoFailure("X509_STORE_new") }
        defer { X509_STORE_free(store) }
        for anchor in anchorCertificates where X509_STORE_add_cert(store, anchor) != 1 {
            ERR_clear_error()  // the same anchor given twice: already in the store
        }
        guard let untrusted = OPENSSL_sk_new_null() else { throw cryptoFailure("OPENSSL_sk_new_null") }
        defer { OPENSSL_sk_free(untrusted) }
        for certificate in intermediates where OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate)) <= 0 {
            throw cryptoFailure("OPENSSL_sk_push")
        }
        guard let context = X509_STORE_CTX_new() else { throw cryptoFailure("X509_STORE_CTX_new") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else {
            ERR_clear_error()
            throw cryptoFailure("X509_STORE_CTX_init")
        }
        let seconds = time.timeIntervalSince1970
        guard seconds.isFinite, seconds >= 0, seconds < 253_402_300_800 else { throw JOSEError(.x5cUntrusted, "the validation time is out of range") }
        X509_STORE_CTX_set_time(context, 0, time_t(seconds))
        let verdict = X509_verify_cert(context)
        let reason = X509_STORE_CTX_get_error(context)
        ERR_clear_error()
        guard verdict == 1 else {
            let text = X509_verify_cert_error_string(Int(reason)).map { String(cString: $0) } ?? "unknown error"
            throw JOSEError(.x5cUntrusted, "the x5c chain does not validate against the trust anchors: \(text)", member: "x5c")
        }
        let key = try JWK(derKey: PEMKeyReader.read(leafDER, format: .certificate))
        return Leaf(key: key, der: leafDER)
    }

    /// Whether the leaf names `issuer`: a `uniformResourceIdentifier` SAN equal to it, or, for an `https` issuer, a
    /// `dNSName` SAN equal to its host (draft-ietf-oauth-sd-jwt-vc, X.509 certificates; no wildcards).
    static func leaf(_ der: [UInt8], names issuer: String) throws -> Bool {
        let host: String? = {
            guard let url = URL(string: issuer), url.scheme?.lowercased() == "https" else { return nil }
            return url.host(percentEncoded: false)?.lowercased()
        }()
        return try withCertificate(der, what: "the x5c leaf") { certificate in
            guard let raw = X509_get_ext_d2i(certificate, NID_subject_alt_name, nil, nil) else {
                ERR_clear_error()
                return false
            }
            let names = OpaquePointer(raw)
            defer { GENERAL_NAMES_free(names) }
            for index in 0..<max(0, OPENSSL_sk_num(names)) {
                guard let entry = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self) else { continue }
                let type = entry.pointee.type
                guard type == GEN_URI || type == GEN_DNS, let string = entry.pointee.d.ia5, let data = ASN1_STRING_get0_data(string) else { continue }
                let length = Int(ASN1_STRING_length(string))
                let text = String(decoding: UnsafeBufferPointer(start: data, count: max(0, length)), as: UTF8.self)
                if type == GEN_URI, text == issuer { return true }
                if type == GEN_DNS, let host, text.lowercased() == host { return true }
            }
            return false
        }
    }
}
