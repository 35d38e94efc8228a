import Hummingbird
import NIOCore
import NIOSSL
import OIDCResourceServer

/// The app's request context: Hummingbird's core storage plus the connection's channel, so a
/// handler can read the client's TLS certificate (RFC 8705 certificate-bound tokens).
struct AppRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The certificate the client presented in the TLS handshake (verified against `--tls-client-ca`
    /// by NIOSSL), or `.notPresented` over plain http or when the client sent none.
    func clientCertificate() async -> ClientCertificate {
        guard let certificate = try? await channel.nioSSL_peerCertificate().get(), let der = try? certificate.toDERBytes() else {
            return .notPresented
        }
        return .der(der)
    }
}
