"""The command layer (kkvision/commands.py) alone, on pages made without reading a picture:
text puzzles solved, and the photo sample's page put together from its recorded grid
(tests/recorded/photo-6x6/geometry.json) and its expected puzzle and solution, so no
label or digit model runs unless the test's subject is where the answers come from.

  solve / check / hint   a Work: each puzzle Done, the drawings, the records
  convert                one puzzle as text: as solved, or as read when refused
  verdict                check's sentence, for the command line and the page
  the refusals           REFUSED, the request's checks, and how each front end words them
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from kkvision import commands
from kkvision.errors import Ambiguous, ExitCode, GridNotFound, UncertainReading, UsageError
from kkvision.formats import jsonfmt
from kkvision.pipeline import Options, Outcome, Page, Result, solve_text
from kkvision.puzzle import Cage
from kkvision.report import RECORD_FIELDS
from kkvision.vision.grid import SIDE, GridGeometry
from kkvision.vision.stages import AsRead, ClueReading, GivenLabel, LabelDecision

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
NAMES = (SAMPLES / "names-3x3.txt").read_text()
SEVERAL = "#\t3\n+\t6\tA1 B1 C1\n+\t6\tA2 B2 C2\n+\t6\tA3 B3 C3\n"  # rows of 6: twelve solutions
WORDS = commands.Wording(several="{page}: {count} puzzles, {given} for one", answers="answers are",
                         progress="progress is", no_answers="no answers")


def text_page(*texts: str, name: str = "puzzle.txt") -> Page:
    """A page of text puzzles, each solved (as pipeline.read_source solves a text)."""
    outcomes = tuple(Outcome(solve_text(text, Options()), index=k if len(texts) > 1 else None)
                     for k, text in enumerate(texts, 1))
    return Page(name, outcomes)


def photo_page(answers: list[list[int]] | None = None) -> tuple[Page, list[list[int]]]:
    """The photo sample's page as the reading gives it, from its recorded grid and expected
    puzzle (no model runs), and its solution; `answers`: a picture with these digits drawn in
    stands in for the photo."""
    record = json.loads((ROOT / "tests" / "recorded" / "photo-6x6" / "geometry.json").read_text())
    corners = tuple((float(x), float(y)) for x, y in record["corners"])
    homography = cv2.getPerspectiveTransform(np.float32(corners),
                                             np.float32([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]]))
    geom = GridGeometry(record["size"], corners, tuple(record["xs"]), tuple(record["ys"]), homography=homography)
    expected = json.loads((SAMPLES / "photo-6x6.expected.json").read_text())
    puzzle = jsonfmt.read(json.dumps(expected["puzzle"]))
    solution = tuple(tuple(row) for row in expected["solution"])
    labels = tuple(LabelDecision(cage.cells, cage.label, 0.99, cage, 0.99, "read") for cage in puzzle.cages)
    clues = tuple(ClueReading(cage.cells, ((cage.label, 0.99),)) for cage in puzzle.cages)
    result = Result(puzzle, solution, True, None, labels, corners, 9.0, (), geom, clues=clues)
    picture = cv2.imread(str(SAMPLES / "photo-6x6.jpg"))
    return Page("photo-6x6.jpg", (Outcome(result, geometry=geom),), picture), [list(r) for r in solution]


def row(r: int, probability: float) -> tuple:
    """Row r of a 3x3 as one cage read '6+' with this probability (an AsRead cage)."""
    cells = tuple((r, c) for c in range(3))
    return cells, Cage("+", 6, cells), probability


def typed(grid: list[list[int]]) -> str:
    return "\n".join("".join(str(d) if d else "." for d in row) for row in grid) + "\n"


# solve


def test_solve_answers_each_puzzle_and_draws_only_on_a_picture():
    work = commands.solve(text_page(NAMES))
    [done] = work.done
    assert done.made is done.outcome.result and work.drawings == () and work.picture == "solved"
    [rec] = work.records()
    assert rec["command"] == "solve" and rec["ok"] and rec["solution"] == [[2, 3, 1], [1, 2, 3], [3, 1, 2]]
    assert list(rec) == list(RECORD_FIELDS)

    page, solution = photo_page()
    work = commands.solve(page)
    [drawing] = work.drawings
    assert drawing.geometry is page.outcomes[0].geometry and [list(r) for r in drawing.grid] == solution
    assert not drawing.check and drawing.labels == page.outcomes[0].result.labels


def test_solve_refuses_a_puzzle_of_several_solutions_and_names_the_picture_only_for_answers():
    work = commands.solve(text_page(NAMES, SEVERAL))
    first, second = work.done
    assert first.made is not None and second.made is None and isinstance(second.outcome.error, Ambiguous)
    recs = work.records(Path("out/p.solved.png"))
    assert [(r["index"], r["exit_code"], r["image"]) for r in recs] == [
        (1, 0, "out/p.solved.png"), (2, ExitCode.AMBIGUOUS, None)]
    assert "more than one solution" in recs[1]["error"]


# check


def test_check_judges_typed_answers_and_marks_the_picture():
    page, solution = photo_page()
    answers = [row[:] for row in solution]
    answers[2][3] = solution[2][3] % 6 + 1  # D3 wrong
    answers[0][0] = 0  # A1 blank
    work = commands.check(page, typed(answers), WORDS)
    [done] = work.done
    assert done.made.check.wrong == ((2, 3),) and done.made.blank == ((0, 0),)
    assert done.made.verdict == ExitCode.ANSWERS_WRONG
    [drawing] = work.drawings
    assert drawing.check and drawing.wrong == {(2, 3)} and drawing.blank == {(0, 0)} and drawing.unsure == set()
    [rec] = work.records(Path("p.checked.jpg"))
    assert rec["exit_code"] == ExitCode.ANSWERS_WRONG and not rec["ok"] and rec["image"] == "p.checked.jpg"
    assert rec["wrong"] == [[2, 3]] and rec["blank"] == [[0, 0]] and rec["box"] is not None
    assert work.picture == "checked"


def test_check_reads_the_answers_from_the_picture_when_none_are_typed(monkeypatch):
    """With no answers typed, each puzzle's answers are judged from the page's picture (answers.judge;
    the digit reader, its subject elsewhere, is not run here), its cells read with the page's other
    grids' first (answers.read_page: one hand wrote them all)."""
    from kkvision.answers import CheckResult, Judged

    page, solution = photo_page()
    seen, read = [], []
    written = object()  # what read_page made of the one grid's cells

    def read_page(picture, grids):
        read.append((picture is page.picture, [(g is page.outcomes[0].geometry, s) for g, s in grids]))
        return [written]

    def judge(puzzle, sol, typed_answers, picture, geometry, undetermined, clues, freed, cells):
        seen.append((typed_answers, picture is page.picture, geometry is page.outcomes[0].geometry, undetermined,
                     clues is page.outcomes[0].result.clues and len(clues) == len(puzzle.cages), freed,
                     cells is written))
        return Judged(CheckResult(sol, (), ()), unsure=((1, 2),))

    monkeypatch.setattr(commands, "judge", judge)
    monkeypatch.setattr(commands, "read_page", read_page)
    work = commands.check(page, None, WORDS)
    assert read == [(True, [(True, page.outcomes[0].result.solution)])]
    assert seen == [(None, True, True, frozenset(), True, frozenset(), True)]  # the labels' readings weigh the answers
    [rec] = work.records()
    assert rec["exit_code"] == ExitCode.ANSWERS_UNSURE and rec["unsure"] == [[1, 2]]
    assert rec["notes"] == ["unsure cells: C2"]


