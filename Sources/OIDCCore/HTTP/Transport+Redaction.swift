#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HeaderFields: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Header fields whose values are credentials: shown as `[redacted]` by
    /// ``description``, `dump` and `Mirror` (the fields themselves are unchanged).
    public static let credentialFieldNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "dpop",
        "x-api-key",
    ]

    /// The fields as printed: credential values replaced by `[redacted]`.
    public var redactedFields: [(name: String, value: String)] {
        fields.map { field in
            Self.credentialFieldNames.contains(field.name.lowercased()) ? (field.name, "[redacted]") : field
        }
    }

    /// e.g. `[Accept: application/json, Authorization: [redacted]]`.
    public var description: String { "[" + redactedFields.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// One child per field, `name: value`, credential values redacted.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: redactedFields.map { "\($0.name): \($0.value)" }, displayStyle: .collection)
    }
}

extension TransportBody: CustomReflectable {
    /// The length only: a body carries codes, verifiers, secrets and tokens.
    public var customMirror: Mirror {
        switch self {
        case .bytes(let bytes): return Mirror(self, children: ["bytes": "\(bytes.count) bytes (redacted)"], displayStyle: .enum)
        case .stream: return Mirror(self, children: ["stream": "one-shot stream"], displayStyle: .enum)
        }
    }
}

extension URL {
    /// The URL with its query and fragment replaced by `[redacted]` (they may carry a code or token).
    package var redactedForDisplay: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return "[unparseable URL]" }
        let hadQuery = components.query != nil, hadFragment = components.fragment != nil
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return (components.string ?? "[unparseable URL]") + (hadQuery ? "?[redacted]" : "") + (hadFragment ? "#[redacted]" : "")
    }
}

extension TransportRequest: CustomReflectable {
    /// Method, URL without query or fragment, redacted headers, body length.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "url": url.redactedForDisplay, "headers": headers, "body": body as Any,
                "timeout": timeout, "followsRedirects": followsRedirects,
            ], displayStyle: .struct)
    }
}

extension TransportResponse: CustomReflectable {
    /// Status, redacted headers, body length (a token response's body holds tokens).
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "headers": headers, "body": "\(body.count) bytes (redacted)"], displayStyle: .struct)
    }
}
