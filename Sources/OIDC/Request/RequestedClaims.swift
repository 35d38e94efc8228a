import JOSE

/// The claims requested for one target (`id_token` or `userinfo`), in order, names unique.
///
/// Write it as a dictionary literal: `["acr": .essential, "email": .voluntary]`.
public struct RequestedClaims: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// The claims in order.
    public private(set) var claims: [(name: String, requirement: ClaimRequirement)] = []

    /// No claims.
    public init() {}

    /// Claims from a literal, in literal order; a repeated name keeps its last requirement at its first position.
    public init(dictionaryLiteral elements: (String, ClaimRequirement)...) {
        for (name, requirement) in elements { self[name] = requirement }
    }

    /// The requirement for a claim; setting `nil` removes it.
    public subscript(name: String) -> ClaimRequirement? {
        get { claims.first(where: { $0.name == name })?.requirement }
        set {
            if let index = claims.firstIndex(where: { $0.name == name }) {
                if let newValue { claims[index].requirement = newValue } else { claims.remove(at: index) }
            } else if let newValue {
                claims.append((name, newValue))
            }
        }
    }

    /// The claim names in order.
    package var names: [String] { claims.map(\.name) }
    /// Whether no claim is requested.
    public var isEmpty: Bool { claims.isEmpty }

    /// Iterates the claims in order.
    public func makeIterator() -> IndexingIterator<[(name: String, requirement: ClaimRequirement)]> { claims.makeIterator() }

    /// The JSON object, in order.
    package var jsonObject: JSONObject {
        JSONObject(claims.map { ($0.name, $0.requirement.jsonValue) })
    }

    /// Equal when both request the same claims in the same order.
    public static func == (lhs: RequestedClaims, rhs: RequestedClaims) -> Bool {
        lhs.claims.count == rhs.claims.count
            && zip(lhs.claims, rhs.claims).allSatisfy { $0.name == $1.name && $0.requirement == $1.requirement }
    }

    /// Hashes names and requirements in order.
    public func hash(into hasher: inout Hasher) {
        for claim in claims {
            hasher.combine(claim.name)
            hasher.combine(claim.requirement)
        }
    }
}
