import OIDCSharedSignals

/// A receiver whose SETs end the sessions the application keeps per user.
func makeReceiver(
    transmitter: String, audience: String, pushSecret: String, managementToken: String,
    sessionsOf: @escaping @Sendable (String) async -> [AuthenticatedSession],
    storeOf: @escaping @Sendable (String) -> any TokenStore
) async throws -> SharedSignalsReceiver {
    var configuration = SharedSignalsReceiver.Configuration(transmitter: transmitter, audience: audience)
    configuration.pushAuthorization = "Bearer " + pushSecret  // the header the stream was created with
    configuration.managementToken = .bearer(managementToken)
    configuration.sessions = { subject in  // the one hook: where this subject's sessions are
        guard case .issuerSubject(_, let user)? = subject.principals.first else { return [] }
        return await sessionsOf(user).map { .session($0) } + [.store(storeOf(user))]
    }
    return try await SharedSignalsReceiver.discover(configuration)
}

/// The push route of any web framework: method, headers and body in; status, headers and body out.
func pushRoute(_ receiver: SharedSignalsReceiver, method: String, headers: HeaderFields, body: [UInt8]) async -> TransportResponse {
    await receiver.receive(method: method, headers: headers, body: body).response
}
