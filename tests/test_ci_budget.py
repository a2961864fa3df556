"""CI's skip budget (tests/conftest.py, KKVISION_SKIP_BUDGET in .ci/run): a missing extra or browser
must fail the run rather than pass as quiet skips; ../shared's absence is no such skip."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")


def run(tmp_path: Path, budget: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_some.py").write_text(
        "import pytest\n"
        "def test_extra(): pytest.skip('starlette is missing')\n"
        f"def test_shared(): pytest.skip({str(tmp_path.parent.parent / 'shared' / 'real-dev')!r} + ' is absent')\n"
        "def test_runs(): pass\n")
    env = dict(os.environ, KKVISION_SKIP_BUDGET=budget)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("budget, fails", [("0", True), ("1", False)])
def test_more_skips_than_the_budget_fail_the_run_and_say_why(tmp_path, budget, fails):
    done = run(tmp_path, budget)
    assert (done.returncode != 0) == fails, done.stdout
    assert f"skips counted against the budget: 1 of {budget} allowed" in done.stdout  # ../shared's not counted
    assert "1 x Skipped: starlette is missing" in done.stdout
