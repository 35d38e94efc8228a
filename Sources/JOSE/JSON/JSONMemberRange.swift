#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one member of a validated JSON object lies in its text: the raw name
/// bytes (between the quotes) and the value bytes. Names containing escapes
/// carry their decoded form.
struct JSONMemberRange: Sendable {
    var nameStart: Int
    var nameLength: Int
    var decodedName: String?
    var valueStart: Int
    var valueEnd: Int

    func name(in buffer: UnsafeBufferPointer<UInt8>) -> String {
        decodedName ?? String(decoding: UnsafeBufferPointer(rebasing: buffer[nameStart..<nameStart + nameLength]), as: UTF8.self)
    }

    func sameName(as other: JSONMemberRange, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        if decodedName == nil, other.decodedName == nil {
            guard nameLength == other.nameLength, let base = buffer.baseAddress else { return false }
            if nameLength == 0 { return true }
            // Most distinct claim names of one length differ in their first or last byte.
            guard base[nameStart] == base[other.nameStart],
                  base[nameStart + nameLength - 1] == base[other.nameStart + nameLength - 1] else { return false }
            return memcmp(base + nameStart, base + other.nameStart, nameLength) == 0
        }
        return name(in: buffer) == other.name(in: buffer)
    }

    /// Whether this member's name is `name`.
    func hasName(_ name: String, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        if let decodedName { return decodedName == name }
        var name = name
        return name.withUTF8 { utf8 in
            guard utf8.count == nameLength, let base = buffer.baseAddress else { return false }
            guard nameLength > 0, let other = utf8.baseAddress else { return true }
            return memcmp(base + nameStart, other, nameLength) == 0
        }
    }
}
