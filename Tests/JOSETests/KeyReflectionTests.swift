import Testing

@testable import JOSE

@Suite("Key material never shows through dump or Mirror")
struct KeyReflectionTests {
    @Test("an HMAC key's bytes are not in dump, Mirror or descriptions")
    func hmacKey() throws {
        // 32 bytes of 0xAB: dump would print "- 171" for each byte of a stored array.
        let key = JWK(symmetricKey: [UInt8](repeating: 0xAB, count: 32))
        var dumped = ""
        dump(key, to: &dumped, maxDepth: 20)
        var mirrored = ""
        func walk(_ mirror: Mirror, depth: Int) {
            guard depth < 20 else { return }
            for child in mirror.children {
                mirrored += "\(child.label ?? "-")=\(child.value)\n"
                walk(Mirror(reflecting: child.value), depth: depth + 1)
            }
        }
        walk(Mirror(reflecting: key), depth: 0)
        for text in [dumped, mirrored, String(describing: key), String(reflecting: key), String(describing: [key])] {
            #expect(!text.contains("171"))
            #expect(!text.contains("0xab") && !text.contains("0xAB"))
            #expect(!text.contains("q6urq6urq6u"))  // its Base64URL
        }
        #expect(dumped.contains("oct"))
        #expect(dumped.contains("256"))
    }

    @Test("a private key's dump shows labels only")
    func privateKey() throws {
        var key = JWK(symmetricKey: [UInt8](repeating: 0xCD, count: 48))
        key.keyID = "kid-1"
        let set = JWKSet(keys: [key])
        var dumped = ""
        dump(set, to: &dumped, maxDepth: 20)
        #expect(!dumped.contains("205"))
        #expect(dumped.contains("kid-1"))
    }
}
