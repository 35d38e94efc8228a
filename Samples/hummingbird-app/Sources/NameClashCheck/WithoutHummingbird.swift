// The same check without Hummingbird: Hummingbird re-exports HTTPRequest, HTTPResponse and
// HTTPFields with scoped imports (`@_exported import struct HTTPTypes.HTTPRequest`), and a scoped
// import wins over a whole-module one, so NameClashCheck.swift alone would not see a toolkit type
// named like them. A client of swift-http-types without Hummingbird (AsyncHTTPClient, OpenAPI
// transports) would: this file is that client.
import AsyncHTTPClient
import Foundation
import HTTPTypes
import JOSE
import Logging
import OIDC
import OIDCNetworking
import OIDCPostgres
import OIDCRedis
import OIDCResourceServer
import OIDCSession
import OIDCSharedSignals

/// swift-http-types', swift-log's and AsyncHTTPClient's names, unqualified, next to every toolkit module.
public func ecosystemWithoutHummingbird() -> (
    HTTPRequest?, HTTPResponse?, HTTPFields, HTTPField?, Logger, HTTPClientRequest?,
    HTTPClientResponse?
) {
    (nil, nil, HTTPFields(), nil, Logger(label: "check"), nil, nil)
}

/// Toolkit names in the same file.
public func toolkitNamesWithoutHummingbird() -> (
    TransportRequest?, TransportResponse?, HeaderFields, OIDCClient?,
    ResourceGuard?, AuthenticatedSession?, PostgresDatabase?, URLSessionTransport?, JWK?
) {
    (nil, nil, HeaderFields(), nil, nil, nil, nil, nil, nil)
}
