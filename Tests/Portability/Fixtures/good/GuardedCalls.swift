// swift-format-ignore-file: NoBlockComments

// (The nested block comment below is what the check must skip.)
// The guarded forms of everything in ../bad: the check must report nothing here.
// Comments may say Glibc.write(fd) or MSG_NOSIGNAL freely, and so may strings.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let note = "never call Glibc.write(fd) or Darwin.connect directly; SOCK_STREAM.rawValue differs"
let multiline = """
    Glibc.connect(fd, address, length)
    """
/* Glibc.read(fd, buffer, count) /* nested */ MSG_NOSIGNAL */

func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

func streamType() -> Int32 {
    #if canImport(Glibc)
    return Int32(SOCK_STREAM.rawValue)
    #else
    return SOCK_STREAM
    #endif
}

func sendFlags() -> Int32 {
    #if canImport(Darwin)
    return 0  // SO_NOSIGPIPE is set on the socket instead
    #else
    return Int32(MSG_NOSIGNAL)
    #endif
}

func modified(_ info: stat) -> Int {
    #if os(Linux)
    return Int(info.st_mtim.tv_sec)
    #elseif canImport(Darwin)
    return Int(info.st_mtimespec.tv_sec) + Int(Darwin.time(nil)) * 0
    #else
    return 0
    #endif
}

#if !canImport(Darwin)
let epoll = epoll_create1(0)
#endif

#if canImport(Glibc) || canImport(Musl)
let noSignal = Int32(MSG_NOSIGNAL)
#endif

func message(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    #if canImport(Darwin)
    _ = strerror_r(code, &buffer, buffer.count)
    #else
    _ = setsockopt(0, SOL_TCP, 0, nil, 0)
    #endif
    return String(cString: buffer)
}
