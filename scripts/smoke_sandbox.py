"""The throw-away world the interop and browser checks (mcp_smoke.py, acp_smoke.py,
web_smoke.py) run umbel in: a HOME where the fake claude is onboarded and trusts the project
folder, a state root, and TMUX_TMPDIR inside it (umbel's private socket lives there, never the
default one)."""

import json
from pathlib import Path


def sandbox(root: Path, fake_claude: Path, path: str) -> tuple[dict[str, str], Path]:
    """The environment umbel runs in (PATH `path`), and the project folder claude trusts."""
    home, project, tmux = root / "home", root / "project", root / "t"
    for d in (home, project, tmux):
        d.mkdir()
    config = {
        "hasCompletedOnboarding": True,
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }
    (home / ".claude.json").write_text(json.dumps(config))
    env = {
        "PATH": path,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "UMBEL_STATE": str(root / "state"),
        "TMUX_TMPDIR": str(tmux),
        "UMBEL_CLAUDE_BIN": str(fake_claude),
    }
    return env, project
