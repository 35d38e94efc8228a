import CZlib
import Foundation
import Testing

@testable import JOSE

/// Token Status List (draft-ietf-oauth-status-list): the list's format, bounded inflation, the status list token.
@Suite("Token Status List")
struct StatusListTests {
    /// `bytes` zlib-compressed and base64url-encoded, as `lst` is.
    static func lst(_ bytes: [UInt8]) throws -> String {
        var size = compressBound(UInt(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(size))
        let status = compress2(&output, &size, bytes, UInt(bytes.count), 9)
        try #require(status == Z_OK)
        return Data(output.prefix(Int(size))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("the draft's 1-bit example (§4.1): eNrbuRgAAhcBXQ holds 16 statuses, least significant bit first")
    func oneBitExample() throws {
        let list = try StatusList(json: ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])
        #expect(list.count == 16)
        let expected: [UInt8] = [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]
        #expect(try (0..<16).map { try list.status(at: $0).rawValue } == expected)
    }

    @Test("the draft's 2-bit example (§4.1): eNo76fITAAPfAgc")
    func twoBitExample() throws {
        let list = try StatusList(json: ["bits": 2, "lst": "eNo76fITAAPfAgc"])
        let expected: [UInt8] = [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3]
        #expect(try (0..<12).map { try list.status(at: $0).rawValue } == expected)
        #expect(try list.status(at: 1) == .suspended)
        #expect(try list.status(at: 3).description == "0x3")
    }

    @Test("4- and 8-bit entries")
    func widerEntries() throws {
        let four = try StatusList(json: ["bits": 4, "lst": .string(try Self.lst([0x21, 0xF0]))])
        #expect(try [0, 1, 2, 3].map { try four.status(at: $0).rawValue } == [1, 2, 0, 15])
        let eight = try StatusList(json: ["bits": 8, "lst": .string(try Self.lst([0, 1, 2, 0xC3]))])
        #expect(try eight.status(at: 3).rawValue == 0xC3)
        #expect(eight.count == 4)
    }

    @Test("an index outside the list, or negative, is a typed refusal, not a crash")
    func indexOutside() throws {
        let list = try StatusList(json: ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])
        for index in [16, 1 << 40, -1, Int.max, Int.min] {
            #expect(throws: JOSEError.self) { try list.status(at: index) }
            do { _ = try list.status(at: index) } catch { #expect(error.code == .invalidStatusList) }
        }
    }

    @Test("bits other than 1, 2, 4 and 8, a missing lst, non-base64url and non-zlib data are refused")
    func malformed() throws {
        let good = try Self.lst([1])
        let cases: [JSONObject] = [
            ["bits": 3, "lst": .string(good)], ["bits": 0, "lst": .string(good)], ["bits": "1", "lst": .string(good)],
            ["lst": .string(good)], ["bits": 1], ["bits": 1, "lst": 5], ["bits": 1, "lst": "not base64url!"],
            ["bits": 1, "lst": "AAAA"],  // not a zlib header
            ["bits": 1, "lst": .string(String(good.dropLast(3)))],  // truncated stream
            ["bits": 1, "lst": .string(try Self.lst([1]) + "AA")],  // bytes after the stream
        ]
        for object in cases {
            do {
                _ = try StatusList(json: object)
                Issue.record("accepted \(object)")
            } catch {
                #expect(error.code == .invalidStatusList, "\(object): \(error)")
            }
        }
    }

    @Test("a checksum mismatch is refused")
    func corrupted() throws {
        var compressed = try #require(Data(base64Encoded: "eNrbuRgAAhcBXQ=="))
        compressed[compressed.count - 1] ^= 0x01
        let text = compressed.base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(throws: JOSEError.self) { try StatusList(json: ["bits": 1, "lst": .string(text)]) }
    }

    @Test("a list that would inflate past the bound is refused at the bound, not inflated whole")
    func oversized() throws {
        // 64 MiB of zeros compress to about 64 KiB: a 16 MiB bound stops inflation a quarter of the way.
        let bomb = try Self.lst([UInt8](repeating: 0, count: 64 << 20))
        do {
            _ = try StatusList(json: ["bits": 1, "lst": .string(bomb)])
            Issue.record("a 64 MiB list passed the 16 MiB bound")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.member == "lst")
        }
        // A caller's smaller bound: 2 000 bytes do not fit in 1 000.
        #expect(throws: JOSEError.self) {
            try StatusList(json: ["bits": 1, "lst": .string(try Self.lst([UInt8](repeating: 7, count: 2000)))], maximumBytes: 1000)
        }
        // Exactly at the bound passes.
        let exact = try StatusList(json: ["bits": 8, "lst": .string(try Self.lst([UInt8](repeating: 2, count: 1000)))], maximumBytes: 1000)
        #expect(try exact.status(at: 999) == .suspended)
    }

