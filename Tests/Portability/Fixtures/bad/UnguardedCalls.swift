import FoundationEssentials  // expect: unguarded-import
import FoundationNetworking  // expect: unguarded-import
// Each line marked `expect: RULE` must be reported with that rule (and nothing
// else in this file may be): the portability check's self-test reads the marks.
import Glibc  // expect: unguarded-import, glibc-only-import

func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }  // expect: glibc-qualified
}

func open(_ host: String) -> Int32 {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)  // expect: socket-type
    let fd = socket(AF_INET, hints.ai_socktype, 0)
    _ = Glibc.connect(fd, nil, 0)  // expect: glibc-qualified
    _ = send(fd, nil, 0, Int32(MSG_NOSIGNAL))  // expect: linux-only-api
    return fd
}

func modified(_ info: stat) -> Int {
    Int(info.st_mtim.tv_sec)  // expect: linux-only-api
}

#if canImport(Darwin) || canImport(Glibc)
// A disjunction holds on Darwin too: still unguarded.
let flags = Int32(MSG_NOSIGNAL)  // expect: linux-only-api
#endif

#if !canImport(Glibc)
let noSignal = SO_NOSIGPIPE  // (off Linux: fine for the Darwin-only rule)
let epoll = epoll_create1(0)  // expect: linux-only-api
#endif

let now = Darwin.time(nil)  // expect: darwin-qualified

func message(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    _ = strerror_r(code, &buffer, buffer.count)  // expect: platform-signature
    _ = setsockopt(0, SOL_TCP, 0, nil, 0)  // expect: linux-only-api
    return String(cString: buffer)
}

func family(_ address: sockaddr_in) -> Int { Int(address.sin_len) }  // expect: darwin-only-api
