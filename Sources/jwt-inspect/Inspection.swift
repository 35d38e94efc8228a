import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// One line per claim check, for the reader; the verdict does not come from these.
    var checks: [Check] = []
    /// The library's verdict on the claims (`JWTClaims` parsing and `validate`), then the nonce.
    var claimsFailure: Check?

    /// The failure that decides the exit status, or `nil` when the token passed.
    var firstFailure: Check? { signature.status == .fail ? signature : claimsFailure }
}

/// Judges a token exactly as the library does, and describes it.
///
/// The signature is checked by `CompactJWS.verify`, the payload parsed by
/// `JWTClaims(payload:)` and the claims judged by `JWTClaims.validate`: the same three
/// steps, in the same order, as `JWT.verify` (the fuzz target fuzz-jws-compact holds the
/// two paths to the same outcome). The tool adds only the nonce comparison, which JOSE
/// has no option for, and the presentation: each claim line is the library's
/// `validate` run on that claim alone.
struct Inspector {
    let options: Options
    let keys: KeySource?
    let now: Double

    /// Time claims count when a key or an explicit `--now` makes this a verification;
    /// a bare decode only reports them.
    var timesCount: Bool { keys != nil || options.now != nil }

    static let timeClaims = ["exp", "nbf", "iat"]

    func inspect(_ jws: CompactJWS) throws(UsageError) -> Inspection {
        let display = try? JSONParser.parse(jws.payload)  // for showing only; the claims are judged below
        var inspection = Inspection(
            header: jws.header.members,
            payload: display,
            payloadText: display == nil ? String(validating: jws.payload, as: UTF8.self) : nil,
            signature: try signatureCheck(jws))
        judgeClaims(jws.payload, into: &inspection)
        return inspection
    }

