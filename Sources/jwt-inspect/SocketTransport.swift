import Dispatch
import JOSE
import OIDC
import OIDCTLSTransport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tool's HTTP client (OIDCTLSTransport's `HTTPFetch`, shared with `LibSSLTransport`) in OIDC's ``HTTPTransport`` shape, so
/// OIDC's ``Discovery`` and ``JWKSetCache`` run over it: the issuer-equality rule, the
/// required discovery fields and the https rule for the issuer and its `jwks_uri` live
/// in the library only. (URLSession would load FoundationNetworking; this does not.)
struct SocketTransport: HTTPTransport {
    /// The whole-fetch deadline in seconds: `JWT_INSPECT_TIMEOUT` (0.1 to 300), else 10.
    var deadlineSeconds: Double {
        guard let text = IO.environment("JWT_INSPECT_TIMEOUT"), let value = Double(text), value >= 0.1, value <= 300 else { return 10 }
        return value
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.method == "GET", request.body == nil else {
            throw TransportError.connectionFailed("jwt-inspect only sends GET requests")
        }
        // The last gate before the socket: the same rule as every caller applies.
        do {
            _ = try FetchURL.check(request.url.absoluteString, what: "the URL")
        } catch {
            throw TransportError.connectionFailed(error.message)
        }
        do {
            // The library's Accept (a status list asks for application/statuslist+jwt); JSON otherwise.
            let response = try HTTPFetch.get(
                request.url.absoluteString, userAgent: "jwt-inspect", deadlineSeconds: deadlineSeconds,
                accept: request.headers["Accept"] ?? "application/json")
            var headers = HeaderFields()
            for field in response.headers { headers.add(field.name, field.value) }
            return TransportResponse(status: response.status, headers: headers, body: response.body)
        } catch {
            switch error {
            case .timedOut: throw TransportError.timedOut
            case .responseTooLarge(let limit): throw TransportError.responseTooLarge(limit)
            case .invalidResponse: throw TransportError.invalidResponse(error.message)
            case .badURL, .connectionFailed: throw TransportError.connectionFailed(error.message)
            }
        }
    }
}

/// What the tool accepts as a URL to fetch.
enum FetchURL {
    /// Printable ASCII only: no blanks, no controls (so no CR/LF can reach the request line).
    static func hasOnlyURLCharacters(_ text: String) -> Bool { HTTPFetch.hasOnlyURLCharacters(text) }

    /// `text` as a URL the tool may fetch: printable ASCII, then OIDC's ``SecureURLPolicy``
    /// (https, or http on a loopback host).
    static func check(_ text: String, what: String) throws(SetupError) -> URL {
        guard hasOnlyURLCharacters(text) else {
            throw SetupError("\(what) \(TerminalText.escape(text)) contains spaces, control or non-ASCII characters")
        }
        do {
            return try SecureURLPolicy.check(text, what: "\(what) \(text)")
        } catch {
            throw SetupError(Network.describe(error))
        }
    }
}

/// The network half of the key sources, over ``SocketTransport``.
enum Network {
    /// The usable keys of the JWK Set at `url`.
    static func keySet(at url: URL) throws(SetupError) -> JWKSet {
        try blocking {
            try await JWKSetCache(jwksURI: url, transport: SocketTransport()).keys()
        }
    }

    /// The JWK Set of `issuer`, found through OpenID Connect Discovery (OIDC's ``Discovery``).
    static func keySet(issuer: String) throws(SetupError) -> JWKSet {
        _ = try FetchURL.check(issuer, what: "--issuer")
        let metadata = try blocking { try await Discovery.fetch(issuer: issuer, transport: SocketTransport()) }
        guard let jwksURI = metadata.jwksURI else { throw SetupError("the discovery document of \(issuer) has no \"jwks_uri\"") }
        return try keySet(at: FetchURL.check(jwksURI.absoluteString, what: "the jwks_uri"))
    }

    /// One line for an error from OIDC or the transport.
    static func describe(_ error: any Error) -> String {
        if let error = error as? OIDCError {
            let underneath = error.transportError.map { "\($0)" } ?? error.joseError.map { "\($0)" } ?? ""
            return error.description.contains(underneath) ? error.description : error.description + " (\(underneath))"
        }
        if let error = error as? SetupError { return error.message }
        return "\(error)"
    }

    /// Runs async library code to completion from the synchronous tool (network and --as paths only:
    /// the offline path never starts a task).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws(SetupError) -> T {
        let box = BlockingResult<T>()
        Task {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            box.done.signal()
        }
        box.done.wait()
        switch box.result {
        case .success(let value): return value
        case .failure(let error): throw SetupError(describe(error))
        case nil: throw SetupError("the fetch did not complete")
        }
    }
}

/// The result of a task a synchronous caller waits for (written once, before `done` is signalled).
private final class BlockingResult<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
}
