/// The media type of a `Content-Type` value, lower-cased, parameters and white space dropped
/// (a media type has no inner white space).
package enum MediaType {
    package static func essence(of contentType: String?) -> String? {
        guard let contentType, let first = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first else {
            return nil
        }
        return String(first.filter { $0 != " " && $0 != "\t" }).lowercased()
    }

    package static let form = "application/x-www-form-urlencoded"
}
