/// Reads one element of an array or one member of an object for
/// ``Parser/forEachElement(closing:what:_:)``, which handles the grammar around it.
protocol ElementReader {
    mutating func read(_ parser: inout Parser) throws
}

/// Builds an array's values.
struct ElementBuilder: ElementReader {
    var elements: [JSONValue] = []

    @inline(__always) mutating func read(_ parser: inout Parser) throws {
        // Room for four values at the first one (an empty array allocates nothing): short arrays, such as an SD-JWT
        // disclosure's three elements, are not regrown from one to two to four.
        if elements.isEmpty { elements.reserveCapacity(4) }
        elements.append(try parser.parseValue())
    }
}

/// Builds an object's members, refusing duplicate names.
struct MemberBuilder: ElementReader {
    var members: [JSONMember]

    init() {
        members = []
        members.reserveCapacity(8)
    }

    @inline(__always) mutating func read(_ parser: inout Parser) throws {
        let nameOffset = try parser.expectMemberName()
        let name = try parser.parseName()
        // Duplicate check: UTF-8 length first (O(1) on native strings), full comparison only on equal lengths.
        let length = name.utf8.count
        for member in members where member.name.utf8.count == length && member.name == name {
            throw JOSEError(.duplicateJSONMember, "duplicate member name \"\(name.jsonSafePrefix)\" at offset \(nameOffset)", member: name)
        }
        try parser.expectNameSeparator()
        members.append(JSONMember(name: name, value: try parser.parseValue()))
    }
}

/// Index mode: validates an array's values without building them.
struct ElementSkipper: ElementReader {
    @inline(__always) mutating func read(_ parser: inout Parser) throws { try parser.skipValue() }
}