def test_check_refuses_what_its_front_end_words():
    with pytest.raises(UsageError, match="^no answers$"):  # a text puzzle, nothing to read answers from
        commands.check(text_page(NAMES), None, WORDS)
    read = []

    def answers() -> str:
        read.append(1)
        return "231\n123\n312\n"

    with pytest.raises(UsageError, match="^two.png: 2 puzzles, answers are for one$"):
        commands.check(text_page(NAMES, NAMES, name="two.png"), answers, WORDS)
    assert read == []  # a file for answers is not read when they cannot be used
    work = commands.check(text_page(NAMES), answers, WORDS)
    assert read == [1] and work.done[0].made.verdict == ExitCode.OK and work.drawings == ()


# hint


def test_hint_reveals_cells_of_the_solution_names_wrong_ones_first_and_draws_them():
    page, solution = photo_page()
    progress = [[0] * 6 for _ in range(6)]
    progress[0][1] = solution[0][1] % 6 + 1  # B1 written wrong
    work = commands.hint(page, 2, typed(progress), WORDS)
    hinted = work.done[0].made
    first, *rest = hinted.hints
    assert first.wrong and first.cell == (0, 1) and first.holds == progress[0][1]
    assert len(rest) == 2 and all(solution[h.cell[0]][h.cell[1]] == h.digit for h in rest)
    [drawing] = work.drawings
    assert drawing.wrong == {(0, 1)} and sum(d != 0 for row in drawing.grid for d in row) == 2
    [rec] = work.records()
    assert rec["command"] == "hint" and rec["solution"] is None and len(rec["hints"]) == 3
    assert work.picture == "hint"


