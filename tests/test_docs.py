"""Docs are part of the product: every CLI command and option is documented."""

from pathlib import Path

import click

from kivgraph.cli import cli

DOCS = Path(__file__).parent.parent / "docs"


def commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in group.commands.items():
        found.append((prefix + name, command))
        if isinstance(command, click.Group):
            found += commands(command, f"{prefix}{name} ")
    return found


def test_every_cli_command_and_option_is_in_the_cli_reference():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name, command in commands(cli):
        assert f"`kivgraph {name}" in text, f"docs/cli.md does not document `kivgraph {name}`"
        for param in command.params:
            if isinstance(param, click.Option):
                assert any(f"`{flag}" in text for flag in param.opts), f"{name} {param.opts[0]} is undocumented"


def test_every_mcp_tool_and_argument_is_in_the_tool_reference():
    from kivgraph.graph.tools import TOOLS
    from kivgraph.server import INDEX_PROJECT_PARAMS

    text = (DOCS / "mcp-tools.md").read_text(encoding="utf-8")
    for name, params in [(t.name, t.params) for t in TOOLS] + [("index_project", INDEX_PROJECT_PARAMS)]:
        section = text.partition(f"### `{name}`")[2].partition("\n### ")[0]
        assert section, f"docs/mcp-tools.md has no section for {name}; run scripts/capture-mcp-examples.py"
        assert f"`{name}` {{" in section, f"docs/mcp-tools.md shows no captured answer of {name}"
        for param in params:
            assert f"| `{param.name}` |" in section, f"{name}'s argument {param.name} is undocumented"
