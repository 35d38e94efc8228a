import Foundation
import OIDC

/// A test-only `HTTPTransport` that runs `curl` with `--cacert`, for servers whose TLS certificate a test CA signs
/// (URLSessionTransport on Linux cannot be given a CA of its own). Never follows redirects; one process per request.
struct CurlTransport: HTTPTransport {
    /// The PEM file of the CA that signs the server's certificate.
    let caFile: String

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var arguments = ["-sS", "-i", "--max-time", "\(Int(request.timeout))", "--cacert", caFile, "-X", request.method.rawValue, "-H", "Expect:"]
        for (name, value) in request.headers { arguments += ["-H", "\(name): \(value)"] }
        var input = Data()
        if case .bytes(let bytes) = request.body {
            input = Data(bytes)
            arguments += ["--data-binary", "@-"]
        }
        arguments.append(request.url.absoluteString)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TransportError.connectionFailed("curl exited with \(process.terminationStatus)") }
        // Status line and headers up to the first empty line, then the body.
        guard let split = output.range(of: Data("\r\n\r\n".utf8)) else { throw TransportError.connectionFailed("no HTTP header from curl") }
        let head = String(decoding: output[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers = HeaderFields()
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return TransportResponse(status: status, headers: headers, body: Array(output[split.upperBound...]))
    }
}
