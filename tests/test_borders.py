"""Stage 4b: unsure cage borders called the other way."""

import numpy as np
import pytest

from kkvision.errors import UncertainReading
from kkvision.vision import borders
from kkvision.vision.cages import CageLayout, group, rows
from kkvision.vision.labels import LabelReading


def layout(margins_right, margins_down, right, down):
    n = len(right)
    cages = tuple(tuple(g) for g in group(n, np.array(right), np.array(down)))
    return CageLayout(cages, rows(np.array(right)), rows(np.array(down)), 1.0,
                      tuple(map(tuple, margins_right)), tuple(map(tuple, margins_down)))


# 3x3: row 1 one cage, rows 2-3 three cages of a column each; every call sure but B2|B3 (down[1][1])
RIGHT = [[False, False, True], [True, True, True], [True, True, True]]
DOWN = [[True, True, True], [False, False, False], [True, True, True]]
SURE = 0.6


def margins(weak):
    right = [[SURE] * 3 for _ in range(3)]
    down = [[SURE] * 3 for _ in range(3)]
    for r, c in weak:
        down[r][c] = 0.02
    return right, down


def test_only_borders_near_the_threshold_are_reconsidered():
    rm, dm = margins([(1, 1)])
    flips = borders._unsure(layout(rm, dm, RIGHT, DOWN))
    assert [(kind, r, c) for _, kind, r, c in flips] == [("down", 1, 1)]
    assert flips[0][0] < borders.MARGIN
    rm, dm = margins([])
    assert borders._unsure(layout(rm, dm, RIGHT, DOWN)) == []


def cells(labels):
    out = {(r, c): LabelReading(((labels.get((r, c), ""), 0.99),)) for r in range(3) for c in range(3)}
    out[(2, 1)] = LabelReading((("2", 0.5), ("", 0.5)))  # B3: a smudge, maybe a label
    return out


LABELS = {(0, 0): "6+", (1, 0): "3+", (1, 1): "3+", (1, 2): "3+"}
GRID = ((1, 2, 3), (2, 3, 1), (3, 1, 2))
OTHER = ((1, 2, 3), (3, 1, 2), (2, 3, 1))


def test_a_flip_nearly_as_probable_with_another_solution_is_uncertain(monkeypatch):
    rm, dm = margins([(1, 1)])
    lay = layout(rm, dm, RIGHT, DOWN)

    def fake(n, readings, time_limit, max_cost=None):  # the flipped layout's labels read as probably as the answer's
        flipped = len(readings) != len(lay.cages)
        return (0.5, OTHER) if flipped else (0.5, GRID)

    monkeypatch.setattr(borders, "best_reading", fake)
    with pytest.raises(UncertainReading) as err:
        borders.check_borders(lay, cells(LABELS), GRID, 5.0)
    assert "B2 and B3" in err.value.message


def test_a_flip_much_less_probable_or_with_the_same_solution_is_no_doubt(monkeypatch):
    rm, dm = margins([(1, 1)])
    lay = layout(rm, dm, RIGHT, DOWN)
    weighed = []  # how many cages each layout weighed had: the flipped one must be among them

    def same(n, readings, time_limit, max_cost=None):
        weighed.append(len(readings))
        return 0.5, GRID

    monkeypatch.setattr(borders, "best_reading", same)
    borders.check_borders(lay, cells(LABELS), GRID, 5.0)  # same solution: no doubt
    assert len(lay.cages) in weighed and any(k != len(lay.cages) for k in weighed)

    caps = []  # the flipped layout is searched only as far as could matter: within MARGIN of the answer

    def unlikely(n, readings, time_limit, max_cost=None):
        weighed.append(len(readings))
        if len(readings) == len(lay.cages):
            return 0.5, GRID
        caps.append(max_cost)
        return (9.0, OTHER) if max_cost is None or 9.0 <= max_cost else None

    weighed.clear()
    monkeypatch.setattr(borders, "best_reading", unlikely)
    borders.check_borders(lay, cells(LABELS), GRID, 5.0)  # another solution, but 8.5 nats less probable
    assert len(lay.cages) in weighed and any(k != len(lay.cages) for k in weighed)
    assert caps and all(c is not None and c < 0.5 + borders.MARGIN for c in caps)