def test_hint_judges_the_progress_written_in_the_picture_as_check_reads_it(monkeypatch):
    """With no progress typed, hint reads the page's grids' cells together as check does (answers.read_page:
    one hand's) and hands each puzzle its own to judge; the reader itself is not run here."""
    from kkvision.hints import Hinted

    page, solution = photo_page()
    written = object()
    read, seen = [], []
    monkeypatch.setattr(commands, "read_page", lambda picture, grids: read.append(len(grids)) or [written])

    def hint_puzzle(puzzle, sol, count, typed_progress, picture, geometry, clues, cells):
        seen.append((typed_progress, picture is page.picture, cells))
        return Hinted(puzzle.size, ())

    monkeypatch.setattr(commands, "hint_puzzle", hint_puzzle)
    commands.hint(page, 1, None, WORDS)
    assert read == [1] and seen == [(None, True, written)]
    read.clear()
    seen.clear()
    commands.hint(page, 1, typed([[0] * 6 for _ in range(6)]), WORDS)  # typed progress: nothing read
    assert read == [] and seen == [("......\n" * 6, True, None)]


def test_hint_on_a_text_draws_nothing_and_refuses_typed_progress_for_several_puzzles():
    work = commands.hint(text_page(NAMES), 1, None, WORDS)
    assert len(work.done[0].made.hints) == 1 and work.drawings == ()
    with pytest.raises(UsageError, match="progress is for one"):
        commands.hint(text_page(NAMES, NAMES), 1, "...\n...\n...\n", WORDS)


# convert


def test_convert_writes_a_solved_puzzle_and_names_its_unsure_labels():
    page, _ = photo_page()
    result = page.outcomes[0].result
    unsure = LabelDecision(result.labels[0].cells, "13+", 0.6, result.labels[0].used, 0.6, "read")
    page = Page(page.name, (Outcome(Result(result.puzzle, result.solution, True, labels=(unsure, *result.labels[1:]),
                                           geometry=result.geometry)),), page.picture)
    done = commands.convert(page, page.outcomes[0], "keen")
    assert done.made.text.strip() and done.made.puzzle == result.puzzle
    assert done.made.warning == "photo-6x6.jpg: labels to check against the picture: A1 13+ (unsure)"
    rec = done.record("convert", page.name)
    assert rec["text"] == done.made.text and rec["labels"] == [
        {"cell": "A1", "used": "13+", "used_probability": 0.6, "how": "unsure"}]


def test_convert_writes_a_refused_reading_as_read_and_a_puzzle_of_several_solutions_as_it_is():
    seen = AsRead(3, (row(0, 0.95), row(1, 0.5), row(2, 0.95)))
    refused = Outcome(error=UncertainReading("two readings; B2 decides"), index=2, seen=seen)
    page = Page("page.png", (refused,))
    done = commands.convert(page, refused, "keen")
    assert done.made.notes == ("written as read: two readings; B2 decides",)
    assert done.made.warning == ("page.png #2: written as read (two readings); edit it and run kkvision solve"
                                 " on the text")
    assert [u["cell"] for u in done.made.unsure] == ["A2"]  # read less surely than LABEL_SURE
    assert done.record("convert", page.name)["index"] == 2
    several = text_page(SEVERAL)
    assert commands.convert(several, several.outcomes[0], "keen").made is not None  # not solved: written


