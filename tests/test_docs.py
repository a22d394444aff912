"""Docs are part of the product: every CLI command and option is documented."""

from pathlib import Path

import click

from kivgraph.cli import cli

DOCS = Path(__file__).parent.parent / "docs"


def test_every_cli_command_and_option_is_in_the_cli_reference():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name, command in cli.commands.items():
        assert f"`kivgraph {name}" in text, f"docs/cli.md does not document `kivgraph {name}`"
        for param in command.params:
            if isinstance(param, click.Option):
                assert any(f"`{flag}" in text for flag in param.opts), f"{name} {param.opts[0]} is undocumented"
