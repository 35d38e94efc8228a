import Foundation

/// Unguessable handles for cookies, sessions and request-object ids: 256 bits from the system's CSPRNG,
/// as 43 Base64URL characters (the format the OAuth `state` of the toolkit has).
enum RandomHandle {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
