import OIDC

/// What a web route answers for a toolkit error: the category decides, the code is shown, the reason is logged.
enum RouteAnswer: Equatable {
    case logInAgain
    case retryLater(status: Int)
    case refuse(status: Int, code: String)
}

func routeAnswer(for error: OIDCError, log: (String) -> Void) -> RouteAnswer {
    log("\(error.code): \(error.reason)")  // the reason is for logs, never for the browser
    switch error.category {
    case .authenticateAgain:
        return .logInAgain  // a dead grant, a spent or expired pending login
    case .unavailable:
        return .retryLater(status: error.suggestedHTTPStatus)  // 503: the provider, the network or a store is down
    case .invalidInput, .providerRefused, .configuration, .storage:
        return .refuse(status: error.suggestedHTTPStatus, code: error.code.rawValue)  // 400, 403, 500, 500
    }
}
