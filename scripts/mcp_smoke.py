"""Smoke test of `umbel mcp` with the official MCP Python SDK (a client umbel did not write).

Usage: python3 scripts/mcp_smoke.py target/debug/umbel   (or `just mcp-smoke`)

In a throw-away state root and HOME, for both protocol negotiations ("auto" probes the newest
protocol, "legacy" uses the initialize handshake): list the tools, then spawn a fake claude
worker, send, wait (with a progress callback), read, check a failed verb's error shape; then
subscribe to the worker's answer resource (`subscriptions/listen` in 2026-07-28,
`resources/subscribe` in legacy), send, receive `notifications/resources/updated`, read the new
answer with `resources/read`; kill. Then, as a supervising agent: a worker stops at a tool that
needs approval, `umbel_wait` shows the pending tool and its id, `umbel_approvals` lists it, and
`umbel_approve` (with `expect` and `wait`) answers it and returns the finished turn; a
subscription to `umbel://approvals` hears the worker start waiting.
Every tool declares an outputSchema, which the SDK checks each structured result against.
Needs the fakes built next to umbel (`cargo build -p sim --bins`) and `pip install mcp`.
"""

import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import smoke_sandbox

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

TOOLS = {f"umbel_{v}" for v in "spawn send wait read status ls kill explain help".split()}


def sandbox(root: Path, bins: Path) -> tuple[dict[str, str], Path]:
    """The environment umbel runs in, and the project folder claude already trusts."""
    return smoke_sandbox.sandbox(root, bins / "fake-claude", os.environ.get("PATH", "/usr/bin:/bin"))


def structured(result, tool: str, want_error: bool = False) -> dict:
    assert bool(result.is_error) == want_error, f"{tool}: {result}"
    assert isinstance(result.structured_content, dict), f"{tool}: {result}"
    return result.structured_content


def updated_uri(message) -> str | None:
    """The URI of a `notifications/resources/updated` message, else None."""
    message = getattr(message, "root", message)
    if getattr(message, "method", None) != "notifications/resources/updated":
        return None
    return message.params.uri


async def pushed_answer(c: Client, name: str, mode: str, heard: list[str]) -> None:
    """Subscribes to the worker's answer, sends a prompt, receives the update, reads it."""
    uri = f"umbel://workers/{name}/answer"
    listed = {r.uri for r in (await c.list_resources()).resources}
    assert {uri, f"umbel://workers/{name}", f"umbel://workers/{name}/screen"} <= listed, listed
    prompt = {"name": name, "prompt": "push it"}
    with anyio.fail_after(30):
        if mode == "legacy":
            with warnings.catch_warnings():  # deprecated in 2026-07-28; the legacy way here
                warnings.simplefilter("ignore")
                await c.subscribe_resource(uri)
            structured(await c.call_tool("umbel_send", prompt), "send")
            while uri not in heard:
                await anyio.sleep(0.02)
        else:
            async with c.listen(resource_subscriptions=[uri], resources_list_changed=True) as sub:
                assert sub.honored.resource_subscriptions == [uri], sub.honored
                structured(await c.call_tool("umbel_send", prompt), "send")
                async for event in sub:
                    if getattr(event, "uri", None) == uri:
                        break
    read = await c.read_resource(uri, cache_mode="refresh")
    answer = json.loads(read.contents[0].text)
    assert answer["text"] == "Response to: push it", answer
    print(f"{mode}: resource update received, new answer read")


async def approved(c: Client, project: Path, mode: str, heard: list[str]) -> None:
    """A worker waits on a tool's approval; the agent sees it, approves, gets the finished turn."""
    name = f"ask-{mode}"
    tool = {"tool": "Bash", "input": {"command": "rm -rf build", "description": "Clean"}}
    scenario = {"turns": [{"match": "clean", "reply": "Cleaned.", "end": {"permission": tool}}]}
    spawn = {"name": name, "cwd": str(project), "env": [f"UMBEL_SIM_SCENARIO={json.dumps(scenario)}"]}
    structured(await c.call_tool("umbel_spawn", spawn), "spawn")
    # The fleet's inbox: subscribed, it says when a worker starts waiting.
    inbox = "umbel://approvals"
    assert inbox in {r.uri for r in (await c.list_resources()).resources}
    prompt = {"name": name, "prompt": "clean up"}
    with anyio.fail_after(30):
        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await c.subscribe_resource(inbox)
            sent = structured(await c.call_tool("umbel_send", prompt), "send")
            while inbox not in heard:
                await anyio.sleep(0.02)
        else:
            async with c.listen(resource_subscriptions=[inbox]) as sub:
                assert sub.honored.resource_subscriptions == [inbox], sub.honored
                sent = structured(await c.call_tool("umbel_send", prompt), "send")
                async for event in sub:
                    if getattr(event, "uri", None) == inbox:
                        break
    read = await c.read_resource(inbox, cache_mode="refresh")
    listed = json.loads(read.contents[0].text)
    assert any(a["name"] == name for a in listed), listed
    waited = structured(
        await c.call_tool("umbel_wait", {"name": name, "since": sent["position"], "timeout": "60s"}),
        "wait",
        want_error=True,  # not a finished turn: a person (or this agent) is needed
    )
    assert waited["outcome"] == "input" and waited["reason"] == "permission", waited
    assert waited["pendingTool"]["input"]["command"] == "rm -rf build", waited
    pending = structured(await c.call_tool("umbel_approvals", {}), "approvals")
    listed = [a for a in pending["approvals"] if a["name"] == name]
    assert [a["id"] for a in listed] == [waited["approvalId"]], pending
    answer = {"name": name, "expect": waited["approvalId"], "wait": True, "timeout": "60s"}
    done = structured(await c.call_tool("umbel_approve", answer), "approve")
    assert done["answer"] == "approve" and done["tool"] == "Bash", done
    assert done["outcome"]["outcome"] == "stop", done
    read = structured(await c.call_tool("umbel_read", {"name": name}), "read")
    assert read["text"] == "Cleaned.", read
    structured(await c.call_tool("umbel_kill", {"name": name, "purge": True}), "kill")
    print(f"{mode}: pending tool seen, approved, finished turn returned")


