"""Stage 4: choosing what the labels say, with the solver."""

import math
import re

import pytest

from devtools.generate import random_puzzle
from kkvision.errors import ClueUnreadable, UncertainReading
from kkvision.puzzle import Cage, Puzzle
from kkvision.solver import most_probable
from kkvision.vision import reading
from kkvision.vision.clues import ClueReading
from kkvision.vision.reading import options, resolve
from kkvision.vocab import cell_name


def text_of(cage: Cage) -> str:
    return str(cage.target) if cage.op in "=?" else f"{cage.target}{cage.op}"


def sure(puzzle: Puzzle, p: float = 0.97) -> list[ClueReading]:
    return [ClueReading(c.cells, ((text_of(c), p),)) for c in puzzle.cages]


def unsolvable_misread(puzzle: Puzzle, tries: int) -> tuple[int, Cage]:
    """The first '+' cage (its index) and a target up to `tries` above its own that leave
    the puzzle without a solution: a misread the reading must not answer with."""
    from kkvision.errors import Unsolvable
    from kkvision.solver import solve

    for k, cage in enumerate(puzzle.cages):
        if cage.op != "+":
            continue
        for target in range(cage.target + 1, cage.target + 1 + tries):
            wrong = Cage("+", target, cage.cells)
            try:
                solve(Puzzle(puzzle.size, puzzle.cages[:k] + (wrong,) + puzzle.cages[k + 1:]), 5.0)
            except Unsolvable:
                return k, wrong
    pytest.fail("every '+' misread of this puzzle still has a solution: the test checks nothing")


def test_labels_read_right_give_the_solution_without_notes():
    puzzle, grid = random_puzzle(6, seed=4)
    res = resolve(6, tuple(sure(puzzle)), 10.0)
    assert res.puzzle == puzzle and res.grid == grid and res.notes == ()
    assert all(d.how == "read" and not d.unsure for d in res.labels) and res.odds >= 3.9


def test_a_misread_that_leaves_no_solution_gives_way_to_the_next_reading():
    puzzle, grid = random_puzzle(5, seed=9)
    k, wrong = unsolvable_misread(puzzle, tries=1)
    cage = puzzle.cages[k]
    readings = sure(puzzle)
    readings[k] = ClueReading(cage.cells, ((text_of(wrong), 0.6), (text_of(cage), 0.35)))
    res = resolve(5, tuple(readings), 10.0)
    assert res.puzzle == puzzle and res.grid == grid
    assert any(wrong.label in n and cage.label in n and cage.where in n for n in res.notes)
    assert res.labels[k].how == "changed" and res.labels[k].read == text_of(wrong) and res.labels[k].unsure
    assert res.labels[k].used == cage and 0.3 < res.labels[k].used_probability < 0.4


def test_texts_that_cannot_be_the_cages_clue_are_not_options():
    two = ((0, 0), (0, 1))
    column = ((0, 0), (1, 0), (2, 0))
    opts = options(ClueReading(column, (("5-", 0.7), ("9+", 0.2))), 6)  # 6 - (1 + 2) is the most
    assert [c.label for c, _ in opts[:-1]] == ["9+"] and opts[-1][0] is None
    opts = options(ClueReading(column, (("3-", 0.7), ("9+", 0.2))), 6)  # a puzzle book's: 6 - 1 - 2
    assert [c.label for c, _ in opts[:-1]] == ["3-", "9+"]
    opts = options(ClueReading(two, (("99+", 0.5), ("6*", 0.3), ("", 0.1))), 4)
    assert [c.label for c, _ in opts[:-1]] == ["6*"]  # 99 is no sum of two digits up to 4
    assert opts[-1][1] < opts[0][1] * 4  # much was left to other texts: 'unreadable' is not far


def test_uncertain_reading_exit_code_and_cells():
    puzzle, grid = random_puzzle(4, seed=11)
    readings = sure(puzzle)
    from kkvision.errors import InvalidPuzzle, Unsolvable
    from kkvision.solver import solve

    # find a label whose other reading also gives a (different) unique solution
    for k, cage in enumerate(puzzle.cages):
        for other in range(1, 40):
            if other == cage.target:
                continue
            alt = Cage(cage.op, other, cage.cells)
            try:  # only "no such puzzle" is passed over; a solver timeout or bug fails the test
                sol = solve(Puzzle(4, puzzle.cages[:k] + (alt,) + puzzle.cages[k + 1:]), 5.0)
            except (InvalidPuzzle, Unsolvable):
                continue
            if sol.unique and sol.grid != grid:
                readings[k] = ClueReading(cage.cells, ((text_of(cage), 0.5), (text_of(alt), 0.48)))
                with pytest.raises(UncertainReading) as err:
                    resolve(4, tuple(readings), 10.0)
                assert int(err.value.exit_code) == 13
                assert cage.where in err.value.message and alt.label in err.value.message
                assert err.value.cells == (cage.cells[0],)  # the one label that decides, for JSON's 'decide'
                return
    pytest.fail("no label of this puzzle has a second reading with another unique solution: the test checks nothing")


