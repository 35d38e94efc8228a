import JOSE
import OIDCTLSTransport

/// The human view and the `--json` view of an inspection.
struct Renderer {
    let color: Bool
    let now: Double

    /// The JWE around a token: its protected header and, when decryption was asked for, its outcome.
    struct EncryptionLayer {
        let header: JSONObject
        var check: Check?
    }

    private func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    private func bold(_ text: String) -> String { paint(text, "1") }
    private func green(_ text: String) -> String { paint(text, "32") }
    private func red(_ text: String) -> String { paint(text, "31") }
    private func yellow(_ text: String) -> String { paint(text, "33") }
    private func dim(_ text: String) -> String { paint(text, "2") }

    /// Every text from the token or a server passes through ``TerminalText/escape(_:keepingNewlines:)``.
    func human(_ inspection: Inspection, keys: KeySource?, encryption: EncryptionLayer? = nil) -> String {
        func safe(_ text: String) -> String { TerminalText.escape(text, keepingNewlines: true) }
        var out = ""
        if let encryption {
            out += bold("Encryption header") + "\n" + safe(JSONValue.object(encryption.header).prettyJSONString(sortedKeys: true)) + "\n\n"
        }
        out += bold("Header") + "\n" + safe(JSONValue.object(inspection.header).prettyJSONString(sortedKeys: true)) + "\n\n"
        out += bold("Payload") + "\n"
        if let payload = inspection.payload {
            out += safe(payload.prettyJSONString(sortedKeys: true)) + "\n"
            if let claims = payload.objectValue {
                // One line per time claim present (no array of (name, seconds) tuples: tuple metadata is built at run time).
                var times = ""
                for name in ["exp", "nbf", "iat", "auth_time"] {
                    guard let seconds = claims[name]?.doubleValue else { continue }
                    times += "  " + name.padding(10) + TimeText.utc(seconds) + "  " + dim("(\(TimeText.phrase(for: name, seconds, now: now)))") + "\n"
                }
                if !times.isEmpty { out += "\n" + bold("Times") + "\n" + times }
            }
        } else if let text = inspection.payloadText {
            out += safe(text) + "\n" + dim("(not JSON)") + "\n"
        } else {
            out += dim("(binary, not UTF-8)") + "\n"
        }
        out += "\n" + bold("Checks") + "\n"
        for check in [inspection.signature] + inspection.checks {
            let mark: String
            switch check.status {
            case .pass: mark = green("✔")
            case .fail: mark = red("✘")
            case .info: mark = yellow("!")
            }
            out +=
                "  \(mark) " + TerminalText.escape(check.name).padding(10) + TerminalText.escape(check.message)
                + (check.reason.map { check.status == .fail ? dim("  [\($0)]") : "" } ?? "") + "\n"
        }
        out += "\n"
        if let failure = inspection.firstFailure {
            out += red(bold("INVALID")) + ": \(TerminalText.escape(failure.name)): \(TerminalText.escape(failure.message)) [\(failure.reason ?? "failed")]\n"
        } else if keys == nil, inspection.signature.status != .pass {  // a DPoP proof is verified with its own jwk
            out += yellow(bold("DECODED")) + ": the signature was NOT verified (no key given)\n"
        } else {
            out += green(bold("VALID")) + ": signature and all checks passed\n"
        }
        return out
    }

    /// A JWE not decrypted (no `--decrypt-key`) or whose decryption failed.
    func human(encrypted layer: EncryptionLayer) -> String {
        var out =
            bold("Encryption header") + "\n"
            + TerminalText.escape(JSONValue.object(layer.header).prettyJSONString(sortedKeys: true), keepingNewlines: true) + "\n\n"
        if let check = layer.check {
            out +=
                bold("Checks") + "\n  " + red("✘") + " " + "decryption".padding(10) + TerminalText.escape(check.message)
                + dim("  [\(check.reason ?? "failed")]") + "\n\n"
            out += red(bold("INVALID")) + ": decryption: \(TerminalText.escape(check.message)) [\(check.reason ?? "failed")]\n"
        } else {
            out += yellow(bold("ENCRYPTED")) + ": not decrypted (no --decrypt-key given)\n"
        }
        return out
    }

    /// The `encryption` member of the `--json` view.
    private func encryptionObject(_ layer: EncryptionLayer) -> JSONValue {
        var object = JSONObject()
        object["header"] = .object(layer.header)
        object["decrypted"] = .bool(layer.check?.status == .pass)
        object["reason"] = layer.check.flatMap { $0.status == .fail ? $0.reason.map(JSONValue.string) : nil } ?? .null
        return .object(object)
    }

    /// The `--json` view of a JWE not decrypted or whose decryption failed.
    func json(encrypted layer: EncryptionLayer) -> String {
        var object = JSONObject()
        let failed = layer.check?.status == .fail
        object["result"] = .string(failed ? "invalid" : "encrypted")
        object["reason"] = failed ? .string(layer.check?.reason ?? "failed") : .null
        object["encryption"] = encryptionObject(layer)
        return JSONValue.object(object).prettyJSONString(sortedKeys: false) + "\n"
    }

    func json(_ inspection: Inspection, encryption: EncryptionLayer? = nil) -> String {
        func checkObject(_ check: Check) -> JSONValue {
            var object = JSONObject()
            object["name"] = .string(check.name)
            object["status"] = .string(check.status.rawValue)
            object["reason"] = check.reason.map(JSONValue.string) ?? .null
            object["message"] = .string(check.message)
            return .object(object)
        }
        var object = JSONObject()
        let failure = inspection.firstFailure
        object["result"] = .string(failure != nil ? "invalid" : (inspection.signature.status == .pass ? "valid" : "decoded"))
        object["reason"] = failure.map { .string($0.reason ?? "failed") } ?? .null
        object["header"] = .object(inspection.header)
        object["payload"] = inspection.payload ?? inspection.payloadText.map(JSONValue.string) ?? .null
        var signature = JSONObject()
        signature["verified"] = .bool(inspection.signature.status == .pass)
        signature["status"] = .string(inspection.signature.status == .info ? "not_verified" : inspection.signature.status.rawValue)
        signature["reason"] = inspection.signature.reason.map(JSONValue.string) ?? .null
        signature["message"] = .string(inspection.signature.message)
        object["signature"] = .object(signature)
        object["checks"] = .array(inspection.checks.map(checkObject))
        if let encryption { object["encryption"] = encryptionObject(encryption) }
        return JSONValue.object(object).prettyJSONString(sortedKeys: false) + "\n"
    }

    /// The `--json` object for a token that could not be decoded at all.
    static func jsonError(reason: String, message: String) -> String {
        var object = JSONObject()
        object["result"] = .string("malformed")
        object["reason"] = .string(reason)
        object["message"] = .string(message)
        return JSONValue.object(object).prettyJSONString(sortedKeys: false) + "\n"
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
