"""Puzzles from the literature, solved through the CLI to their published solutions.

The texts live in ../shared/seed-puzzles (see its README.md); copies with the
same bytes are in samples/ so that the second half of this file always runs.
samples/kk0.j.txt is the J essay's kk0 inside its noun wrapper (`kk0=: 0 : 0`
... `)`); its cage lines are the seed's.
"""

import json
from pathlib import Path

import pytest

from kkvision.cli import main
from kkvision.formats.jformat import _body

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seed-puzzles"
SAMPLES = ROOT / "samples"

# puzzle text -> its published solution (one line per row)
WITH_SOLUTION = {
    "kk0.j.txt": "kk0.solution.txt",
    "kk1.j.txt": "kk1.solution.txt",
    "kk2.j.txt": "kk2.solution.txt",
    "kk3.j.txt": "kk3.solution.txt",
    "kenken-73491.letters.txt": "kenken-73491.solution.txt",
    "names-3x3.txt": "names-3x3.solution.txt",
}
NYT = "nyt-2009-02-13.shields.txt"  # its source prints no solution


def _grid(text: str) -> list[list[int]]:
    return [[int(t) for t in line.split()] for line in text.splitlines() if line.strip()]


def _solve(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["solve", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def _seeds() -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"{SEEDS} is absent")
    return SEEDS


def _check_published(folder: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _solve(folder / name, capsys)
    assert (code, err) == (0, "")
    assert _grid(out) == _grid((folder / WITH_SOLUTION[name]).read_text())


def _check_nyt(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _solve(folder / NYT, capsys)
    assert (code, err) == (0, "")
    expected = json.loads((SAMPLES / "nyt-2009-02-13.expected.json").read_text())["solution"]
    assert _grid(out) == expected


@pytest.mark.needs_shared
@pytest.mark.parametrize("name", sorted(WITH_SOLUTION))
def test_seed_puzzle_solves_to_its_published_solution(name, capsys):
    _check_published(_seeds(), name, capsys)


@pytest.mark.needs_shared
def test_seed_nyt_puzzle_solves_to_the_expected_grid(capsys):
    _check_nyt(_seeds(), capsys)


@pytest.mark.needs_shared
@pytest.mark.parametrize("name", sorted({*WITH_SOLUTION, *WITH_SOLUTION.values(), NYT} - {"kk0.j.txt"}))
def test_sample_copies_keep_the_published_bytes(name):
    assert (SAMPLES / name).read_bytes() == (_seeds() / name).read_bytes()


@pytest.mark.needs_shared
def test_sample_kk0_is_the_seed_inside_the_j_noun_wrapper():
    seed, sample = (_seeds() / "kk0.j.txt").read_text(), (SAMPLES / "kk0.j.txt").read_text()
    assert _body(sample) == _body(seed) == seed.splitlines()


@pytest.mark.parametrize("name", sorted(WITH_SOLUTION))
def test_sample_copy_solves_to_its_published_solution(name, capsys):
    _check_published(SAMPLES, name, capsys)


def test_sample_nyt_puzzle_solves_to_the_expected_grid(capsys):
    _check_nyt(SAMPLES, capsys)