def test_an_unreadable_label_is_solved_without_and_reported():
    puzzle, grid = random_puzzle(6, seed=21)
    readings = sure(puzzle)
    k = max(range(len(readings)), key=lambda i: len(puzzle.cages[i].cells))
    readings[k] = ClueReading(puzzle.cages[k].cells, (("", 0.9),))
    res = resolve(6, tuple(readings), 10.0)  # the other labels pin the grid down
    assert res.grid == grid
    assert any("not read" in n and puzzle.cages[k].where in n for n in res.notes)
    assert res.labels[k].how == "not read" and res.labels[k].used.cells == puzzle.cages[k].cells


def test_too_many_unreadable_labels_are_refused():
    puzzle, _ = random_puzzle(6, seed=22)
    readings = [ClueReading(rd.cells, (("", 0.9),)) if i % 3 == 0 else rd for i, rd in enumerate(sure(puzzle))]
    with pytest.raises(ClueUnreadable) as err:
        resolve(6, tuple(readings), 10.0)
    assert set(err.value.cells) == {rd.cells[0] for i, rd in enumerate(readings) if i % 3 == 0}


def _a_third_hidden(seeds: range):
    """For each seed's 6x6 whose labels pin its grid down without every third of them, read as nothing
    under a player's big answers (contents.under_answers): the puzzle, its grid, the readings, the
    indices of the labels read as nothing, their cells (hidden) and the resolution with them hidden."""
    for seed in seeds:
        puzzle, grid = random_puzzle(6, seed=seed)
        readings = sure(puzzle)
        blank = [i for i in range(len(readings)) if i % 3 == 0]
        for i in blank:
            readings[i] = ClueReading(puzzle.cages[i].cells, (("", 0.9),))
        under = frozenset(puzzle.cages[i].cells[0] for i in blank)
        try:
            res = resolve(6, tuple(readings), 10.0, hidden=under)
        except (ClueUnreadable, UncertainReading):
            continue  # too few labels left to pin this grid down: another puzzle
        yield puzzle, grid, readings, blank, under, res


def test_labels_an_answer_may_hide_are_solved_without_beyond_the_share_of_unreadable_ones():
    """Labels under a player's big answers (contents.under_answers) read as nothing: more of them than
    MAX_UNREADABLE allows are refused when nothing says why, solved without when they are hidden, as long
    as the other labels pin the grid down; a label read as nothing where no answer is written still counts."""
    for puzzle, grid, readings, blank, under, res in _a_third_hidden(range(30, 60)):
        assert res.grid == grid
        assert all(res.labels[i].how == "not read" for i in blank)
        with pytest.raises(ClueUnreadable):
            resolve(6, tuple(readings), 10.0)
        bare = {puzzle.cages[i].cells[0] for i in blank[:3]}  # three of them under no answer: over the share
        assert len(bare) > reading.MAX_UNREADABLE * len(readings)
        with pytest.raises(ClueUnreadable) as err:
            resolve(6, tuple(readings), 10.0, hidden=under - bare)
        assert set(err.value.cells) == bare
        return
    pytest.fail("no puzzle was pinned down without a third of its labels: the test checks nothing")


def test_hidden_operator_labels_still_solve():
    puzzle, grid = random_puzzle(4, seed=5)
    hidden = Puzzle(4, tuple(Cage("?" if len(c.cells) > 1 else "=", _hidden_target(c, grid), c.cells)
                             for c in puzzle.cages))
    from kkvision.solver import solve

    assert solve(hidden, 5.0).unique  # else the labels could not pin the grid down
    res = resolve(4, tuple(sure(hidden)), 10.0)
    assert res.grid == grid and res.puzzle == hidden


def _hidden_target(cage: Cage, grid) -> int:
    return cage.target if cage.op != "=" else grid[cage.cells[0][0]][cage.cells[0][1]]


