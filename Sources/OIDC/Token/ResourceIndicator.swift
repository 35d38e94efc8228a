#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resource indicators (RFC 8707): the `resource` parameters of a token request.
enum ResourceIndicator {
    /// One `resource` parameter per URI, in order, after checking each is an absolute
    /// URI without a fragment (RFC 8707 §2).
    /// - Throws: ``OIDCError`` `.invalidResourceIndicator` naming the position (not the URI's query).
    static func parameters(for resources: [URL]) throws -> [(name: String, value: String)] {
        try resources.enumerated().map { index, resource in
            guard let scheme = resource.scheme, !scheme.isEmpty, resource.host != nil || scheme == "urn" else {
                throw OIDCError(.invalidResourceIndicator, "resource indicator #\(index + 1) is not an absolute URI")
            }
            guard resource.fragment == nil, !resource.absoluteString.contains("#") else {
                throw OIDCError(.invalidResourceIndicator, "resource indicator #\(index + 1) has a fragment (RFC 8707 §2)")
            }
            return ("resource", resource.absoluteString)
        }
    }
}
