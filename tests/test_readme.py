"""README.md is the users' guide: short, its two commands first (CI runs the second as written),
every option of every command named, the measured figures in docs/benchmarks.md."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from kkvision.cli import _parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 350  # a guide a user reads, not a lab notebook (issue 42)


def commands() -> list[str]:
    """The shell commands of README's first section, in order."""
    first = README.split("\n## ")[1]
    assert first.startswith("Two commands")
    blocks = re.findall(r"```sh\n(.*?)```", first, re.S)
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


def test_the_readme_is_short_and_starts_with_its_two_commands():
    assert len(README.splitlines()) <= MAX_LINES
    assert commands() == ["./scripts/setup.sh && .venv/bin/kkvision solve samples/photo-6x6.jpg",
                          "./scripts/setup.sh && .venv/bin/python -m pytest -q"]


def test_ci_runs_the_readmes_test_command_as_written():
    assert commands()[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_every_option_of_every_command_is_in_the_readme():
    parser = _parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in [("kkvision", parser), *sub.choices.items()]:
        for action in command._actions:
            named = [o for o in action.option_strings if re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", README)]
            assert not action.option_strings or named, f"{name} {'/'.join(action.option_strings)}: not in README.md"


def test_the_readme_links_the_benchmarks_page_and_carries_no_benchmark_tables():
    assert "(docs/benchmarks.md)" in README and (ROOT / "docs" / "benchmarks.md").is_file()
    assert "| family | split |" not in README and "| folder | images |" not in README