def test_a_given_label_that_leaves_no_solution_is_named_never_dropped():
    """--label A1=... the other labels, as read, cannot meet: exit 7 naming it (was a silent
    overruling of other labels, or 'cannot read the labels at' cells the user never touched)."""
    from kkvision.errors import Unsolvable

    puzzle, grid = random_puzzle(6, seed=4)
    k, wrong = unsolvable_misread(puzzle, tries=19)
    cage = puzzle.cages[k]
    readings = sure(puzzle)
    readings[k] = ClueReading(cage.cells, ((text_of(wrong), 1.0),), "given")
    with pytest.raises(Unsolvable, match=re.escape(f"--label {cage.where}={text_of(wrong)}: the puzzle has no solution")) as err:
        resolve(6, tuple(readings), 10.0)
    assert err.value.cells == (cage.cells[0],)
    readings[k] = ClueReading(cage.cells, ((text_of(cage), 1.0),), "given")  # the right label: solved
    assert resolve(6, tuple(readings), 10.0).grid == grid


def test_a_given_label_does_not_take_the_blame_for_a_picture_read_badly():
    puzzle, _ = random_puzzle(6, seed=22)
    readings = [ClueReading(rd.cells, (("", 0.9),)) if i % 3 == 0 else rd for i, rd in enumerate(sure(puzzle))]
    readings[1] = ClueReading(readings[1].cells, ((text_of(puzzle.cages[1]), 1.0),), "given")
    with pytest.raises(ClueUnreadable):
        resolve(6, tuple(readings), 10.0)


def test_a_given_label_is_named_in_a_picture_whose_answers_hide_labels():
    """--label that leaves no solution, in a picture whose big answers hide a third of its labels (read
    as nothing, contents.under_answers): the given label is named (exit 7), as in the blank picture,
    not the hidden labels the other labels are solved without."""
    from kkvision.errors import Unsolvable

    for puzzle, _, readings, blank, under, _ in _a_third_hidden(range(30, 90)):
        k, wrong = unsolvable_misread(puzzle, tries=19)
        if k in blank:
            continue
        cage = puzzle.cages[k]
        readings[k] = ClueReading(cage.cells, ((text_of(wrong), 1.0),), "given")
        try:
            resolve(6, tuple(readings), 10.0, hidden=under)
        except Unsolvable as err:
            assert err.cells == (cage.cells[0],)
            return
        except ClueUnreadable:
            pytest.fail("the hidden labels were blamed for the given label's misread")
    pytest.fail("no puzzle had a given misread that the hidden labels cannot make up for: the test checks nothing")


def test_labels_mostly_no_clue_are_refused_before_any_search(monkeypatch):
    """A grid read the wrong way round reads mostly nothing: every answer would leave out or overrule
    more labels than _trouble allows, so no solver run (they ran to the time limit) is made."""
    puzzle, _ = random_puzzle(6, seed=22)
    readings = sure(puzzle)
    allowed = reading.MAX_UNREADABLE * len(readings) + max(1, reading.MAX_OVERRULED * len(readings))
    bad = list(range(int(allowed) + 1))
    for i in bad:
        readings[i] = ClueReading(readings[i].cells, (("", 0.9),))

    def no_search(*args, **kwargs):
        raise AssertionError("searched")

    monkeypatch.setattr(reading, "most_probable", no_search)
    with pytest.raises(ClueUnreadable) as err:
        resolve(6, tuple(readings), 10.0)
    assert set(err.value.cells) == {readings[i].cells[0] for i in bad}
    readings[bad[0]] = sure(puzzle)[bad[0]]  # one fewer: it may yet be answered, so it is searched
    with pytest.raises(AssertionError, match="searched"):
        resolve(6, tuple(readings), 10.0)


def test_best_reading_within_a_cost_is_the_same_reading_or_none():
    from kkvision.vision.reading import best_reading

    puzzle, grid = random_puzzle(5, seed=9)
    k, wrong = unsolvable_misread(puzzle, tries=1)
    readings = sure(puzzle)
    readings[k] = ClueReading(puzzle.cages[k].cells, ((text_of(wrong), 0.6), (text_of(puzzle.cages[k]), 0.35)))
    cost, found = best_reading(5, tuple(readings), 10.0)
    assert found == grid
    assert best_reading(5, tuple(readings), 10.0, max_cost=cost + 0.01) == (cost, found)
    assert best_reading(5, tuple(readings), 10.0, max_cost=cost - 0.05) is None


def _nothing(cage: Cage) -> str:
    return ""


def _strokes(cage: Cage) -> str:
    return "1-" if len(cage.cells) == 2 else "1"


