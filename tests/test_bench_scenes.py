"""bench/scenes.py's tally of how each answer was reached: what each retry of vision/read.py's ladder wins."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))  # as the bench scripts run

import scenes  # noqa: E402  (bench/scenes.py)

from kkvision.vision.read import BOTH_WAYS, UPRIGHT_RETRIES  # noqa: E402


def test_each_answer_is_put_down_to_the_reading_that_gave_it():
    second, both, moved = (note for _, note in UPRIGHT_RETRIES)
    turned = "the puzzle is on its side in the picture: read it turned 90 degrees counterclockwise"
    assert scenes.answered_by(()) == "first reading"
    assert scenes.answered_by(("labels read otherwise than the reader's first choice ...",)) == "first reading"
    assert scenes.answered_by((second,)) == "second label model"
    assert scenes.answered_by((both, "cage borders changed")) == "both models"
    assert scenes.answered_by((moved,)) == "both, moved crops"
    assert scenes.answered_by((turned,)) == "turned"
    assert scenes.answered_by((turned, second)) == "turned, second label model"
    assert scenes.answered_by((BOTH_WAYS, "labels not read, solved without them: C3")) == scenes.BOTH_WAYS_NAME
    assert set(map(scenes.answered_by, ((), (second,), (turned, moved), (BOTH_WAYS,)))) <= set(scenes.WAYS)


def test_the_tally_is_per_split_with_the_wrong_answers_apart():
    a = scenes.Score("app", "train", 0)
    a.ways.update({"first reading": 2, "turned": 1})
    b = scenes.Score("app", "locked", 50000)
    b.ways.update({"second label model": 1})
    b.wrong_ways.update({"second label model": 1})
    rows = {line.split(" | ")[0].strip("| "): line for line in scenes.ways_table([a, b]).splitlines()}
    assert rows["answered by"] == "| answered by | train | locked |"
    assert rows["first reading"] == "| first reading | 2 | 0 |"
    assert rows["second label model"] == "| second label model | 0 | 1 (WRONG 1) |"
    assert rows["turned"] == "| turned | 1 | 0 |"
