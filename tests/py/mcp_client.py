"""Drives the iplookup MCP endpoint with the official MCP Python SDK (`mcp`).

Usage: python tests/py/mcp_client.py BASE_URL [MODE ...]

BASE_URL is the service root (`http://127.0.0.1:PORT`) or the endpoint itself
(`.../mcp`). MODE is how the SDK connects (`mcp.Client(mode=...)`):

  legacy      the `initialize` handshake (protocol revision 2025-11-25)
  auto        the SDK default: probe `server/discover`, fall back to `initialize`
  2026-07-28  pin the stateless revision: no handshake, every request self-contained

Default: all three. For each mode the script connects, lists the tools
(checks that `lookup_ip`, `lookup_ips`, `my_ip` and `lookup_asn` exist with input
and output schemas), calls `lookup_ip {"ip": "8.8.8.8"}`, `lookup_asn {"asn": "AS13335"}`,
`my_ip {}`, `lookup_ips {"ips": ["8.8.8.8", "not-an-ip"]}` and `lookup_ip {"ip": "not-an-ip"}`
(which must come back as a tool result with `isError: true`, not as a
transport or JSON-RPC failure).

Prints one JSON object on stdout, `{"runs": [...]}`, one entry per mode with
the negotiated protocol version, the tools' schemas and the structured
results, for the Rust test to compare with the HTTP API. Exits non-zero with a
message on stderr when something the script itself checks fails.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from typing import Any

from mcp import Client

DEFAULT_MODES = ("legacy", "auto", "2026-07-28")


class CheckFailed(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def endpoint(base: str) -> str:
    base = base.rstrip("/")
    return base if base.endswith("/mcp") else base + "/mcp"


def text_of(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content or [])


async def run(url: str, mode: str) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": mode}
    async with Client(url, mode=mode, read_timeout_seconds=30) as client:
        out["protocol_version"] = client.protocol_version
        info = client.server_info
        out["server_info"] = info.model_dump(mode="json", by_alias=True, exclude_none=True) if info else None
        out["tools_capability"] = client.server_capabilities.tools is not None

        listing = await client.list_tools()
        tools = {tool.name: tool for tool in listing.tools}
        out["tools"] = {
            name: {
                "description": tool.description,
                "inputSchema": tool.input_schema,
                "outputSchema": tool.output_schema,
            }
            for name, tool in tools.items()
        }
        for name in ("lookup_ip", "lookup_ips", "my_ip", "lookup_asn"):
            check(name in tools, f"[{mode}] tool {name} is not listed (tools: {sorted(tools)})")
            tool = tools[name]
            check(
                isinstance(tool.input_schema, dict) and tool.input_schema.get("type") == "object",
                f"[{mode}] {name}: input schema is not an object schema: {tool.input_schema!r}",
            )
            check(
                isinstance(tool.output_schema, dict) and tool.output_schema.get("type") == "object",
                f"[{mode}] {name}: output schema is missing or not an object schema: {tool.output_schema!r}",
            )
        lookup_input = tools["lookup_ip"].input_schema
        check("ip" in (lookup_input.get("properties") or {}), f"[{mode}] lookup_ip input has no `ip` property")
        check("ip" in (lookup_input.get("required") or []), f"[{mode}] lookup_ip input does not require `ip`")

        lookup = await client.call_tool("lookup_ip", {"ip": "8.8.8.8"})
        check(not lookup.is_error, f"[{mode}] lookup_ip 8.8.8.8 failed: {text_of(lookup)}")
        check(lookup.structured_content is not None, f"[{mode}] lookup_ip 8.8.8.8: no structured content")
        out["lookup_ip"] = lookup.structured_content
        out["lookup_ip_text"] = text_of(lookup)

        asn = await client.call_tool("lookup_asn", {"asn": "AS13335"})
        check(not asn.is_error, f"[{mode}] lookup_asn AS13335 failed: {text_of(asn)}")
        check(asn.structured_content is not None, f"[{mode}] lookup_asn AS13335: no structured content")
        out["lookup_asn"] = asn.structured_content

        me = await client.call_tool("my_ip", {})
        check(not me.is_error, f"[{mode}] my_ip failed: {text_of(me)}")
        check(me.structured_content is not None, f"[{mode}] my_ip: no structured content")
        out["my_ip"] = me.structured_content

        many = await client.call_tool("lookup_ips", {"ips": ["8.8.8.8", "not-an-ip"]})
        check(not many.is_error, f"[{mode}] lookup_ips failed: {text_of(many)}")
        check(many.structured_content is not None, f"[{mode}] lookup_ips: no structured content")
        out["lookup_ips"] = many.structured_content

        # A bad address must be a tool error: a result with isError true. An
        # MCPError (JSON-RPC error) or a transport exception propagates and
        # fails the run.
        bad = await client.call_tool("lookup_ip", {"ip": "not-an-ip"})
        out["bad"] = {"isError": bool(bad.is_error), "text": text_of(bad)}
        check(bad.is_error is True, f"[{mode}] lookup_ip not-an-ip did not give isError: {bad!r}")
    return out


async def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    url = endpoint(argv[1])
    modes = argv[2:] or list(DEFAULT_MODES)
    runs = []
    failures = []
    for mode in modes:
        try:
            runs.append(await run(url, mode))
        except Exception as exc:  # report every mode, then fail
            failures.append(f"mode {mode}: {type(exc).__name__}: {exc}")
            traceback.print_exc(file=sys.stderr)
    print(json.dumps({"url": url, "runs": runs}, ensure_ascii=False))
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv)))