def _pinned_down_only_with_all(seeds: range, said=_nothing):
    """For each seed's 6x6 whose grid its labels pin down but not without a third of them (hidden under
    a player's answers, read surely as `said`: nothing legible, or a big answer's strokes as a clue):
    the puzzle, its grid, the readings, the hidden indices and cells."""
    from kkvision.errors import Ambiguous

    for seed in seeds:
        puzzle, grid = random_puzzle(6, seed=seed)
        readings = sure(puzzle)
        hidden = [i for i in range(len(readings)) if i % 3 == 0]
        for i in hidden:
            cage = puzzle.cages[i]
            readings[i] = ClueReading(cage.cells, ((said(cage), 0.95),))
        under = frozenset(puzzle.cages[i].cells[0] for i in hidden)
        try:
            resolve(6, tuple(readings), 10.0, hidden=under)
        except (ClueUnreadable, UncertainReading, Ambiguous):
            yield puzzle, grid, readings, hidden, under


def test_check_reads_in_part_a_grid_whose_answers_hide_labels_it_needs():
    """resolve refuses a grid whose labels under answers are read as clues that leave no solution or
    several; resolve_in_part reads it without them: every cell it does not leave open is the grid's
    own, the cells it leaves open are where the hidden labels decide (another grid differs there),
    and the hidden labels are 'hidden', not read."""
    for puzzle, grid, readings, hidden, under in _pinned_down_only_with_all(range(100, 140)):
        res = reading.resolve_in_part(6, tuple(readings), 10.0, under)
        if not res.undetermined:
            continue
        assert all(res.grid[r][c] == grid[r][c] for r in range(6) for c in range(6) if (r, c) not in res.undetermined)
        assert all(res.labels[i].how == "hidden" and not res.labels[i].used_probability for i in hidden)
        assert all(d.how == "read" for i, d in enumerate(res.labels) if i not in hidden)
        assert any("not read" in n and "not judged" in n for n in res.notes)
        # with the hidden labels free and the others as printed, another grid differs from the puzzle's own
        # in the cells left open, and none in any other cell
        opts = [[(None, 0)] if i in hidden else [(c, 0)] for i, c in enumerate(puzzle.cages)]
        assert most_probable(6, opts, 10.0, forbid=grid) is not None
        assert most_probable(6, opts, 10.0, forbid=grid, besides=res.undetermined) is None
        return
    pytest.fail("no puzzle was left open in part by its hidden labels: the test checks nothing")


def test_labels_under_answers_are_read_less_surely():
    """under_answers_read tempers the readings of the labels under answers only (never one the user
    gave): the same texts in the same order, each less sure, more left to the texts not listed."""
    cells = ((0, 0), (0, 1))
    sure_read = ClueReading(cells, (("14/", 0.97), ("14+", 0.026)))
    given = ClueReading(((1, 1),), (("3", 1.0),), source="given")
    elsewhere = ClueReading(((2, 2), (2, 3)), (("5+", 0.999),))
    out = reading.under_answers_read((sure_read, given, elsewhere), frozenset({(0, 0), (1, 1)}))
    assert out[1:] == (given, elsewhere)
    assert [t for t, _ in out[0].texts] == ["14/", "14+"]
    (_, first), (_, second) = out[0].texts
    assert first < 0.97 and second > 0.026  # the second reading is given more of a chance
    assert 1 - first - second > 1 - 0.97 - 0.026  # and more to the texts not listed


def test_labels_under_answers_read_surely_decide_their_cells_in_part():
    """Read in part, labels under answers read right and surely keep deciding their cells (used, not
    'hidden'): fewer cells are left open than without them, and every cell not left open is the grid's."""
    for puzzle, grid, readings, hidden, under in _pinned_down_only_with_all(range(100, 140)):
        without = reading.resolve_in_part(6, tuple(readings), 10.0, under)
        if not without.undetermined:
            continue
        right = list(readings)
        for i in hidden[1:]:  # all but one read right and surely through the answer's strokes
            right[i] = ClueReading(puzzle.cages[i].cells, ((text_of(puzzle.cages[i]), 0.999),))
        res = reading.resolve_in_part(6, reading.under_answers_read(tuple(right), under), 10.0, under)
        assert res.labels[hidden[0]].how == "hidden"
        assert all(res.labels[i].how == "read" for i in hidden[1:])
        assert res.undetermined < without.undetermined
        assert all(res.grid[r][c] == grid[r][c] for r in range(6) for c in range(6) if (r, c) not in res.undetermined)
        return
    pytest.fail("no puzzle was left open in part by its hidden labels: the test checks nothing")


def _operator_misread(cage: Cage, values: list[int]) -> str:
    """The cage's label with its number read right and an operator its digits do not meet (an answer's
    stroke through the label read as one: '12+' read '12x'); '' when every operator meets them."""
    from kkvision.puzzle import satisfies

    for op in "+*-/":
        if op != cage.op and (len(cage.cells) == 2 or op in "+*") and not satisfies(op, cage.target, values):
            return f"{cage.target}{op}"
    return ""


