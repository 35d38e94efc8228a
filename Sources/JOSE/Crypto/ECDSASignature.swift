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
        withDER(fromJWS: signature, curve: curve) { $0.map(Array.init) }
    }

    /// Calls `body` with the DER form of a fixed-size `r || s` in a stack buffer (nothing is allocated),
    /// or with `nil` when the length is wrong or `r`/`s` is zero or not below the order.
    static func withDER<R>(
        fromJWS signature: UnsafeRawBufferPointer, curve: JWK.Curve,
        _ body: (UnsafeRawBufferPointer?) throws -> R
    ) rethrows -> R {
        let size = curve.coordinateSize
        guard signature.count == 2 * size, let order = orders[curve] else { return try body(nil) }
        let r = UnsafeRawBufferPointer(rebasing: signature[0..<size])
        let s = UnsafeRawBufferPointer(rebasing: signature[size..<2 * size])
        guard inRange(r, below: order), inRange(s, below: order) else { return try body(nil) }
        // SEQUENCE header (at most 3 bytes), then two INTEGERs of at most 1 + 2 + 1 + size bytes each.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * size + 11) { buffer in
            guard let base = buffer.baseAddress else { return try body(nil) }
            let (rStart, rPad) = integerLayout(r), (sStart, sPad) = integerLayout(s)
            let rLength = size - rStart + rPad, sLength = size - sStart + sPad
            let bodyLength = 1 + lengthBytes(rLength) + rLength + 1 + lengthBytes(sLength) + sLength
            var count = 0
            func put(_ byte: UInt8) { base[count] = byte; count += 1 }
            func putLength(_ length: Int) {
                if length >= 0x80 { put(0x81) }
                put(UInt8(truncatingIfNeeded: length))
            }
            func putInteger(_ value: UnsafeRawBufferPointer, start: Int, pad: Int, length: Int) {
                put(0x02)
                putLength(length)
                if pad == 1 { put(0) }
                for index in start..<value.count { put(value[index]) }
            }
            put(0x30)
            putLength(bodyLength)
            putInteger(r, start: rStart, pad: rPad, length: rLength)
            putInteger(s, start: sStart, pad: sPad, length: sLength)
            return try body(UnsafeRawBufferPointer(start: base, count: count))
        }
    }

    /// Where a big-endian integer's minimal encoding starts, and whether it needs a leading zero (high bit set).
    private static func integerLayout(_ value: UnsafeRawBufferPointer) -> (start: Int, pad: Int) {
        var start = 0
        while start < value.count - 1, value[start] == 0 { start += 1 }
        return (start, value[start] & 0x80 != 0 ? 1 : 0)
    }

    /// The bytes of a DER length (these lengths are below 256).
    private static func lengthBytes(_ length: Int) -> Int { length < 0x80 ? 1 : 2 }

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
