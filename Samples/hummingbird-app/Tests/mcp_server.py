"""An MCP server written with the Python MCP SDK (PyPI `mcp`, .venv-mcp): FastMCP over Streamable HTTP with one
tool, `whoami`, protected by its own token verifier (PyJWT, which the SDK depends on): a JWT access token from
the issuer, signed by a key of its jwks_uri, whose `aud` is this server's resource URL. The SDK serves the RFC 9728
metadata and the 401 challenge; sample-mcp-call is run against it by app_tests.py (part "mcp").

    python mcp_server.py --port PORT --issuer ISSUER --jwks-uri URL [--require-scope S]

Prints "listening" on stdout once the socket is bound; serves until killed.
"""

import argparse
import json
import socket
import sys
import threading
import time

import jwt
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP


class JWTVerifier(TokenVerifier):
    """RFC 9068-style checks: signature by the issuer's key, iss, aud = this resource, exp."""

    def __init__(self, issuer, jwks_uri, resource):
        self.issuer, self.resource = issuer, resource
        self.keys = jwt.PyJWKClient(jwks_uri)

    async def verify_token(self, token):
        try:
            key = self.keys.get_signing_key_from_jwt(token)
            claims = jwt.decode(token, key.key, algorithms=["RS256", "ES256", "EdDSA", "PS256"],
                                audience=self.resource, issuer=self.issuer)
        except Exception as error:  # any refusal: the SDK answers 401 invalid_token
            print(f"mcp_server: token refused: {type(error).__name__}", file=sys.stderr, flush=True)
            return None
        scopes = claims.get("scope", "")
        return AccessToken(token=token, client_id=str(claims.get("client_id", "")),
                           scopes=scopes.split() if isinstance(scopes, str) else list(scopes),
                           expires_at=claims.get("exp"), resource=self.resource)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--issuer", required=True)
    ap.add_argument("--jwks-uri", required=True)
    ap.add_argument("--require-scope", action="append", default=[])
    a = ap.parse_args()
    resource = f"http://127.0.0.1:{a.port}/mcp"
    server = FastMCP("python-whoami", host="127.0.0.1", port=a.port, stateless_http=True,
                     token_verifier=JWTVerifier(a.issuer, a.jwks_uri, resource),
                     auth=AuthSettings(issuer_url=a.issuer, resource_server_url=resource,
                                       required_scopes=a.require_scope or None))

    @server.tool()
    def whoami() -> str:
        """The caller's access token: its client_id and scopes."""
        token = get_access_token()
        claims = jwt.decode(token.token, options={"verify_signature": False}) if token else {}  # verified above
        return json.dumps({"sub": claims.get("sub"), "client_id": token.client_id if token else None,
                           "scope": sorted(token.scopes) if token else []}, sort_keys=True)

    def announce():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", a.port), timeout=0.5):
                    print("listening", flush=True)
                    return
            except OSError:
                time.sleep(0.05)  # a poll interval; the deadline decides

    threading.Thread(target=announce, daemon=True).start()
    server.run(transport="streamable-http")


if __name__ == "__main__":
    main()