def test_labels_under_answers_with_their_operator_misread_still_decide_their_cells_by_their_numbers():
    """Read in part, labels under answers whose numbers are read right but whose operators an answer's
    stroke turned into another (read surely: '12+' as '12x') are weighed by their numbers alone: they
    still decide cells (fewer left open than without them), every cell not left open is the grid's, and
    each is used with its number and, as no operator read there is met by its cage's digits, none (a
    hidden operator), never the operator misread."""
    for puzzle, grid, readings, hidden, under in _pinned_down_only_with_all(range(100, 160)):
        without = reading.resolve_in_part(6, tuple(readings), 10.0, under)
        if not without.undetermined:
            continue
        misread = list(readings)
        for i in hidden:
            cage = puzzle.cages[i]
            wrong = _operator_misread(cage, [grid[r][c] for r, c in cage.cells])
            if len(cage.cells) == 1 or not wrong:
                misread[i] = ClueReading(cage.cells, ((text_of(cage), 0.999),))
            else:  # the misread alone, and sure: the reader saw no other operator there
                misread[i] = ClueReading(cage.cells, ((wrong, 0.97),))
        if all(misread[i].texts[0][0] == text_of(puzzle.cages[i]) for i in hidden):
            continue  # no operator could be misread here
        res = reading.resolve_in_part(6, reading.under_answers_read(tuple(misread), under), 10.0, under)
        assert res.undetermined < without.undetermined
        assert all(res.grid[r][c] == grid[r][c] for r in range(6) for c in range(6) if (r, c) not in res.undetermined)
        used = [i for i in hidden if res.labels[i].how != "hidden"]
        turned = [i for i in hidden if misread[i].texts[0][0] != text_of(puzzle.cages[i])]
        assert set(turned) <= set(used), "a label whose operator was misread was not weighed by its number"
        for i in used:
            cage, taken = puzzle.cages[i], res.labels[i].used
            assert taken.cells == cage.cells and taken.target == cage.target
            assert taken.op == cage.op if misread[i].texts[0][0] == text_of(cage) else taken.op == "?"
        return
    pytest.fail("no puzzle was left open in part with an operator to misread: the test checks nothing")


def test_labels_under_answers_misread_surely_as_clues_call_no_right_answer_wrong_and_no_wrong_one_right():
    """Labels under answers read surely (0.95) as clues their cages do not make (a big answer's strokes),
    tempered as check reads them: read in part, they may decide a few open cells otherwise than the
    puzzle, never a cell the other labels decide; judged with the answers written, the right answers
    there leave those cells not judged (never wrong), a wrong answer that agrees with the misread grid is
    not judged either, and 'all right' is said only where the grid read is the puzzle's."""
    from kkvision.answers import judge
    from kkvision.errors import ExitCode

    misled = 0
    for _, grid, readings, hidden, under in _pinned_down_only_with_all(range(100, 140), _strokes):
        unread = [ClueReading(rd.cells, (("", 0.95),)) if i in hidden else rd for i, rd in enumerate(readings)]
        without = reading.resolve_in_part(6, tuple(unread), 10.0, under)  # the labels under answers not read
        tempered = reading.under_answers_read(tuple(readings), under)
        res = reading.resolve_in_part(6, tempered, 10.0, under)
        assert res.undetermined <= without.undetermined
        other = [(r, c) for r in range(6) for c in range(6) if (r, c) not in res.undetermined and res.grid[r][c] != grid[r][c]]
        assert all(cell in without.undetermined for cell in other)
        freed = frozenset(lb.cells[0] for lb in res.labels if lb.how == "hidden")
        rows = [[str(d) for d in row] for row in grid]
        right = judge(res.puzzle, res.grid, "\n".join(map("".join, rows)), undetermined=res.undetermined,
                      clues=tempered, freed=freed)
        assert right.check.wrong == ()
        assert right.verdict != ExitCode.OK or res.grid == grid
        if other:
            misled += 1
            x = other[0]
            rows[x[0]][x[1]] = str(res.grid[x[0]][x[1]])  # wrong, as the misread grid has it
            wrong = judge(res.puzzle, res.grid, "\n".join(map("".join, rows)), undetermined=res.undetermined,
                          clues=tempered, freed=freed)
            assert wrong.verdict != ExitCode.OK and x in wrong.unsure
    assert misled, "no misread decided a cell otherwise: the test checks nothing"


