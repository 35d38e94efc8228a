import CLibCrypto

/// Conversions between the JWS `r || s` form (RFC 7518 §3.4) and the DER form
/// libcrypto uses, with the range checks JWS requires: `0 < r, s < n`.
enum ECDSASignature {
    /// Big-endian group orders, read once from libcrypto.
    private static let orders: [JWK.Curve: [UInt8]] = {
        var result: [JWK.Curve: [UInt8]] = [:]
        for curve in JWK.Curve.allCases {
            let nid = OBJ_sn2nid(curve.openSSLName)
            guard let group = EC_GROUP_new_by_curve_name(nid) else { continue }
            defer { EC_GROUP_free(group) }
            guard let order = EC_GROUP_get0_order(group) else { continue }
            var bytes = [UInt8](repeating: 0, count: curve.coordinateSize)
            _ = bytes.withUnsafeMutableBufferPointer { BN_bn2binpad(order, $0.baseAddress, Int32($0.count)) }
            result[curve] = bytes
        }
        return result
    }()

    /// DER `SEQUENCE { INTEGER r, INTEGER s }` from a fixed-size `r || s`, or
    /// `nil` when the length is wrong or `r`/`s` is zero or not below the order.
    static func der(fromJWS signature: UnsafeRawBufferPointer, curve: JWK.Curve) -> [UInt8]? {
        let size = curve.coordinateSize
        guard signature.count == 2 * size, let order = orders[curve] else { return nil }
        let r = UnsafeRawBufferPointer(rebasing: signature[0..<size])
        let s = UnsafeRawBufferPointer(rebasing: signature[size..<2 * size])
        guard inRange(r, below: order), inRange(s, below: order) else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(2 * size + 8)
        appendInteger(r, to: &body)
        appendInteger(s, to: &body)
        var out: [UInt8] = [0x30]
        appendLength(body.count, to: &out)
        out += body
        return out
    }

    /// `0 < value < order`, both big-endian of equal length.
    private static func inRange(_ value: UnsafeRawBufferPointer, below order: [UInt8]) -> Bool {
        var isZero = true
        var comparison = 0  // -1 below, 1 above, 0 equal so far
        for index in 0..<order.count {
            let a = value[index], b = order[index]
            if a != 0 { isZero = false }
            if comparison == 0, a != b { comparison = a < b ? -1 : 1 }
        }
        return !isZero && comparison == -1
    }

    private static func appendInteger(_ value: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var start = 0
        while start < value.count - 1, value[start] == 0 { start += 1 }
        let needsPad = value[start] & 0x80 != 0
        out.append(0x02)
        appendLength(value.count - start + (needsPad ? 1 : 0), to: &out)
        if needsPad { out.append(0) }
        out.append(contentsOf: value[start...])
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        if length < 0x80 {
            out.append(UInt8(length))
        } else {
            out.append(0x81)
            out.append(UInt8(length))
        }
    }

    /// Fixed-size `r || s` from libcrypto's DER output.
    static func jws(fromDER der: [UInt8], curve: JWK.Curve) throws -> [UInt8] {
        let size = curve.coordinateSize
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw cryptoFailure("decode an ECDSA signature") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer? = nil
        var s: OpaquePointer? = nil
        ECDSA_SIG_get0(parsed, &r, &s)
        var out = [UInt8](repeating: 0, count: 2 * size)
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, Int32(size)) == size && BN_bn2binpad(s, base + size, Int32(size)) == size
        }
        guard ok else { throw cryptoFailure("encode an ECDSA signature") }
        return out
    }
}
