"""bench/stages.py: each vision stage handed the scene's truth as its input, and scored alone."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))  # as the bench scripts run

import stages  # noqa: E402  (bench/stages.py)

from devtools.generate import random_puzzle  # noqa: E402
from devtools.scenes import Truth, scene  # noqa: E402
from kkvision.vision.grid import find_grids  # noqa: E402


def test_the_truths_cages_are_a_layout_with_a_thick_border_between_every_two_cages():
    puzzle, grid = random_puzzle(5, seed=3)
    layout = stages.truth_layout(puzzle)
    assert sorted(layout.cages) == sorted(tuple(sorted(c.cells)) for c in puzzle.cages)
    owner = {cell: k for k, cage in enumerate(puzzle.cages) for cell in cage.cells}
    for r in range(5):
        for c in range(4):
            assert layout.right_thick[r][c] == (owner[r, c] != owner[r, c + 1])
            assert layout.down_thick[c][r] == (owner[c, r] != owner[c + 1, r])


def test_a_grid_is_found_when_its_corners_are_the_truths_in_any_turn_and_not_when_one_is_off():
    sc = scene("app", 0)
    truth = sc.puzzles[0]
    found = [g for g, _ in find_grids(sc.image)]
    assert stages._grid_found(found, truth)
    turned = Truth(truth.puzzle, truth.solution, truth.corners[1:] + truth.corners[:1])
    assert stages._grid_found(found, turned)  # a turned picture names its corners from another one
    (x0, y0), *rest = truth.corners
    side = float(np.hypot(*np.subtract(truth.corners[1], truth.corners[0])))
    off = Truth(truth.puzzle, truth.solution, ((x0 + 0.3 * side / truth.puzzle.size, y0), *rest))  # a third of a cell
    assert not stages._grid_found(found, off)
    other, _ = random_puzzle(truth.puzzle.size - 1, seed=1)
    assert not stages._grid_found(found, Truth(other, truth.solution, truth.corners))


def test_every_stage_from_the_truth_of_a_plain_app_scene_is_right():
    """A working split's app screen (train theme, seed 0) that the pipeline solves: from the truth, the
    grid is found, the cages and every label are the truth's and the reading is its solution."""
    sc = scene("app", 0)
    score = stages.Score("app", "train")
    found = [g for g, _ in find_grids(sc.image)]
    for truth in sc.puzzles:
        stages.score_puzzle(sc.image, truth, found, score)
    assert score.puzzles == len(sc.puzzles) == score.grids == score.layouts == score.solved
    assert score.labels == score.labels_right == sum(len(t.puzzle.cages) for t in sc.puzzles)
    assert score.edges == score.edges_right > 0 and not score.wrong and not score.why


def test_a_wrong_truth_shows_in_its_own_stage_only():
    """Handed a truth whose cages are another puzzle's, the grid stage still scores right and the cage
    and label stages do not: a stage's failure is seen where it is."""
    sc = scene("app", 0)
    truth = sc.puzzles[0]
    n = truth.puzzle.size
    other = next(p for p, _ in (random_puzzle(n, seed=s) for s in range(1, 40))
                 if stages.truth_layout(p).cages != stages.truth_layout(truth.puzzle).cages)
    score = stages.Score("app", "train")
    stages.score_puzzle(sc.image, Truth(other, truth.solution, truth.corners), [g for g, _ in find_grids(sc.image)],
                        score)
    assert score.grids == 1 and score.layouts == 0 and score.edges_right < score.edges
    assert score.labels_right < score.labels


def test_the_calibration_error_is_the_gap_between_sureness_and_being_right():
    assert stages.calibration_error([(0.9, True)] * 9 + [(0.9, False)]) < 1e-9  # 90% sure, 90% right
    assert abs(stages.calibration_error([(0.99, True), (0.99, False)]) - 0.49) < 1e-9
    assert stages.calibration_error([]) == 0.0
