"""MCP client setup: where each client keeps its servers and how it spells one, and our entry
merged into that file — other servers and settings kept, a backup beside it, nothing written when
nothing changes — or taken out of it again (`kivgraph mcp install` / `uninstall`)."""

import difflib
import json
import os
import re
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from kivgraph.errors import InvalidArgumentError

ENTRY = "kivgraph"
BACKUP_SUFFIX = ".kivgraph-backup"


def _config_home() -> Path:
    """The per-user settings folder of desktop applications on this platform."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


@dataclass(frozen=True, slots=True)
class Client:
    name: str
    title: str
    location: Callable[[], Path]
    key: str
    """The table of servers in the file: `mcpServers`, VS Code's `servers`, Codex's `mcp_servers`."""
    typed: bool
    """Whether an entry states `"type": "stdio"`."""

    @property
    def toml(self) -> bool:
        return self.location().suffix == ".toml"

    def entry(self, command: str, args: list[str]) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "stdio"} if self.typed else {}
        return {**entry, "command": command, "args": args}


CLIENTS = {
    c.name: c
    for c in (
        Client("claude-code", "Claude Code", lambda: Path.home() / ".claude.json", "mcpServers", True),
        Client(
            "claude-desktop",
            "Claude Desktop",
            lambda: _config_home() / "Claude" / "claude_desktop_config.json",
            "mcpServers",
            False,
        ),  # fmt: skip
        Client("cursor", "Cursor", lambda: Path.home() / ".cursor" / "mcp.json", "mcpServers", False),
        Client("vscode", "VS Code", lambda: _config_home() / "Code" / "User" / "mcp.json", "servers", True),
        Client(
            "codex",
            "Codex",
            lambda: Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "config.toml",
            "mcp_servers",
            False,
        ),  # fmt: skip
    )
}


@dataclass(frozen=True, slots=True)
class Change:
    client: Client
    path: Path
    before: str
    after: str
    """The file's text after the change (equal to `before` when there is nothing to do)."""

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            str(self.path), f"{self.path} (after)"))  # fmt: skip

    def write(self) -> Path | None:
        """Write the change, atomically, keeping the old file as a backup (returned; None when new)."""
        if not self.changed:
            return None
        backup = None
        if self.path.exists():
            backup = self.path.with_name(self.path.name + BACKUP_SUFFIX)
            shutil.copy2(self.path, backup)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(self.after)
            if self.path.exists():
                shutil.copymode(self.path, temporary)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return backup


def client(name: str) -> Client:
    found = CLIENTS.get(name)
    if found is None:
        raise InvalidArgumentError(f"unknown client {name!r}; one of: {', '.join(CLIENTS)}")
    return found


def server_command(repos: list[str], workspace: str | None) -> tuple[str, list[str]]:
    """The command that starts this kivgraph's MCP server, by absolute paths: its script beside this
    interpreter, else the interpreter running the module."""
    args = ["serve"]
    for repo in repos:
        path = Path(repo).expanduser().resolve()
        if not path.is_dir():
            raise InvalidArgumentError(f"--repo {repo}: no such directory")
        args += ["--repo", str(path)]
    if workspace is not None:
        path = Path(workspace).expanduser().resolve()
        if not path.is_file():
            raise InvalidArgumentError(f"--workspace {workspace}: no such file")
        args += ["--workspace", str(path)]
    script = Path(sys.executable).with_name("kivgraph.exe" if sys.platform == "win32" else "kivgraph")
    if script.is_file():
        return str(script), args
    return str(Path(sys.executable).resolve()), ["-m", "kivgraph", *args]


def install(target: Client, command: str, args: list[str], path: Path | None = None, name: str = ENTRY) -> Change:
    """The change that makes `name` in the client's file start `command args`."""
    where = path or target.location()
    before = _read(where)
    entry = target.entry(command, args)
    if target.toml:
        return Change(target, where, before, _toml_with(before, where, target.key, name, entry))
    document = _json(before, where)
    servers = _servers(document, target.key, where)
    if servers.get(name) == entry:
        return Change(target, where, before, before)
    servers[name] = entry
    document[target.key] = servers
    return Change(target, where, before, json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def uninstall(target: Client, path: Path | None = None, name: str = ENTRY) -> Change:
    """The change that takes `name` (and nothing else) out of the client's file."""
    where = path or target.location()
    before = _read(where)
    if target.toml:
        return Change(target, where, before, _toml_with(before, where, target.key, name, None))
    if not before:
        return Change(target, where, before, before)
    document = _json(before, where)
    servers = _servers(document, target.key, where)
    if name not in servers:
        return Change(target, where, before, before)
    del servers[name]
    document[target.key] = servers
    return Change(target, where, before, json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidArgumentError(f"cannot read {path}: {err}") from err


def _json(text: str, path: Path) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except ValueError as err:
        raise InvalidArgumentError(f"{path} is not valid JSON ({err}); fix or move it, nothing was changed") from err
    if not isinstance(document, dict):
        raise InvalidArgumentError(f"{path} holds a JSON {type(document).__name__}, not an object; nothing was changed")
    return cast(dict[str, Any], document)


def _servers(document: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    servers = document.get(key, {})
    if not isinstance(servers, dict):
        raise InvalidArgumentError(f'"{key}" in {path} is not an object; nothing was changed')
    return cast(dict[str, Any], servers)


def _toml_table(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InvalidArgumentError(f"{path} is not valid TOML ({err}); fix or move it, nothing was changed") from err


def _toml_with(text: str, path: Path, key: str, name: str, entry: dict[str, Any] | None) -> str:
    """The TOML text with our `[key.name]` table replaced by `entry` (or removed when None); every
    other line — comments and other servers too — left as it was."""
    current = _toml_entry(text, path, key, name)
    if current == entry or (current is None and entry is None):
        return text
    ours = re.compile(rf"^\s*\[\s*{re.escape(key)}\s*\.\s*(?:{re.escape(name)}|\"{re.escape(name)}\")\s*(?:\.|\])")
    header = re.compile(r"^\s*\[")
    kept: list[str] = []
    inside = removed = False
    for line in text.splitlines(keepends=True):
        if header.match(line):
            inside = bool(ours.match(line))
        removed |= inside
        if not inside:
            kept.append(line)
    result = "".join(kept)
    if removed:  # the blank line that set our table apart goes with it
        result = result.rstrip("\n") + "\n" if result.strip() else ""
    if _toml_entry(result, path, key, name) is not None:
        raise InvalidArgumentError(f"{path} defines {key}.{name} other than as a [{key}.{name}] table; "
                                   "edit that entry by hand, nothing was changed")  # fmt: skip
    if entry is not None:
        if result and not result.endswith("\n"):
            result += "\n"
        if result.strip():
            result += "\n"
        result += f"[{key}.{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in entry.items())
    if _toml_entry(result, path, key, name) != entry:
        raise InvalidArgumentError(f"cannot place the {name} entry in {path} safely; nothing was changed")
    return result


def _toml_entry(text: str, path: Path, key: str, name: str) -> object:
    """The value of `key.name` in the TOML text, None when absent."""
    servers: object = _toml_table(text, path).get(key)
    return cast(dict[str, object], servers).get(name) if isinstance(servers, dict) else None
