"""docs/benchmarks.md is what bench/docs.py makes of the benchmarks' kept reports (bench/results/),
so it cannot drift from them; bench/_results.py keeps what a bench script printed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from bench import _results, docs

ROOT = Path(__file__).resolve().parents[1]


def test_the_benchmarks_page_is_what_bench_docs_makes_of_the_results():
    assert (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8") == docs.render(), \
        "docs/benchmarks.md is out of date: run .venv/bin/python bench/docs.py"


def test_every_bench_script_keeps_its_report_and_has_an_introduction():
    """A bench script with a main keeps its report under its own name, and the page introduces it."""
    named = {b.name for b in docs.BENCHMARKS}
    for script in sorted((ROOT / "bench").glob("*.py")):
        text = script.read_text(encoding="utf-8")
        if "\ndef main(" not in text or script.stem == "docs":
            continue
        assert re.search(rf'\n@saved\("{script.stem}"[,)].*\ndef main\(', text), f"{script.name}: no @saved on main"
        assert script.stem in named, f"{script.name}: no introduction in bench/docs.py BENCHMARKS"
    assert {p.stem for p in (ROOT / "bench" / "results").glob("*.md")} <= named


def test_the_results_file_holds_the_report_its_command_commit_and_date(tmp_path):
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    path = _results.write("real", table, ".venv/bin/python bench/real.py x", "abc1234", "2026-01-02", folder=tmp_path)
    assert path == tmp_path / "real.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("<!-- bench/results/real.md:")
    assert lines[1] == "Report of `.venv/bin/python bench/real.py x`, run at commit `abc1234`, 2026-01-02."
    assert "\n".join(lines[3:]) + "\n" == table  # the table as given: Markdown already
    text = "size  mean s\n   9   0.007\n"
    path = _results.write("solver_speed", text, "c", "abc1234", "2026-01-02", note="Seeded by hand.", folder=tmp_path)
    body = path.read_text(encoding="utf-8").split("\n", 3)[3]
    assert body == "Seeded by hand.\n\n```text\n" + text + "```\n"  # no table: fenced, as printed


def test_saved_keeps_what_main_printed_and_still_prints_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(_results.ENV, str(tmp_path))
    monkeypatch.setattr(sys, "argv", [str(ROOT / "bench" / "solver_speed.py"), "--sizes", "3"])

    @_results.saved("solver_speed")
    def main() -> int:
        print("| size | s |\n|---|---|")
        print("| 3 | 0.002 |", file=sys.stderr)  # not the report
        print("| 3 | 0.001 |")
        return 7

    assert main() == 7
    out, err = capsys.readouterr()
    assert out == "| size | s |\n|---|---|\n| 3 | 0.001 |\n"
    kept = (tmp_path / "solver_speed.md").read_text(encoding="utf-8")
    assert kept.endswith("\n\n" + out)
    assert "`.venv/bin/python bench/solver_speed.py --sizes 3`" in kept
    assert "report kept in" in err


def test_saved_keeps_nothing_on_a_failure_an_empty_report_or_when_told_not_to(tmp_path, monkeypatch):
    monkeypatch.setenv(_results.ENV, str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["bench/serve_load.py", "--profile"])

    @_results.saved("quiet")
    def quiet() -> int:
        return 2

    @_results.saved("broken")
    def broken() -> None:
        print("| half a table |")
        raise RuntimeError("stopped")

    @_results.saved("profiled", unless=("--profile",))
    def profiled() -> None:
        print("| a profile |")

    assert quiet() == 2
    with pytest.raises(RuntimeError):
        broken()
    profiled()
    assert list(tmp_path.iterdir()) == []
    assert sys.stdout is not None and not isinstance(sys.stdout, _results._Tee)
    monkeypatch.setenv(_results.ENV, "-")
    monkeypatch.setattr(sys, "argv", ["bench/real.py"])
    quiet_report = _results.saved("real")(lambda: print("| x |"))
    quiet_report()
    assert list(tmp_path.iterdir()) == []
