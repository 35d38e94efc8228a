/// The `address` claim (OpenID Connect Core §5.1.1). Every member is optional.
public struct Address: Sendable, Hashable, Codable {
    /// `formatted`: the full mailing address, possibly with newlines.
    public var formatted: String?
    /// `street_address`
    public var streetAddress: String?
    /// `locality` (city)
    public var locality: String?
    /// `region` (state, province)
    public var region: String?
    /// `postal_code`
    public var postalCode: String?
    /// `country`
    public var country: String?

    /// Creates an address.
    public init(
        formatted: String? = nil, streetAddress: String? = nil, locality: String? = nil,
        region: String? = nil, postalCode: String? = nil, country: String? = nil
    ) {
        self.formatted = formatted
        self.streetAddress = streetAddress
        self.locality = locality
        self.region = region
        self.postalCode = postalCode
        self.country = country
    }

    enum CodingKeys: String, CodingKey {
        case formatted
        case streetAddress = "street_address"
        case locality, region
        case postalCode = "postal_code"
        case country
    }
}