def test_reading_in_part_frees_a_label_not_hidden_read_two_ways():
    """A label no answer hides, read two ways that give grids differing in cells the hidden labels do not
    decide (an answer's stroke beside it read as another label): read in part, it is freed too, not
    used, and named; the cells where its two readings' grids differ are left open, and every other cell
    is the puzzle's own."""
    for puzzle, grid, readings, hidden, under in _pinned_down_only_with_all(range(100, 160)):
        res = reading.resolve_in_part(6, tuple(readings), 10.0, under)
        opts = [[(None, 0)] if i in hidden else [(c, 0)] for i, c in enumerate(puzzle.cages)]
        for k, cage in enumerate(puzzle.cages):
            if k in hidden or cage.op != "+":
                continue
            for target in range(cage.target + 1, cage.target + 4):
                alt = Cage("+", target, cage.cells)
                other = most_probable(6, opts[:k] + [[(alt, 0)]] + opts[k + 1:], 10.0, forbid=res.grid,
                                      besides=res.undetermined)
                if other is None:
                    continue
                doubled = list(readings)
                doubled[k] = ClueReading(cage.cells, ((text_of(cage), 0.5), (text_of(alt), 0.49)))
                two = reading.resolve_in_part(6, tuple(doubled), 10.0, under)
                assert two.labels[k].how == "hidden"
                assert all(d.how == "read" for i, d in enumerate(two.labels) if i not in hidden and i != k)
                # the grid its other reading gives differs from the puzzle's in cells now left open
                assert any(other.grid[r][c] != grid[r][c] for r, c in two.undetermined - res.undetermined)
                assert res.undetermined < two.undetermined
                assert all(two.grid[r][c] == grid[r][c] for r in range(6) for c in range(6)
                           if (r, c) not in two.undetermined)
                assert any(f"read two ways, each with another solution, not used: {cell_name(cage.cells[0])}" in n
                           for n in two.notes)
                return
    pytest.fail("no label could be read two ways so: the test checks nothing")


def test_reading_in_part_refuses_when_every_cell_is_left_open():
    """Labels hidden, read as nothing, that leave every cell open: nothing to judge, refused as
    unreadable, naming them."""
    puzzle, _ = random_puzzle(4, seed=3)
    readings = [ClueReading(c.cells, (("", 0.9),)) for c in puzzle.cages]
    under = frozenset(c.cells[0] for c in puzzle.cages)
    with pytest.raises(ClueUnreadable) as err:
        reading.resolve_in_part(4, tuple(readings), 10.0, under)
    assert set(err.value.cells) == under


def solvable_misread(puzzle: Puzzle) -> tuple[int, Cage, tuple[tuple[int, ...], ...]]:
    """The first '+' cage (its index), another target for it under which the puzzle has one solution,
    and that solution: a misread the labels alone cannot tell from the printed puzzle."""
    from kkvision.errors import KkvisionError
    from kkvision.solver import solve

    for k, cage in enumerate(puzzle.cages):
        if cage.op != "+":
            continue
        for target in range(len(cage.cells), cage.target + 4):
            if target == cage.target:
                continue
            wrong = Cage("+", target, cage.cells)
            try:  # no solution, several, or a target its cells cannot make
                other = solve(Puzzle(puzzle.size, puzzle.cages[:k] + (wrong,) + puzzle.cages[k + 1:]), 5.0, True)
            except KkvisionError:
                continue
            return k, wrong, other.grid
    pytest.fail("no '+' misread of this puzzle has one solution: the test checks nothing")


def misread(puzzle: Puzzle) -> tuple[list[ClueReading], tuple[tuple[int, ...], ...]]:
    """The puzzle's labels read surely, one of them surely wrong (its printed text 200x less probable):
    the readings, and the grid they give."""
    k, wrong, other = solvable_misread(puzzle)
    readings = sure(puzzle)
    readings[k] = ClueReading(wrong.cells, ((text_of(wrong), 0.99), (text_of(puzzle.cages[k]), 0.005)))
    assert resolve(puzzle.size, tuple(readings), 10.0).grid == other  # the misread is the answer
    return readings, other


def as_written(grid) -> dict:
    return {(r, c): d for r, row in enumerate(grid) for c, d in enumerate(row)}


def test_answers_that_agree_with_another_reading_of_the_labels_leave_the_cells_it_changes_open():
    puzzle, grid = random_puzzle(6, seed=14)
    readings, other = misread(puzzle)
    changed = {(r, c) for r in range(6) for c in range(6) if grid[r][c] != other[r][c]}
    price = math.log(5 * 9)  # answers right 90% of the time (answers.WRITTEN_RIGHT)
    assert reading.against_answers(6, tuple(readings), other, as_written(grid), price, 10.0) == changed


