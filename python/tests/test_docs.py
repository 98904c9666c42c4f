"""docs/cli.md documents every command and every option."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ndncc import cli

CLI_MD = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()


def commands(group, prefix=""):
    for name, command in sorted(group.commands.items()):
        path = f"{prefix}{name}"
        if hasattr(command, "commands"):
            yield from commands(command, path + " ")
        else:
            yield path, command


def section(path: str) -> str:
    match = re.search(rf"^## `ndncc {re.escape(path)}`$(.*?)(?=^## |\Z)", CLI_MD, re.S | re.M)
    assert match, f"docs/cli.md has no section '## `ndncc {path}`'"
    return match.group(1)


ALL = list(commands(cli.app))


def test_the_cli_has_the_commands_the_issue_asks_for():
    expected = {"run", "validate", "plot", "bench", "topo convert", "reproduce", "sweep", "scenarios list"}
    expected |= {"scenarios copy", "emulate"}
    assert {path for path, _ in ALL} == expected


@pytest.mark.parametrize("path, command", ALL, ids=[p for p, _ in ALL])
def test_every_command_and_option_is_documented(path, command):
    text = section(path)
    for param in command.params:
        for opt in param.opts:
            if opt.startswith("--") and opt != "--help":
                assert f"`{opt}" in text, f"ndncc {path}: {opt} is not in docs/cli.md"


@pytest.mark.parametrize("page", ["README.md", "docs/first-experiment.md"])
def test_the_scenario_shown_in_the_docs_is_the_example_file(page):
    root = Path(__file__).resolve().parents[2]
    # The page may name the file in a first comment line, for the reader and its own test.
    shown = re.search(r"```toml\n(?:# two-node\.toml\n)?(.*?)```", (root / page).read_text(), re.S).group(1)
    assert shown == (root / "docs" / "examples" / "two-node.toml").read_text()