async def session(umbel: str, env: dict[str, str], project: Path, mode: str) -> None:
    params = StdioServerParameters(command=umbel, args=["mcp"], env=env, cwd=str(project))
    heard: list[str] = []

    async def on_message(message) -> None:
        if (uri := updated_uri(message)) is not None:
            heard.append(uri)

    async with Client(params, mode=mode, message_handler=on_message) as c:
        info = c.server_info
        print(f"{mode}: protocol {c.protocol_version}, server {info.name} {info.version}")
        tools = (await c.list_tools()).tools
        names = {t.name for t in tools}
        # Every tool declares its output: the SDK then validates each structured result
        # against that outputSchema (a mismatch raises), so every call below checks it.
        for t in tools:
            assert t.output_schema and t.output_schema.get("type") == "object", t
            assert t.annotations and t.annotations.title, t
        # The core verbs must be there; later verbs may join them.
        assert TOOLS <= names and all(n.startswith("umbel_") for n in names), names

        name = f"py-{mode}"
        slow = 'UMBEL_SIM_SCENARIO={"turns":[{"match":"slow","reply":"done","delay_ms":2500}]}'
        spawn = {"name": name, "cwd": str(project), "env": [slow]}
        meta = structured(await c.call_tool("umbel_spawn", spawn), "spawn")
        assert meta["name"] == name and meta["provider"] == "claude", meta
        sent = structured(await c.call_tool("umbel_send", {"name": name, "prompt": "hi from python"}), "send")
        ticks: list[float] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            ticks.append(value)

        waited = await c.call_tool(
            "umbel_wait",
            {"name": name, "since": sent["position"], "timeout": "60s"},
            progress_callback=progress,
        )
        assert structured(waited, "wait")["outcome"] == "stop", waited
        answer = structured(await c.call_tool("umbel_read", {"name": name}), "read")
        assert answer["text"] == "Response to: hi from python", answer
        turns = structured(await c.call_tool("umbel_read", {"name": name, "all": True}), "read all")
        assert [t["prompt"] for t in turns["turns"]] == ["hi from python"], turns
        actions = structured(await c.call_tool("umbel_actions", {"name": name}), "actions")
        assert actions["turn"] == 1 and actions["actions"] == [], actions
        alone = structured(await c.call_tool("umbel_diff", {"name": name}), "diff", want_error=True)
        assert alone["error"]["code"] == "usage", alone
        missing = structured(await c.call_tool("umbel_read", {"name": "ghost"}), "read", want_error=True)
        assert missing["error"]["code"] == "not_found", missing
        line = (await c.call_tool("umbel_read", {"name": "ghost"})).content[0].text
        assert line.startswith("error not_found (exit 1): ") and " Hint: " in line, line
        # A turn that takes 2.5 s: the wait reports progress about once a second.
        sent = structured(await c.call_tool("umbel_send", {"name": name, "prompt": "slow"}), "send")
        slow_ticks: list[float] = []

        async def slow_progress(value: float, total: float | None, message: str | None) -> None:
            slow_ticks.append(value)

        waited = await c.call_tool(
            "umbel_wait",
            {"name": name, "since": sent["position"], "timeout": "60s"},
            progress_callback=slow_progress,
        )
        assert structured(waited, "slow wait")["outcome"] == "stop", waited
        assert slow_ticks, "no progress notification during a 2.5 s wait"
        ticks += slow_ticks
        await pushed_answer(c, name, mode, heard)
        await approved(c, project, mode, heard)
        killed = structured(await c.call_tool("umbel_kill", {"name": name, "purge": True}), "kill")
        assert killed["killed"] == [name], killed
        print(f"{mode}: spawn/send/wait/read/actions/diff/kill ok ({len(ticks)} progress notifications)")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    umbel = str(Path(sys.argv[1]).resolve())
    bins = Path(umbel).parent
    if not (bins / "fake-claude").exists():
        print(f"{bins / 'fake-claude'} is missing: cargo build -p sim --bins", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="u", dir="/tmp") as tmp:
        env, project = sandbox(Path(tmp), bins)
        try:
            for mode in ("auto", "legacy"):
                anyio.run(session, umbel, env, project, mode)
        finally:
            subprocess.run([umbel, "kill", "--all", "--purge"], env=env, capture_output=True)
    print("mcp smoke: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
