"""An outside MCP client: the Python MCP SDK (PyPI `mcp`, in .venv-mcp made by mcp-setup.sh) calls the tool
`whoami` over Streamable HTTP and prints its text on stdout (exit 0), or the failure on stderr (exit 1).

    python mcp_client.py --url http://127.0.0.1:PORT/mcp [--token ACCESS_TOKEN] [--timeout 30]

Run by app_tests.py (part "mcp"); every wait has a deadline.
"""

import argparse
import asyncio
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def whoami(url, token):
    headers = {"Authorization": "Bearer " + token} if token else {}
    async with streamablehttp_client(url, headers=headers) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            names = [tool.name for tool in tools.tools]
            if "whoami" not in names:
                raise RuntimeError(f"tools/list has no whoami: {names}")
            result = await session.call_tool("whoami", {})
            if result.isError:
                raise RuntimeError(f"whoami answered an error: {result.content}")
            return "".join(part.text for part in result.content if getattr(part, "type", "") == "text")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--token")
    ap.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args()
    try:
        text = asyncio.run(asyncio.wait_for(whoami(a.url, a.token), a.timeout))
    except BaseException as error:  # an ExceptionGroup from the SDK's task group, a timeout, an HTTP error
        print(f"mcp_client: {type(error).__name__}: {error!r}"[:2000], file=sys.stderr)
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
