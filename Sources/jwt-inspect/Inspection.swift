import JOSE

/// The result of one check.
struct Check {
    enum Status: String { case pass, fail, info }
    let name: String
    let status: Status
    let reason: String?
    let message: String
}

/// Everything the tool learned about one token.
struct Inspection {
    let header: JSONObject
    let payload: JSONValue?
    let payloadText: String?
    var signature: Check
    var checks: [Check] = []

    /// A failed check that counts, or `nil` when all passed.
    var firstFailure: Check? { ([signature] + checks).first { $0.status == .fail } }
}

/// Runs the checks the command line asked for.
struct Inspector {
    let options: Options
    let keys: KeySource?
    let now: Double

    /// Time claims count when a key or an explicit `--now` makes this a verification;
    /// a bare decode only reports them.
    var timesCount: Bool { keys != nil || options.now != nil }

    func inspect(_ jws: CompactJWS) throws(UsageError) -> Inspection {
        let payloadValue = try? JSONParser.parse(jws.payload)
        var inspection = Inspection(
            header: jws.header.members,
            payload: payloadValue,
            payloadText: payloadValue == nil ? String(validating: jws.payload, as: UTF8.self) : nil,
            signature: try signatureCheck(jws))
        if let claimsObject = payloadValue?.objectValue {
            inspection.checks = claimChecks(claimsObject, payload: jws.payload)
        } else if !options.requiredClaims.isEmpty || options.expectedIssuer != nil || options.expectedAudience != nil
                    || options.expectedNonce != nil || options.issuerURL != nil {
            inspection.checks = [Check(name: "claims", status: .fail, reason: "invalid_json",
                                       message: "the payload is not a JSON claim set, so claim checks cannot run")]
        }
        return inspection
    }

    func signatureCheck(_ jws: CompactJWS) throws(UsageError) -> Check {
        guard let keys else {
            return Check(name: "signature", status: .info, reason: "not_verified",
                         message: "NOT verified: no key given (use --key, --secret-file, --jwks-url or --issuer)")
        }
        var allowed: Set<JWSAlgorithm>? = nil
        if !options.algorithms.isEmpty {
            var set: Set<JWSAlgorithm> = []
            for name in options.algorithms {
                guard let algorithm = JWSAlgorithm(rawValue: name) else { throw UsageError("--alg \(name) is not a supported JWS algorithm") }
                set.insert(algorithm)
            }
            allowed = set
        }
        let policy = JWSVerificationPolicy(allowedAlgorithms: allowed)
        let algorithm = jws.header.algorithmName ?? "?"
        do {
            let key: JWK
            switch keys {
            case .single(let single):
                try jws.verify(with: single, policy: policy)
                key = single
            case .set(let set):
                key = try jws.verify(with: set, policy: policy)
            }
            return Check(name: "signature", status: .pass, reason: nil, message: "\(algorithm) verified with \(key.description)")
        } catch let error as JOSEError {
            return Check(name: "signature", status: .fail, reason: error.code.rawValue, message: error.reason)
        } catch {
            return Check(name: "signature", status: .fail, reason: "crypto_failure", message: "verification failed")
        }
    }

    func claimChecks(_ claims: JSONObject, payload: [UInt8]) -> [Check] {
        var checks: [Check] = []
        let leeway = options.leeway
        let timeStatus: (Bool) -> Check.Status = { ok in ok ? .pass : (timesCount ? .fail : .info) }
        // (claim, is it acceptable at `now`, reason code, phrase when passing, phrase when failing)
        let timeRules: [(String, (Double) -> Bool, String, (Double) -> String, (Double) -> String)] = [
            ("exp", { now - $0 < leeway }, "expired",
             { "not expired (\(TimeText.relative($0, now: now)))" }, { "expired \(TimeText.relative($0, now: now))" }),
            ("nbf", { $0 - now <= leeway }, "not_yet_valid",
             { "valid since \(TimeText.relative($0, now: now))" }, { "not valid until \(TimeText.relative($0, now: now))" }),
            ("iat", { $0 - now <= leeway }, "issued_in_future",
             { "issued \(TimeText.relative($0, now: now))" }, { "issued in the future (\(TimeText.relative($0, now: now)))" }),
        ]
        for (name, acceptable, reason, passing, failing) in timeRules {
            guard let value = claims[name] else { continue }
            guard let seconds = value.doubleValue else {
                checks.append(Check(name: name, status: .fail, reason: "claim_type_mismatch", message: "\"\(name)\" is not a number"))
                continue
            }
            let ok = acceptable(seconds)
            checks.append(Check(name: name, status: timeStatus(ok), reason: ok ? nil : reason, message: ok ? passing(seconds) : failing(seconds)))
        }
        if let expected = options.expectedIssuer ?? options.issuerURL {
            checks.append(equality("iss", claims["iss"], expected: expected, reason: "issuer_mismatch"))
        }
        if let expected = options.expectedAudience {
            let audience: [String]? = claims["aud"].flatMap { value in
                value.stringValue.map { [$0] } ?? value.arrayValue?.compactMap(\.stringValue)
            }
            if let audience {
                let ok = audience.contains(expected)
                checks.append(Check(name: "aud", status: ok ? .pass : .fail, reason: ok ? nil : "audience_mismatch",
                                    message: ok ? "contains \"\(expected)\"" : "\"aud\" does not contain \"\(expected)\""))
            } else {
                checks.append(Check(name: "aud", status: .fail, reason: "missing_claim", message: "the token has no string \"aud\""))
            }
        }
        if let expected = options.expectedNonce {
            if let nonce = claims["nonce"]?.stringValue {
                let ok = ConstantTime.equals(nonce, expected)
                checks.append(Check(name: "nonce", status: ok ? .pass : .fail, reason: ok ? nil : "nonce_mismatch",
                                    message: ok ? "matches" : "\"nonce\" does not match the expected value"))
            } else {
                checks.append(Check(name: "nonce", status: .fail, reason: "missing_claim", message: "the token has no string \"nonce\""))
            }
        }
        for name in options.requiredClaims {
            let present = claims[name] != nil
            checks.append(Check(name: name, status: present ? .pass : .fail, reason: present ? nil : "missing_claim",
                                message: present ? "present" : "required claim \"\(name)\" is missing"))
        }
        return checks
    }

    func equality(_ name: String, _ value: JSONValue?, expected: String, reason: String) -> Check {
        guard let actual = value?.stringValue else {
            return Check(name: name, status: .fail, reason: "missing_claim", message: "the token has no string \"\(name)\"")
        }
        let ok = actual == expected
        return Check(name: name, status: ok ? .pass : .fail, reason: ok ? nil : reason,
                     message: ok ? "is \"\(expected)\"" : "\"\(name)\" is \"\(actual)\", expected \"\(expected)\"")
    }
}
