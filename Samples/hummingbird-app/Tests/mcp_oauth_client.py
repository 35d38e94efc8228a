"""The Python MCP SDK's own OAuth flow against the app's /mcp: OAuthClientProvider reads the 401's
resource_metadata (RFC 9728), discovers the authorization server (RFC 8414, then OpenID), registers a client
dynamically (RFC 7591, the server's registration_endpoint, no initial access token), runs the authorization code
flow with PKCE and `resource` (RFC 8707), the user's login scripted by Tests/Glewlwyd/login.py, then calls whoami.

    python mcp_oauth_client.py --url URL/mcp --redirect-uri URI --login-script PATH [--client-id ID --client-secret S]

stdout (exit 0), three lines: `authorize code_challenge_method=M resource=R` (what the SDK asked for),
`client registered=yes|no client_id=ID token_sub=SUB` (whether the SDK registered, the client it used, the `sub` of
the access token it got), then whoami's text. A failure goes to stderr (exit 1).
With --client-id the client is registered beforehand: its information is in the SDK's token storage from the start,
so the SDK skips registration and uses it (client_secret_post). Without, the storage starts empty and the SDK
registers (glewlwyd's "mcp" plugin admits registration without an initial access token; its "oidc" plugin does not).
"""

import argparse
import asyncio
import base64
import json
import subprocess
import sys
import urllib.parse

from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata


class Storage(TokenStorage):
    def __init__(self, client):
        self.tokens, self.client, self.registered = None, client, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info
        self.registered = client_info  # only the SDK's registration stores client information


async def run(a):
    redirect = {}
    metadata = OAuthClientMetadata(redirect_uris=[a.redirect_uri], token_endpoint_auth_method="client_secret_post",
                                   grant_types=["authorization_code"], response_types=["code"], client_name="mcp-oauth-client")
    client = None
    if a.client_id:
        client = OAuthClientInformationFull(client_id=a.client_id, client_secret=a.client_secret, redirect_uris=[a.redirect_uri],
                                            token_endpoint_auth_method="client_secret_post", grant_types=["authorization_code"])
    storage = Storage(client)

    async def redirect_handler(url):
        # The scripted user: logs in and consents, stops at the redirect to redirect_uri (never fetched).
        result = await asyncio.to_thread(subprocess.run, [sys.executable, a.login_script, "--authorize-url", url],
                                         capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"login.py failed ({result.returncode}): {result.stderr[-500:]}")
        redirect["url"] = result.stdout.strip()
        redirect["authorize"] = url

    async def callback_handler():
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(redirect["url"]).query))
        return query["code"], query.get("state")

    auth = OAuthClientProvider(server_url=a.url, client_metadata=metadata, storage=storage,
                               redirect_handler=redirect_handler, callback_handler=callback_handler)
    async with streamablehttp_client(a.url, auth=auth) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("whoami", {})
            if result.isError:
                raise RuntimeError(f"whoami answered an error: {result.content}")
            text = "".join(part.text for part in result.content if getattr(part, "type", "") == "text")
    authorize = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(redirect.get("authorize", "")).query))
    access_token = storage.tokens.access_token if storage.tokens else ""
    try:  # glewlwyd's access tokens are RFC 9068 JWTs: the sub whoami must answer
        payload = access_token.split(".")[1]
        token_sub = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).get("sub", "")
    except (IndexError, ValueError):
        token_sub = ""
    used = storage.client.client_id if storage.client else ""
    client_line = f"client registered={'yes' if storage.registered else 'no'} client_id={used} token_sub={token_sub}"
    return text, authorize, client_line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--client-id", help="a client registered beforehand (default: the SDK registers one)")
    ap.add_argument("--client-secret")
    ap.add_argument("--redirect-uri", required=True)
    ap.add_argument("--login-script", required=True)
    ap.add_argument("--timeout", type=float, default=90)
    a = ap.parse_args()
    try:
        text, authorize, client_line = asyncio.run(asyncio.wait_for(run(a), a.timeout))
    except BaseException as error:
        print(f"mcp_oauth_client: {type(error).__name__}: {error!r}"[:3000], file=sys.stderr)
        return 1
    # What the SDK asked for, then the tool's answer: the test checks PKCE and resource were in the request.
    print("authorize " + " ".join(f"{k}={authorize.get(k, '')}" for k in ("code_challenge_method", "resource")))
    print(client_line)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