def test_answers_that_agree_with_the_reading_or_a_few_wrong_change_nothing():
    puzzle, grid = random_puzzle(6, seed=14)
    readings = tuple(sure(puzzle))
    price = math.log(5 * 9)
    assert reading.against_answers(6, readings, grid, as_written(grid), price, 10.0) == frozenset()
    wrong = as_written(grid)
    wrong[(0, 0)], wrong[(3, 4)] = grid[0][0] % 6 + 1, grid[3][4] % 6 + 1  # a few wrong answers (no grid's)
    assert reading.against_answers(6, readings, grid, wrong, price, 10.0) == frozenset()


def test_labels_freed_constrain_nothing_when_the_answers_are_weighed():
    puzzle, grid = random_puzzle(6, seed=14)
    readings, other = misread(puzzle)
    k = next(i for i, rd in enumerate(readings) if rd.text != text_of(puzzle.cages[i]))
    free = frozenset({readings[k].cells[0]})  # the misread label read in part without (resolve_in_part)
    changed = {(r, c) for r in range(6) for c in range(6) if grid[r][c] != other[r][c]}
    assert reading.against_answers(6, tuple(readings), other, as_written(grid), math.log(5 * 9), 10.0, free) == changed


def test_check_leaves_open_the_cells_whose_answers_make_the_labels_say_otherwise():
    """The right answers of a puzzle whose label was misread surely are not called wrong: their cells
    are not judged, named so, and the JSON gives no digit there."""
    from kkvision.answers import judge
    from kkvision.commands import Done, verdict
    from kkvision.errors import ExitCode
    from kkvision.pipeline import Outcome, Result

    puzzle, grid = random_puzzle(6, seed=14)
    readings, other = misread(puzzle)
    read_as = resolve(6, tuple(readings), 10.0).puzzle  # the misread puzzle, answered with `other`
    typed = "\n".join("".join(map(str, row)) for row in grid)  # the printed puzzle's answers, all right
    changed = sorted((r, c) for r in range(6) for c in range(6) if grid[r][c] != other[r][c])
    assert judge(read_as, other, typed).check.wrong == tuple(changed)  # without the labels' readings: wrong
    judged = judge(read_as, other, typed, clues=tuple(readings))
    assert judged.check.wrong == () and judged.doubted == tuple(changed) and judged.verdict == ExitCode.ANSWERS_UNSURE
    assert set(judged.unsure) == set(changed) == set(judged.left_open)
    words = verdict(judged.check.wrong, judged.blank, judged.unsure, left_open=judged.left_open)
    assert "0 wrong" in words and "rests on labels not read surely" in words
    rec = Done(Outcome(Result(read_as, other, True, clues=tuple(readings))), judged).record("check", "typed")
    assert sorted(rec["undetermined"]) == sorted(map(cell_name, changed))
    assert all(rec["solution"][r][c] == 0 for r, c in changed) and rec["exit_code"] == ExitCode.ANSWERS_UNSURE


def test_hint_neither_calls_wrong_nor_reveals_the_cells_whose_answers_make_the_labels_say_otherwise():
    """hint judges the progress as check does: with the labels' readings, the right answers of a puzzle
    misread surely are not named wrong, and no cell whose digit is in doubt is revealed."""
    from kkvision.hints import hint_puzzle

    puzzle, grid = random_puzzle(6, seed=14)
    readings, other = misread(puzzle)
    read_as = resolve(6, tuple(readings), 10.0).puzzle
    changed = {(r, c) for r in range(6) for c in range(6) if grid[r][c] != other[r][c]}
    hidden = {(r, c) for r in range(6) for c in range(6) if (r + c) % 2 == 0}  # left empty by the user
    assert changed - hidden and changed & hidden  # answers written in doubted cells, and doubted cells empty
    typed = "\n".join("".join("." if (r, c) in hidden else str(d) for c, d in enumerate(row))
                      for r, row in enumerate(grid))  # the printed puzzle's answers, all right
    alone = hint_puzzle(read_as, other, 36, typed)  # without the readings: right answers named wrong
    assert {h.cell for h in alone.hints if h.wrong} == changed - hidden
    weighed = hint_puzzle(read_as, other, 36, typed, clues=tuple(readings))
    assert not any(h.wrong for h in weighed.hints) and set(weighed.doubted) == changed
    assert {h.cell for h in weighed.hints} == hidden - changed  # every other empty cell revealed, each right
    assert all(h.digit == grid[h.cell[0]][h.cell[1]] for h in weighed.hints)
    assert any("not hinted nor judged" in note for note in weighed.notes(()))


def _read_in_part():
    """A 6x6 read in part (its hidden labels free) that leaves cells open: puzzle, grid, readings, freed, result."""
    for puzzle, grid, readings, _, under in _pinned_down_only_with_all(range(100, 140)):
        res = reading.resolve_in_part(6, tuple(readings), 10.0, under)
        if len(res.undetermined) >= 4:
            return puzzle, grid, tuple(readings), under, res
    pytest.fail("no puzzle was left open in part by its hidden labels: the test checks nothing")


