#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one member of a validated JSON object lies in its text: the raw name
/// bytes (between the quotes) and the value bytes. Plain data without
/// references, so arrays of ranges are built and freed without per-element work.
struct JSONMemberRange: Sendable {
    var nameStart: Int
    var nameLength: Int
    /// Index of the decoded name in ``JSONObjectIndex/decodedNames`` when the
    /// raw name contains escapes; -1 otherwise.
    var decodedSlot: Int
    var valueStart: Int
    var valueEnd: Int
}

/// The members of one validated JSON object, located in its text.
struct JSONObjectIndex: Sendable {
    /// The members, in document order.
    var members: [JSONMemberRange] = []
    /// Decoded forms of the names that contain escapes (rare in practice).
    var decodedNames: [String] = []

    /// The same index in buffers of its own (see ``JWTClaims/detached()``).
    func detached() -> JSONObjectIndex {
        JSONObjectIndex(members: members.withUnsafeBufferPointer { Array($0) }, decodedNames: decodedNames.withUnsafeBufferPointer { Array($0) })
    }

    /// The member's name, decoded.
    func name(of member: JSONMemberRange, in buffer: UnsafeBufferPointer<UInt8>) -> String {
        if member.decodedSlot >= 0 { return decodedNames[member.decodedSlot] }
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[member.nameStart..<member.nameStart + member.nameLength]), as: UTF8.self)
    }

    /// Whether two members of this object have the same (decoded) name.
    func sameName(_ one: JSONMemberRange, _ other: JSONMemberRange, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        if one.decodedSlot < 0, other.decodedSlot < 0 {
            guard one.nameLength == other.nameLength, let base = buffer.baseAddress else { return false }
            let length = one.nameLength
            if length == 0 { return true }
            // Most distinct claim names of one length differ in their first or last byte.
            guard base[one.nameStart] == base[other.nameStart],
                base[one.nameStart + length - 1] == base[other.nameStart + length - 1]
            else { return false }
            return memcmp(base + one.nameStart, base + other.nameStart, length) == 0
        }
        return name(of: one, in: buffer) == name(of: other, in: buffer)
    }

    /// The member called `name`, if any.
    func member(named name: String, in buffer: UnsafeBufferPointer<UInt8>) -> JSONMemberRange? {
        // A native or literal name is read where it lies: no copy of the string, no retain.
        if let found = name.utf8.withContiguousStorageIfAvailable({ member(named: $0, in: buffer) }) { return found }
        var name = name
        return name.withUTF8 { member(named: $0, in: buffer) }
    }

    /// The member whose name is the UTF-8 `utf8`, if any: the members are walked in place.
    private func member(named utf8: UnsafeBufferPointer<UInt8>, in buffer: UnsafeBufferPointer<UInt8>) -> JSONMemberRange? {
        guard let base = buffer.baseAddress else { return nil }
        return members.withUnsafeBufferPointer { members -> JSONMemberRange? in
            for position in 0..<members.count {
                let member = members[position]
                if member.decodedSlot >= 0 {
                    if decodedNames[member.decodedSlot].utf8.elementsEqual(utf8) { return member }
                    continue
                }
                guard member.nameLength == utf8.count else { continue }
                if member.nameLength == 0 { return member }
                guard let other = utf8.baseAddress, base[member.nameStart] == other[0] else { continue }
                if member.nameLength <= 16 {
                    // Claim names are short: a loop in place costs less than the call to memcmp.
                    var offset = 1
                    while offset < member.nameLength, base[member.nameStart + offset] == other[offset] { offset += 1 }
                    if offset == member.nameLength { return member }
                } else if memcmp(base + member.nameStart, other, member.nameLength) == 0 {
                    return member
                }
            }
            return nil
        }
    }
}
