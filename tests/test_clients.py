"""`kivgraph mcp install` / `uninstall` against each client's real configuration file on disk:
other servers and settings kept, a backup of the previous file, a second run changing nothing,
--dry-run writing nothing, uninstall taking out only our entry; and the entry written really
starts this kivgraph's server (the SDK client lists its tools over stdio)."""

import json
import tomllib
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from kivgraph.cli import cli

OTHER = {"command": "npx", "args": ["-y", "@example/other-server"], "env": {"TOKEN": "x"}}
CODEX_BEFORE = """# my codex settings
model = "gpt-5"

[mcp_servers.other]
command = "npx"
args = ["-y", "@example/other-server"]

[mcp_servers.other.env]
TOKEN = "x"

[profiles.fast]
model = "small"
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


def mcp(*args: str, fails: bool = False) -> str:
    result = CliRunner().invoke(cli, ["mcp", *args])
    assert (result.exit_code != 0) == fails, result.output
    assert "Traceback" not in result.output
    return result.output


JSON_CLIENTS = {
    "claude-code": (".claude.json", "mcpServers", {"type": "stdio"}),
    "claude-desktop": (".config/Claude/claude_desktop_config.json", "mcpServers", {}),
    "cursor": (".cursor/mcp.json", "mcpServers", {}),
    "vscode": (".config/Code/User/mcp.json", "servers", {"type": "stdio"}),
}


@pytest.mark.parametrize("name", sorted(JSON_CLIENTS))
def test_json_clients_keep_everything_else_and_a_second_run_changes_nothing(home: Path, tmp_path: Path, name: str):
    relative, key, typed = JSON_CLIENTS[name]
    config = home / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    before = {"theme": "dark", key: {"other": OTHER}, "projects": {"/x": {"allowedTools": []}}}
    config.write_text(json.dumps(before, indent=4), encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()

    preview = mcp("install", "--client", name, "--repo", str(repo), "--dry-run")
    assert "+" in preview and "was not written" in preview and json.loads(config.read_text()) == before

    said = mcp("install", "--client", name, "--repo", str(repo))
    after = json.loads(config.read_text())
    entry = after[key]["kivgraph"]
    assert after["theme"] == "dark" and after["projects"] == before["projects"] and after[key]["other"] == OTHER
    assert {k: entry[k] for k in typed} == typed and Path(entry["command"]).is_absolute()
    assert entry["args"][entry["args"].index("serve") :] == ["serve", "--repo", str(repo.resolve())]
    backup = config.with_name(config.name + ".kivgraph-backup")
    assert json.loads(backup.read_text()) == before and str(backup) in said

    written = config.read_bytes()
    backup.unlink()
    assert "nothing changed" in mcp("install", "--client", name, "--repo", str(repo))
    assert config.read_bytes() == written and not backup.exists()

    mcp("uninstall", "--client", name)
    assert json.loads(config.read_text()) == {**before, key: {"other": OTHER}}
    assert "nothing changed" in mcp("uninstall", "--client", name)


def test_codex_toml_keeps_comments_tables_and_other_servers(home: Path, tmp_path: Path):
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_BEFORE, encoding="utf-8")
    workspace = tmp_path / "kivgraph.toml"
    workspace.write_text("[[repositories]]\npath = '.'\n", encoding="utf-8")

    mcp("install", "--client", "codex", "--workspace", str(workspace))
    text = config.read_text()
    assert text.startswith(CODEX_BEFORE)
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["other"]["env"] == {"TOKEN": "x"} and parsed["profiles"]["fast"]["model"] == "small"
    assert parsed["mcp_servers"]["kivgraph"]["args"][-2:] == ["--workspace", str(workspace.resolve())]
    assert "nothing changed" in mcp("install", "--client", "codex", "--workspace", str(workspace))
    mcp("uninstall", "--client", "codex")
    assert config.read_text() == CODEX_BEFORE


def test_a_new_file_is_created_and_broken_ones_are_refused_untouched(home: Path):
    mcp("install", "--client", "cursor")
    created = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert created["mcpServers"]["kivgraph"]["args"][-1] == "serve"  # the folder the client starts it in
    assert not (home / ".cursor" / "mcp.json.kivgraph-backup").exists()

    broken = home / ".claude.json"
    broken.write_text('{"mcpServers": {', encoding="utf-8")
    assert "not valid JSON" in mcp("install", "--client", "claude-code", fails=True)
    assert broken.read_text() == '{"mcpServers": {'
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text("[mcp_servers\n", encoding="utf-8")
    assert "not valid TOML" in mcp("install", "--client", "codex", fails=True)
    assert "no such directory" in mcp("install", "--client", "vscode", "--repo", str(home / "nowhere"), fails=True)
    assert "Invalid value for '--client'" in mcp("install", "--client", "emacs", fails=True)


def test_the_installed_entry_starts_the_server(home: Path, make_repo):
    repo = make_repo({"shapes.py": "def area(w, h):\n    return w * h\n\n\ndef total():\n    return area(1, 2)\n"})
    result = CliRunner().invoke(cli, ["index", str(repo.path), "--no-analyzers"])
    assert result.exit_code == 0, result.output
    mcp("install", "--client", "claude-desktop", "--repo", str(repo.path))
    config = home / ".config" / "Claude" / "claude_desktop_config.json"
    entry = json.loads(config.read_text())["mcpServers"]["kivgraph"]

    async def go() -> tuple[int, str]:
        async with Client(StdioServerParameters(command=entry["command"], args=entry["args"])) as client:
            tools = (await client.list_tools()).tools
            found = await client.call_tool("find_symbol", {"name": "area"})
            return len(tools), found.content[0].text  # type: ignore[union-attr]

    count, text = anyio.run(go)
    assert count == 12 and json.loads(text)["total"] == 1