def _digits_within_margin(puzzle, res, under, cell):
    """The digits some reading within the margin, its hidden labels free, puts in the cell (brute force)."""
    opts = [[(None, 0)] if c.cells[0] in under else [(c, 0)] for c in puzzle.cages]
    return {d for d in range(1, 7) if most_probable(6, opts, 10.0, max_cost=0, prefer={cell: (d, 1)}) is not None}


def test_an_answer_no_reading_allows_in_a_cell_a_reading_in_part_leaves_open_is_ruled_out():
    """Of the open cells, those where none of the digits an answer may be is any reading's are ruled
    out; a digit some reading puts there, among them, keeps the cell open."""
    puzzle, grid, readings, under, res = _read_in_part()
    for x in sorted(res.undetermined):
        possible = _digits_within_margin(puzzle, res, under, x)
        assert grid[x[0]][x[1]] in possible and len(possible) >= 2  # open: two readings differ there
        others = set(range(1, 7)) - possible
        if others:
            break
    else:
        pytest.fail("every open cell may hold any digit: the test checks nothing")
    d = min(others)
    assert reading.ruled_out(6, readings, {x: frozenset({d})}, 10.0, under) == {x}
    assert reading.ruled_out(6, readings, {x: frozenset({d, max(possible)})}, 10.0, under) == frozenset()
    assert reading.ruled_out(6, readings, {x: frozenset({grid[x[0]][x[1]]})}, 10.0, under) == frozenset()


def test_check_calls_wrong_an_answer_no_reading_allows_in_a_cell_left_open_and_says_so():
    """judge of a grid read in part: an answer in an open cell that no reading of the labels allows is
    wrong (named in the notes), the cell's digit still unknown (0 in the record, 'undetermined'); an
    answer some reading allows there stays not judged."""
    from kkvision.answers import judge
    from kkvision.commands import Done
    from kkvision.errors import ExitCode
    from kkvision.pipeline import Outcome, Result

    puzzle, grid, readings, under, res = _read_in_part()
    allowed = {x: _digits_within_margin(puzzle, res, under, x) for x in sorted(res.undetermined)}
    x = next((x for x, p in allowed.items() if len(p) < 6), None)
    assert x is not None, "every open cell may hold any digit: the test checks nothing"
    y = next(c for c in sorted(res.undetermined) if c != x)
    rows = [[str(d) for d in row] for row in grid]
    rows[x[0]][x[1]] = str(min(set(range(1, 7)) - allowed[x]))  # no reading's digit: surely wrong
    rows[y[0]][y[1]] = str(min(allowed[y] - {grid[y[0]][y[1]]}))  # another reading's digit: not judged
    typed = "\n".join("".join(row) for row in rows)
    judged = judge(res.puzzle, res.grid, typed, undetermined=res.undetermined, clues=readings, freed=under)
    assert judged.check.wrong == (x,) and judged.ruled_out == (x,) and y in judged.unsure and x not in judged.unsure
    assert judge(res.puzzle, res.grid, typed, undetermined=res.undetermined).check.wrong == ()  # no readings: open
    rec = Done(Outcome(Result(res.puzzle, res.grid, True, clues=readings, undetermined=res.undetermined)),
               judged).record("check", "typed")
    assert rec["wrong"] == [list(x)] and rec["solution"][x[0]][x[1]] == 0 and cell_name(x) in rec["undetermined"]
    assert rec["exit_code"] == ExitCode.ANSWERS_WRONG
    assert any("no reading of them allows" in note and cell_name(x) in note for note in rec["notes"])


def test_the_answers_keep_a_right_answer_from_being_ruled_out_by_a_label_misread_surely():
    """A label misread surely puts no reading within the margin that gives a cell its right digit: the
    labels alone would rule the right answer there out; weighed with the answers written in the other
    cells, which agree with the printed puzzle, it is not ruled out (not judged, never wrong)."""
    puzzle, grid = random_puzzle(6, seed=14)
    readings, other = misread(puzzle)
    x = next((r, c) for r in range(6) for c in range(6) if grid[r][c] != other[r][c])
    right = {x: frozenset({grid[x[0]][x[1]]})}
    assert reading.ruled_out(6, tuple(readings), right, 10.0) == {x}  # the labels alone
    weighed = reading.ruled_out(6, tuple(readings), right, 10.0, answers=as_written(grid), price=math.log(5 * 9))
    assert weighed == frozenset()
