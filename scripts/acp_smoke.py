"""Interop check of `umbel acp` with the official ACP Python SDK (a client umbel did not write).

Usage: python3 scripts/acp_smoke.py target/debug/umbel   (or `just acp-smoke`)

In a throw-away state root and HOME, with the fake claude: initialize, open a session in the
project, prompt and hear the answer as `agent_message_chunk`s with `stopReason: end_turn`; a
prompt whose tool needs approval, allowed once through `session/request_permission`; a prompt to
a session that does not exist refused with -32002; then the editor goes away and the worker is
parked, and a second `umbel acp` loads the session, replays it, and answers a next prompt.
Needs the fakes built next to umbel (`cargo build -p sim --bins`) and
`pip install agent-client-protocol`.
"""

import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import smoke_sandbox

import acp
from acp import schema

SCENARIO = {
    "turns": [
        {"match": "hello", "reply": "Hello over ACP."},
        {
            "match": "tool",
            "reply": "It printed hi.",
            "end": {"permission": {"tool": "Bash", "input": {"command": "echo hi > t.txt", "description": "Write hi"}}},
        },
        {"match": "again", "reply": "Loaded and answering."},
    ]
}


class Editor:
    """The client side: collects what the agent says, allows once what it asks."""

    def __init__(self) -> None:
        self.chunks: list[tuple[str, str]] = []
        self.asked: list[list[str]] = []

    async def session_update(self, session_id, update, **kwargs):
        kind = getattr(update, "session_update", "")
        content = getattr(update, "content", None)
        text = getattr(content, "text", "") if content is not None else ""
        self.chunks.append((kind, text))

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.asked.append([o.kind for o in options])
        once = next(o for o in options if o.kind == "allow_once")
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(option_id=once.option_id, outcome="selected")
        )

    def said(self, kind: str) -> str:
        text = "".join(t for k, t in self.chunks if k == kind)
        self.chunks.clear()
        return text


def sandbox(root: Path, umbel: Path) -> tuple[dict[str, str], Path]:
    env, project = smoke_sandbox.sandbox(root, umbel.parent / "fake-claude", "/usr/bin:/bin")
    (root / "s.json").write_text(json.dumps(SCENARIO))
    return env, project


async def first_editor(umbel: Path, env: dict, project: Path, scenario: str) -> str:
    editor = Editor()
    async with acp.spawn_agent_process(editor, str(umbel), "acp", "--env", scenario, env=env, cwd=project) as (conn, _):
        init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        assert init.agent_capabilities.load_session, init
        session = (await conn.new_session(cwd=str(project))).session_id
        done = await conn.prompt(session_id=session, prompt=[acp.text_block("hello")])
        assert done.stop_reason == "end_turn", done
        assert editor.said("agent_message_chunk") == "Hello over ACP.", editor.chunks
        done = await conn.prompt(session_id=session, prompt=[acp.text_block("run the tool")])
        assert done.stop_reason == "end_turn", done
        assert editor.asked and "allow_once" in editor.asked[0], editor.asked
        assert editor.said("agent_message_chunk").endswith("It printed hi.")
        try:
            await conn.prompt(session_id="acp-nobody", prompt=[acp.text_block("hi")])
            raise AssertionError("a prompt to no session was taken")
        except acp.RequestError as e:
            assert e.code == -32002, e
    return session


async def second_editor(umbel: Path, env: dict, project: Path, scenario: str, session: str) -> None:
    editor = Editor()
    async with acp.spawn_agent_process(editor, str(umbel), "acp", "--env", scenario, env=env, cwd=project) as (conn, _):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        await conn.load_session(cwd=str(project), session_id=session)
        assert "hello" in editor.said("user_message_chunk"), editor.chunks
        done = await conn.prompt(session_id=session, prompt=[acp.text_block("again")])
        assert done.stop_reason == "end_turn", done
        assert editor.said("agent_message_chunk").endswith("Loaded and answering."), editor.chunks


def state(umbel: Path, env: dict, name: str) -> str:
    out = subprocess.run([str(umbel), "status", name, "--json"], env=env, capture_output=True, text=True)
    return json.loads(out.stdout or "{}").get("state", "")


def main() -> None:
    umbel = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env, project = sandbox(root, umbel)
        scenario = f"UMBEL_SIM_SCENARIO={root / 's.json'}"
        try:
            session = asyncio.run(first_editor(umbel, env, project, scenario))
            assert state(umbel, env, session) == "parked", "the editor left: its worker is parked"
            asyncio.run(second_editor(umbel, env, project, scenario, session))
        finally:
            subprocess.run([str(umbel), "kill", "--all", "--purge"], env=env, capture_output=True)
    print("acp smoke: ok")


if __name__ == "__main__":
    main()