    func signatureCheck(_ jws: CompactJWS) throws(UsageError) -> Check {
        guard let keys else {
            return Check(
                name: "signature", status: .info, reason: "not_verified",
                message: "NOT verified: no key given (use --key, --secret-file, --jwks-url or --issuer)")
        }
        let policy = try self.policy()
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

    func policy() throws(UsageError) -> JWSVerificationPolicy {
        guard !options.algorithms.isEmpty else { return JWSVerificationPolicy(allowedAlgorithms: nil) }
        var set: Set<JWSAlgorithm> = []
        for name in options.algorithms {
            guard let algorithm = JWSAlgorithm(rawValue: name) else { throw UsageError("--alg \(name) is not a supported JWS algorithm") }
            set.insert(algorithm)
        }
        return JWSVerificationPolicy(allowedAlgorithms: set)
    }

    /// The validation options of the command line (`--now`, `--leeway`, `--iss`/`--issuer`, `--aud`, `--require`).
    func validation(identity: Bool = true) -> JWTValidationPolicy {
        let now = self.now
        return JWTValidationPolicy(
            clock: { Date(timeIntervalSince1970: now) }, leeway: options.leeway,
            issuer: identity ? options.expectedIssuer ?? options.issuerURL : nil,
            audience: identity ? options.expectedAudience : nil,
            requiredClaims: identity ? options.requiredClaims : [])
    }

    var asksForClaims: Bool {
        !options.requiredClaims.isEmpty || options.expectedIssuer != nil || options.expectedAudience != nil
            || options.expectedNonce != nil || options.issuerURL != nil
    }

    func judgeClaims(_ payload: [UInt8], into inspection: inout Inspection) {
        let claims: JWTClaims
        do {
            claims = try JWTClaims(payload: payload)
        } catch {
            let failure = Self.check("claims", error, prefix: "the payload is not a JWT claim set: ")
            let counts = timesCount || asksForClaims
            let line = Check(name: "claims", status: counts ? .fail : .info, reason: failure.reason, message: failure.message)
            inspection.checks = [line]
            inspection.claimsFailure = counts ? line : nil
            return
        }
        // The verdict: one library call. Without a key or --now the times only inform,
        // so the claims are then judged without their time members.
        do {
            if timesCount {
                try claims.validate(validation())
            } else {
                try JWTClaims(JSONObject(claims.object.members.filter { !Self.timeClaims.contains($0.name) }.map { ($0.name, $0.value) }))
                    .validate(validation())
            }
        } catch {
            inspection.claimsFailure = Self.check("claims", error)
        }
        inspection.checks = lines(claims)
        // The verdict keeps the library's reason; its line, when there is one, words it for the reader.
        if let failure = inspection.claimsFailure,
            let line = inspection.checks.first(where: { $0.name == failure.name && $0.status == .fail && $0.reason == failure.reason })
        {
            inspection.claimsFailure = line
        }
        if inspection.claimsFailure == nil, let nonceLine = inspection.checks.first(where: { $0.name == "nonce" }), nonceLine.status == .fail {
            inspection.claimsFailure = nonceLine
        }
    }

    /// The presentation: each line is the library's `validate` on that claim alone.
    func lines(_ claims: JWTClaims) -> [Check] {
        var checks: [Check] = []
        let object = claims.object
        func alone(_ name: String, _ options: JWTValidationPolicy) -> (any Error)? {
            var single = JSONObject()
            if let value = object[name] { single[name] = value }
            do { try JWTClaims(single).validate(options); return nil } catch { return error }
        }
        for name in Self.timeClaims {
            guard let value = object[name] else { continue }
            let seconds = value.doubleValue ?? .nan
            if let error = alone(name, validation(identity: false)) {
                let failure = Self.check(name, error)
                let message = failure.reason == "claim_type_mismatch" ? failure.message : TimeText.failing(name, seconds, now: now)
                checks.append(Check(name: name, status: timesCount ? .fail : .info, reason: failure.reason, message: message))
            } else {
                checks.append(Check(name: name, status: .pass, reason: nil, message: TimeText.passing(name, seconds, now: now)))
            }
        }
        func identity(_ name: String, _ options: JWTValidationPolicy, passing: String) {
            if let error = alone(name, options) {
                let failure = Self.check(name, error)
                checks.append(Check(name: name, status: .fail, reason: failure.reason, message: failure.message))
            } else {
                checks.append(Check(name: name, status: .pass, reason: nil, message: passing))
            }
        }
        let noTimes = JWTValidationPolicy(clock: { Date(timeIntervalSince1970: 0) })
        if let expected = options.expectedIssuer ?? options.issuerURL {
            var issuerOnly = noTimes
            issuerOnly.issuer = expected
            identity("iss", issuerOnly, passing: "is \"\(expected)\"")
        }
        if let expected = options.expectedAudience {
            var audienceOnly = noTimes
            audienceOnly.audience = expected
            identity("aud", audienceOnly, passing: "contains \"\(expected)\"")
        }
        if let expected = options.expectedNonce {
            if let nonce = object["nonce"]?.stringValue {
                let ok = ConstantTime.equals(nonce, expected)
                checks.append(
                    Check(
                        name: "nonce", status: ok ? .pass : .fail, reason: ok ? nil : "nonce_mismatch",
                        message: ok ? "matches" : "\"nonce\" does not match the expected value"))
            } else {
                checks.append(Check(name: "nonce", status: .fail, reason: "missing_claim", message: "the token has no string \"nonce\""))
            }
        }
        for name in options.requiredClaims {
            var required = noTimes
            required.requiredClaims = [name]
            if Self.timeClaims.contains(name) {
                // Alone, a time claim would also be judged; its presence is what is asked here.
                let present = object[name] != nil
                checks.append(
                    Check(
                        name: name, status: present ? .pass : .fail, reason: present ? nil : "missing_claim",
                        message: present ? "present" : "required claim \"\(name)\" is missing"))
            } else {
                identity(name, required, passing: "present")
            }
        }
        return checks
    }

    /// A failed check from a library error.
    static func check(_ name: String, _ error: any Error, prefix: String = "") -> Check {
        if let error = error as? JOSEError {
            return Check(name: error.member ?? name, status: .fail, reason: error.code.rawValue, message: prefix + error.reason)
        }
        return Check(name: name, status: .fail, reason: "invalid_claims", message: prefix + "the claims could not be read")
    }
}
