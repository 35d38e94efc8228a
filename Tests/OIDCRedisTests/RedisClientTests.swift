import Foundation
import OIDC
import Testing

@testable import OIDCRedis

@Suite("OIDCRedis's client: URLs and RESP (no server)")
struct RedisClientTests {
    @Test("redis:// and rediss:// URLs: user, password (percent-decoded), host, port, database; bad ones are typed errors without the password")
    func urls() throws {
        let plain = try RedisEndpoint(url: "redis://127.0.0.1:19500/3")
        #expect(!plain.isTLS && plain.host == "127.0.0.1" && plain.port == "19500" && plain.database == 3 && plain.user == nil && plain.password == nil)
        let tls = try RedisEndpoint(url: "rediss://app%40x:p%3Ass@Cache.Example")
        #expect(tls.isTLS && tls.host == "cache.example" && tls.port == "6379" && tls.database == 0 && tls.user == "app@x" && tls.password == "p:ss")
        let passwordOnly = try RedisEndpoint(url: "redis://:secret@[::1]:7000")
        #expect(passwordOnly.user == nil && passwordOnly.password == "secret" && passwordOnly.host == "::1" && passwordOnly.port == "7000")
        for bad in [
            "http://127.0.0.1", "redis://", "redis://h:0", "redis://h:99999", "redis://h/db", "redis://h/70000", "redis://h?x=1",
            "redis://u:p%zz@h", "redis://h x", "redis://[::1", "redis://u:hunter2@h:port",
        ] {
            do {
                _ = try RedisEndpoint(url: bad)
                Issue.record("accepted \(bad)")
            } catch let error as OIDCError {
                #expect(error.code == .invalidRedisURL)
                #expect(!error.reason.contains("hunter2"))
            }
        }
        #expect(throws: OIDCError.self) { try RedisDatabase(url: "redis://h", maximumConnections: 0) }
        #expect(throws: OIDCError.self) { try RedisDatabase(url: "redis://h", commandTimeout: .nan) }
        let database = try RedisDatabase(url: "redis://u:hunter2@127.0.0.1:1/0")
        #expect("\(database)" == "RedisDatabase(connections: 4)")
        #expect(!String(reflecting: database).contains("hunter2"))
        var dumped = ""
        dump(database, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }

    @Test("RESP replies parse (nested, null, binary, RESP3 types); incomplete input asks for more")
    func parse() throws {
        let reply = Array("*4\r\n$3\r\nab\0\r\n:-42\r\n$-1\r\n*2\r\n+OK\r\n-ERR no\r\n".utf8)
        let (value, end) = try #require(try RESP.parse(reply, from: 0))
        #expect(end == reply.count)
        #expect(value == .array([.bulk([97, 98, 0]), .integer(-42), .null, .array([.simple("OK"), .error("ERR no")])]))
        for cut in 0..<reply.count { #expect(try RESP.parse(Array(reply[0..<cut]), from: 0) == nil) }
        #expect(try RESP.parse(Array("_\r\n".utf8), from: 0)?.0 == .null)
        #expect(try RESP.parse(Array("%1\r\n+a\r\n:1\r\n".utf8), from: 0)?.0 == .array([.simple("a"), .integer(1)]))
        #expect(RESP.encode([Array("GET".utf8), [0, 13, 10]]) == Array("*2\r\n$3\r\nGET\r\n$3\r\n\0\r\n\r\n".utf8))
    }

    @Test("malformed or hostile replies are invalid_redis_value, never a crash (lengths, counts, depth, numbers; 20 000 random inputs)")
    func hostile() throws {
        for bad in [
            "?x\r\n", ":12a\r\n", ":\r\n", "$99999999999\r\n", "$-2\r\n", "$3\r\nabcd\r\n", "*-5\r\n", "*99999999999\r\n",
            "+ok\rX", ":99999999999999999999999\r\n", "%4611686018427387904\r\n",
        ] {
            #expect(throws: OIDCError.self, "\(bad.debugDescription)") { _ = try RESP.parse(Array(bad.utf8), from: 0) }
        }
        let deep = Array(String(repeating: "*1\r\n", count: 20).utf8) + Array(":1\r\n".utf8)
        #expect(throws: OIDCError.self) { _ = try RESP.parse(deep, from: 0) }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("*$:+-_%#,(!=>~\r\n0123456789-".utf8)
        for _ in 0..<20_000 {
            let input = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            do { _ = try RESP.parse(input, from: 0) } catch let error as OIDCError { #expect(error.code == .invalidRedisValue) }
        }
    }
}

@Suite("OIDCRedis's client against a real server (REDIS_URL)", .enabled(if: TestRedis.enabled))
struct RedisConnectionTests {
    @Test("commands, an error reply (redis_error), and a connection killed by the server (CLIENT KILL) reopened on the next command")
    func commandsAndReconnect() async throws {
        let name = "kill-\(UInt32.random(in: 0...UInt32.max))"
        let database = try TestRedis.open(connections: 1, name: name)
        let admin = try TestRedis.open(connections: 1)
        defer { database.close(); admin.close() }
        let key = TestRedis.uniqueNamespace("client")
        #expect(try await TestRedis.run(database, "SET", key, "v", "PX", "3600000") == .simple("OK"))
        #expect(try await TestRedis.run(database, "GET", key) == .bulk(Array("v".utf8)))
        await expectError(.redisError) { _ = try await TestRedis.run(database, "NOSUCHCOMMAND") }
        let before = try await TestRedis.run(database, "CLIENT", "ID").integer("id")
        #expect(try await TestRedis.killClients(named: name, using: admin) == 1)
        // The pooled connection was closed by the server: reopened before the command, which succeeds.
        #expect(try await TestRedis.run(database, "GET", key) == .bulk(Array("v".utf8)))
        #expect(try await TestRedis.run(database, "CLIENT", "ID").integer("id") != before)
    }

    @Test("an unreachable server is redis_unavailable; a wrong password is refused without echoing it")
    func unreachableAndAuth() async throws {
        let nowhere = try RedisDatabase(url: "redis://127.0.0.1:1/0", connectTimeout: 2)
        defer { nowhere.close() }
        await expectError(.redisUnavailable) { _ = try await TestRedis.run(nowhere, "PING") }
        let url = try #require(TestRedis.url)
        let wrong = try RedisDatabase(url: url.replacingOccurrences(of: "redis://", with: "redis://nobody:hunter2@"))
        defer { wrong.close() }
        do {
            _ = try await TestRedis.run(wrong, "PING")
            Issue.record("a wrong user and password were accepted")
        } catch let error as OIDCError {
            #expect(error.code == .redisUnavailable)
            #expect(!"\(error)".contains("hunter2"))
        }
    }

    @Test(
        "rediss:// with an ACL user: verified against the given CA, refused with the system's trust store or another name for the host; a wrong password is refused",
        .enabled(if: ProcessInfo.processInfo.environment["REDIS_TLS_URL"] != nil || ProcessInfo.processInfo.environment["CI"] == "true"))
    func tlsAndACL() async throws {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(environment["REDIS_TLS_URL"], "REDIS_TLS_URL is set by Tests/Redis/start.sh")
        let ca = try #require(environment["REDIS_TLS_CA"])
        let database = try RedisDatabase(url: url, caFile: ca)
        defer { database.close() }
        #expect(try await TestRedis.run(database, "ACL", "WHOAMI") == .bulk(Array("oidc".utf8)))
        let store = try RedisTokenStore(database: database, key: "tls-user", namespace: TestRedis.uniqueNamespace("tls"))
        try await store.save(RedisTokenStoreTests.start)
        #expect(try await store.load()?.refreshToken == "RT-start-secret")
        // Not trusted: the throwaway CA is not in the system's store.
        let untrusted = try RedisDatabase(url: url)
        defer { untrusted.close() }
        await expectError(.redisUnavailable) { _ = try await TestRedis.run(untrusted, "PING") }
        // Another name for the host: the certificate names 127.0.0.1 only.
        let otherName = try RedisDatabase(url: url.replacingOccurrences(of: "@127.0.0.1:", with: "@localhost:"), caFile: ca)
        defer { otherName.close() }
        await expectError(.redisUnavailable) { _ = try await TestRedis.run(otherName, "PING") }
        let wrong = try RedisDatabase(url: url.replacingOccurrences(of: "rediss://oidc:", with: "rediss://oidc:x"), caFile: ca)
        defer { wrong.close() }
        await expectError(.redisUnavailable) { _ = try await TestRedis.run(wrong, "PING") }
    }

    @Test("the database number of the URL is selected")
    func databaseNumber() async throws {
        let url = try #require(TestRedis.url)
        let base = url.hasSuffix("/0") ? String(url.dropLast(2)) : url
        let db5 = try RedisDatabase(url: base + "/5"), db0 = try RedisDatabase(url: base + "/0")
        defer { db5.close(); db0.close() }
        let key = TestRedis.uniqueNamespace("db")
        _ = try await TestRedis.run(db5, "SET", key, "five", "PX", "3600000")
        #expect(try await TestRedis.run(db0, "GET", key) == .null)
        #expect(try await TestRedis.run(db5, "GET", key) == .bulk(Array("five".utf8)))
    }
}
