import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from devtools.generate import random_puzzle
from kkvision import formats
from kkvision.errors import UnknownFormat
from kkvision.puzzle import Cage

NYT = """first 4x4 puzzle from NY Times, published on Friday 02/13/09
4
8 * 0 0 rr
1 - 0 3 d
3 - 1 0 d
3 = 1 1
7 + 1 2 dl
2 / 2 3 d
1 - 3 0 r
1 = 3 2
"""


def test_shields_reads_moves_relative_to_previous_cell():
    p = formats.read(NYT)
    assert formats.detect(NYT) == "shields"
    cage = p.cage_of((2, 1))
    assert (cage.op, cage.target, cage.cells) == ("+", 7, ((1, 2), (2, 1), (2, 2)))


def test_j_format_with_noun_wrapper(samples):
    p = formats.read((samples / "kk0.j.txt").read_text())
    assert p.size == 4 and len(p.cages) == 7
    assert p.cage_of((3, 3)) == Cage("/", 2, ((3, 2), (3, 3)))


def test_names_format_letters_name_rows_numbers_name_columns():
    text = "# 3\n+ 3 A1 B1\n! 1 A3\n* 6 C1 C2 C3\n+ 5 A2 B2\n= 1 B3\n"
    p = formats.read(text)
    assert formats.detect(text) == "names"
    assert p.cage_of((0, 2)) == Cage("=", 1, ((0, 2),))  # A3: row A (top), column 3
    assert p.cage_of((1, 0)).cells == ((0, 0), (1, 0))  # A1 B1: down the left column
    assert p.cage_of((2, 1)).cells == ((2, 0), (2, 1), (2, 2))  # row C, the bottom


def test_names_writer_names_rows_with_letters():
    p = formats.read("# 3\n+ 3 A1 B1\n! 1 A3\n* 6 C1 C2 C3\n+ 5 A2 B2\n= 1 B3\n")
    assert formats.write(p, "names").splitlines()[1:3] == ["+ 3 A1 B1", "+ 5 A2 B2"]


def test_letters_format_bare_number_means_hidden_operator():
    text = "a3,a,b3+,c2,b,b,c,d1,d"
    p = formats.read(text)
    assert formats.detect(text) == "letters"
    assert p.cage_of((0, 0)).op == "?"
    assert p.cage_of((0, 0)).cells == ((0, 0), (0, 1))


def test_keen_reads_tatham_style_id():
    # 3x3: rows are cages.  Vertical inner edges: none (6 non-edges), horizontal: all 6 edges.
    text = "3:f______,a6a6a6"
    p = formats.read(text)
    assert [c.cells for c in p.cages] == [tuple((r, c) for c in range(3)) for r in range(3)]
    assert formats.write(p, "keen").strip() == "3:f_6,a6a6a6"


@pytest.mark.parametrize("bad", ["hello world", "", "4\n8 ^ 0 0 rr\n"])
def test_unknown_text_is_a_clear_error(bad):
    with pytest.raises(UnknownFormat):
        formats.read(bad)


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 9), st.integers(0, 10**6), st.sampled_from(formats.FORMATS))
def test_every_format_round_trips(n, seed, fmt):
    puzzle, _ = random_puzzle(n, seed, unique=False)
    text = formats.write(puzzle, fmt)
    assert formats.detect(text) == fmt
    assert formats.read(text) == puzzle


@settings(max_examples=10, deadline=None)
@given(st.integers(3, 9), st.integers(0, 10**6), st.sampled_from(["json", "letters", "names", "j"]))
def test_hidden_operators_round_trip(n, seed, fmt):
    puzzle, _ = random_puzzle(n, seed, unique=False, hidden_ops=True)
    assert formats.read(formats.write(puzzle, fmt)) == puzzle


def test_shipped_samples_in_every_format_are_the_same_puzzle(samples):
    texts = {p.name: p.read_text() for p in samples.glob("nyt-2009-02-13.*") if p.suffix in (".txt", ".json")
             and "expected" not in p.name}
    puzzles = {name: formats.read(text) for name, text in texts.items()}
    assert len(puzzles) == 5 and len(set(puzzles.values())) == 1
    assert {formats.detect(t) for t in texts.values()} == {"shields", "keen", "letters", "names", "json"}


def test_letters_format_comment_line_long_names_and_rows_on_lines():
    text = "#kenken example\naa3,aa,b3+\nc2,b,b\nc,dd1,dd\n"
    p = formats.read(text)
    assert formats.detect(text) == "letters"
    assert p.cage_of((0, 1)) == Cage("?", 3, ((0, 0), (0, 1)))
    assert p.cage_of((2, 2)) == Cage("?", 1, ((2, 1), (2, 2)))


def test_letters_single_cell_bare_number_is_the_digit():
    p = formats.read("a3,b3+,b,c6+,c,d1,c,e2,e")
    assert p.cage_of((0, 0)) == Cage("=", 3, ((0, 0),))


def test_shields_reads_rows_and_columns_above_nine():
    puzzle, _ = random_puzzle(11, 7, unique=False)
    text = formats.write(puzzle, "shields")
    assert formats.read(text, "shields") == puzzle


@pytest.mark.parametrize("fmt", [f for f in formats.FORMATS if f != "keen"])
def test_a_books_three_cell_minus_and_divide_round_trip_where_the_format_can_hold_them(fmt):
    from kkvision.puzzle import Puzzle
    from tests.test_solver import BOOK_5X5

    puzzle = Puzzle(5, BOOK_5X5)
    assert formats.read(formats.write(puzzle, fmt)) == puzzle


def test_keen_ids_refuse_a_books_three_cell_minus_by_name():
    from kkvision.puzzle import Puzzle
    from tests.test_solver import BOOK_5X5

    with pytest.raises(UnknownFormat, match="over more than two cells .*2/ at E1"):
        formats.write(Puzzle(5, BOOK_5X5), "keen")