def test_convert_of_a_label_not_read_at_all_is_json_with_nulls_or_refused():
    seen = AsRead(3, (row(0, 0.95), ((cells := ((1, 0), (1, 1), (1, 2))), None, 0.1), row(2, 0.95)))
    outcome = Outcome(error=UncertainReading("unsure"), seen=seen)
    page = Page("p.png", (outcome,))
    with pytest.raises(UsageError, match=r"^p.png: some labels could not be read as a puzzle \(A2\)"):
        commands.convert(page, outcome, "keen")
    done = commands.convert(page, outcome, "json")
    assert done.made.puzzle is None and json.loads(done.made.text)["cages"][1] == {
        "op": None, "target": None, "cells": [list(c) for c in cells]}


def test_convert_of_a_puzzle_refused_for_no_reading_fails_with_its_error():
    outcome = Outcome(error=GridNotFound("no grid"))
    done = commands.convert(Page("p.png", (outcome,)), outcome, "keen")
    assert done.made is None and done.record("convert", "p.png")["exit_code"] == ExitCode.NO_GRID


# verdict


@pytest.mark.parametrize("args, kw, sentence", [
    (([], [], []), {}, "0 wrong, 0 blank; the grid is complete"),
    (([(2, 3)], [(0, 0)], []), {}, "1 wrong, 1 blank"),
    (([(2, 3)], [], []), {"named": True}, "1 wrong (D3), 0 blank; the grid is complete"),
    (([], [(3, 1)], []), {"pencil": [(3, 1)]},
     "0 wrong, 1 blank (1 holding only pencil marks: B4; notes, never an answer)"),
    (([], [], [(1, 2), (0, 5)]), {},
     "0 wrong, 0 blank, 2 not judged (C2, F1: written but not read surely, marked ?)"),
    (([], [], [(1, 2), (0, 5)]), {"left_open": {(0, 5)}},
     "0 wrong, 0 blank, 2 not judged (C2: written but not read surely; F1: their digit rests on labels not read"
     " surely, marked ?)"),
])
def test_the_verdict_sentence(args, kw, sentence):
    assert commands.verdict(*args, **kw) == sentence


# the refusals and the request's checks


def test_refused_are_the_readings_a_given_label_can_settle():
    assert commands.REFUSED_EXITS == {ExitCode.CLUE_UNREADABLE, ExitCode.UNSOLVABLE, ExitCode.AMBIGUOUS,
                                      ExitCode.UNCERTAIN} == {5, 7, 8, 13}


def test_a_failure_is_one_record_with_its_error():
    rec = commands.failure("check", "x.png", GridNotFound("no puzzle grid found"))
    assert rec["exit_code"] == ExitCode.NO_GRID and rec["error"] == "no puzzle grid found" and not rec["ok"]
    assert rec["command"] == "check" and rec["input"] == "x.png" and rec["index"] is None


def test_the_requests_checks_name_the_options_as_each_front_end_does():
    label = commands.parse_label("2:b3=12x")
    assert label == GivenLabel((2, 1), "12*", 2)
    with pytest.raises(UsageError, match="^label 'B3'"):
        commands.parse_label("B3", "label")
    with pytest.raises(UsageError, match="^--label 'B3'"):
        commands.parse_label("B3")
    commands.check_choice(2, [label])
    with pytest.raises(UsageError, match=r"^--label 2:B3=12\*: --puzzle 1 reads only puzzle 1$"):
        commands.check_choice(1, [label])
    with pytest.raises(UsageError, match="^puzzle counts from 1"):
        commands.check_choice(0, [], dashes="")
    for bad in (0, -1, float("nan"), 3601):
        with pytest.raises(UsageError, match="^--time-limit must be more than 0 and at most 3600 seconds"):
            commands.check_time_limit(bad)
    with pytest.raises(UsageError, match="^--max-pixels must be a positive"):
        commands.check_max_pixels(0)


def test_the_command_layer_imports_no_front_end():
    """commands.py sits under the command line, the batch, the library and the server: it imports none."""
    import ast

    tree = ast.parse((ROOT / "kkvision" / "commands.py").read_text())
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {m for m in imported if m.lstrip(".").split(".")[0] in ("cli", "batch", "api", "serve")}
    assert "render" in imported  # drawn lazily, and only when there is a picture
