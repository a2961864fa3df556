"""A benchmark's report kept: what a bench script printed on stdout, with its command line, the
git commit and the date, written to bench/results/NAME.md when its run ends, so that
docs/benchmarks.md (made by bench/docs.py from these files) shows the latest output and
cannot drift from it.

    from bench._results import saved

    @saved("real")          # the script's main: its stdout is kept as it is printed
    def main() -> int: ...

Glossary:
  report   the text a run printed on stdout (its tables), as printed
  results  bench/results/NAME.md: a line saying what made it, the run's command line, commit
           and date, then the report (fenced as text when it holds no Markdown table)

KKVISION_BENCH_RESULTS=DIR writes the file into DIR instead (a quick run with tiny arguments,
a test); KKVISION_BENCH_RESULTS=- keeps nothing (CI's guard run of bench/real.py).
"""

from __future__ import annotations

import datetime
import functools
import io
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
ENV = "KKVISION_BENCH_RESULTS"  # another folder for the results, or '-' for none
HEAD = "<!-- bench/results/{name}.md: {source}; `python bench/docs.py` puts it into docs/benchmarks.md -->"
MADE = "the report of the latest run of bench/{name}.py, kept by bench/_results.py"
F = TypeVar("F", bound=Callable[..., Any])


def saved(name: str, unless: tuple[str, ...] = ()) -> Callable[[F], F]:
    """A bench script's main, its stdout kept as it is printed (still printed) and written to
    the results NAME.md when main returns having printed something; nothing on an exception,
    nor when the command line holds one of the options `unless` names (a run that prints no
    report: serve_load.py --profile)."""
    def wrap(main: F) -> F:
        @functools.wraps(main)
        def run(*args: Any, **kwargs: Any) -> Any:
            if any(arg.split("=")[0] in unless for arg in sys.argv[1:]):
                return main(*args, **kwargs)
            printed = io.StringIO()
            shown = sys.stdout
            sys.stdout = _Tee(shown, printed)
            try:
                value = main(*args, **kwargs)
            finally:
                sys.stdout = shown
            if printed.getvalue().strip():
                where = write(name, printed.getvalue(), command(), commit(), datetime.date.today().isoformat())
                if where is not None:
                    print(f"report kept in {_shown(where)}", file=sys.stderr)
            return value

        return run  # type: ignore[return-value]

    return wrap


def write(name: str, report: str, command: str, commit: str, date: str, note: str | None = None,
          folder: Path | None = None) -> Path | None:
    """The results file NAME.md made of a report and its run's command line, commit and date
    (`note`: a line on where the report came from when not from the run itself) in `folder`
    (default: $KKVISION_BENCH_RESULTS, else bench/results); None when that says '-'."""
    if folder is None:
        chosen = os.environ.get(ENV)
        if chosen == "-":
            return None
        folder = Path(chosen) if chosen else RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(results(name, report, command, commit, date, note), encoding="utf-8")
    return path


def results(name: str, report: str, command: str, commit: str, date: str, note: str | None = None) -> str:
    """The text of a results file (write's arguments)."""
    lines = [HEAD.format(name=name, source=MADE.format(name=name) if note is None else "seeded by hand"),
             f"Report of `{command}`, run at commit `{commit}`, {date}.", ""]
    if note:
        lines += [note, ""]
    body = report.strip("\n")
    if not any(line.startswith("|") for line in body.splitlines()):
        body = f"```text\n{body}\n```"
    return "\n".join(lines) + "\n" + body + "\n"


def command() -> str:
    """This run's command line, as a user in the repository root would type it."""
    script = Path(sys.argv[0]).resolve()
    shown = _shown(script) if script.is_relative_to(ROOT) else sys.argv[0]
    return shlex.join([".venv/bin/python", shown, *sys.argv[1:]])


def commit() -> str:
    """The checkout's commit (short), '+ changes' when tracked files differ from it (the reports of
    bench/results/ aside: a run of several benchmarks writes them as it goes)."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30,
                                  check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/results")
    return head + (" + changes" if changed else "")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


class _Tee(io.TextIOBase):
    """stdout as it was, and a copy of what is written to it."""

    def __init__(self, shown: Any, kept: io.StringIO) -> None:
        self.shown, self.kept = shown, kept

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.shown.write(text)

    def flush(self) -> None:
        self.shown.flush()

    def isatty(self) -> bool:
        return bool(self.shown.isatty())

    def fileno(self) -> int:
        return int(self.shown.fileno())
