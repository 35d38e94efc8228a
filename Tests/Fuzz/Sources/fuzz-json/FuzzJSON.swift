// The strict JSON parser: bytes and String entry points, a tight depth/size
// limit, and the serializer round trip: its output parses, and serializing that
// again gives the same text (integral doubles are written as integers by design,
// so value equality is too strict: -0.0 comes back as 0).
import FuzzSupport
@_spi(Testing) import JOSE

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let value = try? JOSEFuzzing.parseJSON(buffer: buffer)
    _ = try? JOSEFuzzing.parseJSON(buffer: buffer, limits: JSONLimits(maxDepth: 4, maxBytes: 256))
    // Differential: the index mode behind JWTClaims (which scans strings with
    // the same word-at-a-time code) must accept exactly the objects the full
    // parser accepts, under the same limits, and read every member alike.
    let limits = JOSELimits.default
    let full = try? JOSEFuzzing.parseJSON(buffer: buffer, limits: JSONLimits(maxDepth: limits.maxJSONDepth, maxBytes: limits.maxTokenBytes))
    let indexed = try? JWTClaims(payload: Array(buffer), limits: limits)
    if case .object(let object)? = full {
        guard let indexed else { fatalError("JSON: index mode rejected an object the full parser accepted") }
        for member in object where indexed[member.name] != member.value {
            fatalError("JSON: index mode read member \(member.name) differently")
        }
    } else if indexed != nil {
        fatalError("JSON: index mode accepted what the full parser rejected")
    }
    let text = Fuzz.string(data, size)
    let fromString = try? JOSEFuzzing.parseJSON(text)
    if Array(text.utf8).elementsEqual(buffer), (value == nil) != (fromString == nil) {
        fatalError("JSON: bytes and String parsers disagree")
    }
    if let value {
        let compact = value.jsonString()
        let pretty = value.prettyJSONString()
        guard let again = try? JOSEFuzzing.parseJSON(compact) else { fatalError("JSON: serializer output does not parse: \(compact)") }
        guard again.jsonString() == compact else { fatalError("JSON: round trip changed the value: \(compact)") }
        _ = try? JOSEFuzzing.parseJSON(pretty)
        if case .object(let object) = value {
            _ = try? JOSEFuzzing.parseJSONObject(Array(buffer))
            blackHole(object.jsonString(sortedKeys: true))
        }
        blackHole(pretty)
    }
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