    @Test("requireValid names revoked, suspended and other statuses by their codes")
    func requireValid() throws {
        try StatusList.Status.valid.requireValid()
        let expectations: [(StatusList.Status, JOSEError.Code)] = [
            (.invalid, .credentialRevoked), (.suspended, .credentialSuspended), (StatusList.Status(rawValue: 3), .credentialStatusNotValid),
        ]
        for (status, code) in expectations {
            do {
                try status.requireValid()
                Issue.record("\(status) passed")
            } catch { #expect(error.code == code) }
        }
    }

    @Test("status.status_list in a credential's claims: idx and uri, or nothing")
    func reference() throws {
        let claims: JSONObject = ["status": ["status_list": ["idx": 7, "uri": "https://issuer.example/lists/1"]]]
        #expect(try StatusListReference(claims: claims) == StatusListReference(index: 7, uri: "https://issuer.example/lists/1"))
        #expect(try StatusListReference(claims: ["sub": "x"]) == nil)
        #expect(try StatusListReference(claims: ["status": ["other_mechanism": [:]]]) == nil)
        let bad: [JSONObject] = [
            ["status": "revoked"], ["status": ["status_list": 3]], ["status": ["status_list": ["idx": -1, "uri": "u"]]],
            ["status": ["status_list": ["idx": 1.5, "uri": "u"]]], ["status": ["status_list": ["idx": 1]]],
        ]
        for claims in bad {
            do {
                _ = try StatusListReference(claims: claims)
                Issue.record("accepted \(claims)")
            } catch { #expect(error.code == .invalidStatusList) }
        }
    }

    // MARK: - The status list token

    static let key = Result { try JWK.generate(.ec(.p256)) }
    static let uri = "https://issuer.example/statuslists/1"

    static func token(_ claims: JSONObject, typ: String = "statuslist+jwt", key: JWK? = nil) throws -> String {
        try JWT.sign(claims, key: key ?? Self.key.get(), algorithm: .es256, header: ["typ": .string(typ)])
    }

    static func claims(ttl: JSONValue? = 43200, sub: String = uri, iat: JSONValue? = nil, exp: JSONValue? = nil) -> JSONObject {
        var pairs: [(String, JSONValue)] = [("sub", .string(sub)), ("status_list", ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])]
        pairs.append(("iat", iat ?? .integer(Int64(Date().timeIntervalSince1970))))
        if let ttl { pairs.append(("ttl", ttl)) }
        if let exp { pairs.append(("exp", exp)) }
        return JSONObject(pairs)
    }

    var keys: JWKSet { get throws { JWKSet(keys: [try Self.key.get()]) } }

    @Test("a status list token verifies: typ, signature, sub, iat, ttl, the list")
    func tokenVerifies() throws {
        let token = try StatusListToken.verify(try Self.token(Self.claims()), uri: Self.uri, keys: keys)
        #expect(token.subject == Self.uri)
        #expect(token.timeToLive == 43200)
        #expect(try token.list.status(at: 0) == .invalid)
        // `application/` prefix and case, as RFC 7515 §4.1.9 compares media types.
        _ = try StatusListToken.verify(try Self.token(Self.claims(), typ: "application/StatusList+JWT"), uri: Self.uri, keys: keys)
    }

    @Test("each refusal of a status list token has its code")
    func tokenRefusals() throws {
        let other = try JWK.generate(.ec(.p256))
        let past = JSONValue.integer(Int64(Date().timeIntervalSince1970) - 3600)
        let cases: [(String, String, JOSEError.Code)] = [
            ("another typ", try Self.token(Self.claims(), typ: "JWT"), .invalidHeader),
            ("another URI", try Self.token(Self.claims(sub: "https://issuer.example/statuslists/2")), .claimMismatch),
            ("another key", try Self.token(Self.claims(), key: other), .invalidSignature),
            ("expired", try Self.token(Self.claims(exp: past)), .expired),
            ("ttl zero", try Self.token(Self.claims(ttl: 0)), .invalidStatusList),
            ("ttl text", try Self.token(Self.claims(ttl: "1 day")), .invalidStatusList),
            ("no list", try Self.token(["sub": .string(Self.uri), "iat": 1_700_000_000]), .invalidStatusList),
        ]
        for (name, token, code) in cases {
            do {
                _ = try StatusListToken.verify(token, uri: Self.uri, keys: keys)
                Issue.record("\(name): accepted")
            } catch let error as JOSEError {
                #expect(error.code == code, "\(name): \(error)")
            }
        }
        // No iat.
        var noIAT = Self.claims()
        noIAT = JSONObject(noIAT.members.filter { $0.name != "iat" }.map { ($0.name, $0.value) })
        #expect(throws: JOSEError.self) { try StatusListToken.verify(try Self.token(noIAT), uri: Self.uri, keys: keys) }
        // alg none is never accepted.
        let unsigned = "eyJhbGciOiJub25lIiwidHlwIjoic3RhdHVzbGlzdCtqd3QifQ." + "e30."
        #expect(throws: JOSEError.self) { try StatusListToken.verify(unsigned, uri: Self.uri, keys: keys) }
    }
}
