"""`python -m demo_agent --url URL --code CODE`, with the token in ROMERGO_AGENT_TOKEN.

How the server starts "Try the demo agent"; `romergo demo-agent` is the same with a token minted
through the data dir. Only the MCP SDK and this package are used: an outside agent.
"""

from __future__ import annotations

import argparse
import os
import sys

from demo_agent.runner import exit_code, run_until_signalled


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m demo_agent", description="Romergo's scripted demo agent")
    parser.add_argument("--url", required=True, help="the server's base URL or its /mcp endpoint")
    parser.add_argument("--code", required=True, help="the join code from the agent panel")
    args = parser.parse_args()
    token = os.environ.get("ROMERGO_AGENT_TOKEN")
    if not token:
        print(
            "demo_agent: set ROMERGO_AGENT_TOKEN to a personal access token "
            "(an agent never reads ROMERGO_TOKEN, the owner's variable for `romergo channel`).",
            file=sys.stderr,
        )
        return 2
    return exit_code(run_until_signalled(args.url, args.code, token))


if __name__ == "__main__":
    sys.exit(main())
