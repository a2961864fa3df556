"""kkvision's one vocabulary: sizes, operators, labels, cell names, output kinds.

Every reader, writer and message takes these from here, so a text file, a
`--label`, the label network and the picture drawn all mean the same thing.

Glossary (used throughout kkvision):
  size    n, the grid is n x n and holds the digits 1..n
  cell    (row, col), both 0-based, row 0 at the top
  name    a cell's name in messages: column letter, row number ('A1' top-left, 'B3' column 2, row 3)
  cage    a connected group of cells with an operator and a target
  op      '+', '-', '*', '/', '=' (single cell, the target is the digit)
          or '?' (hidden operator: any of + - * / that fits the cage)
  target  the number printed in the cage's top-left cell
  label   what is printed there: the target and its operator ('12+', '3', '2÷')
  grid    a solution: tuple of n rows, each a tuple of n digits
  anchor  a cage's top-left cell: first in row-major order, where the label is
"""

from __future__ import annotations

import re

Cell = tuple[int, int]

MIN_SIZE, MAX_SIZE = 3, 12  # puzzle texts: the sizes published puzzles come in
PICTURE_SIZES = range(3, 10)  # grids the vision looks for (every real picture seen is 3x3..9x9)

OPS = ("+", "-", "*", "/", "=", "?")
ARITHMETIC = "+-*/"  # the operators a label can print
# Every spelling of an operator seen in print, on screens and in texts, and the model's operator it means.
SPELLINGS = {
    "+": "+", "＋": "+",
    "-": "-", "−": "-", "–": "-", "—": "-", "‒": "-", "﹣": "-", "－": "-",
    "*": "*", "x": "*", "X": "*", "×": "*", "✕": "*", "·": "*", "∙": "*", "⋅": "*", "＊": "*",
    "/": "/", "÷": "/", "∕": "/", "／": "/",
}
# how a label was taken by check reading a grid in part: not read, free (under a player's written answer, or read two
# ways each with its own grid)
# (LabelDecision.how; reading.resolve_in_part)
HIDDEN = "hidden"
DISPLAY = {"+": "+", "-": "−", "*": "×", "/": "÷", "=": "", "?": ""}  # how kkvision prints an operator
MAX_DIGITS = 12  # no KenKen target is longer (a 12-cell product of 12s has 13 digits; real ones far fewer)

LABEL = re.compile(rf"^\s*([0-9]{{1,{MAX_DIGITS}}})\s*({'|'.join(map(re.escape, SPELLINGS))})?\s*$")
CELL_NAME = re.compile(r"^\s*([A-Za-z])([1-9][0-9]?)\s*$")

LABEL_READERS = ("model", "tesseract")  # --ocr: the label readers (vision/readers.py), the default first
READER_ALIASES = {"auto": "model", "glyphs": "model"}  # older names of the default reader
OUTPUT_KINDS = ("solved", "checked", "hint")  # the pictures kkvision writes: INPUT.<kind>.png
OUTPUT_NAME = re.compile(rf"\.({'|'.join(OUTPUT_KINDS)})(-\d+)?\.(png|jpe?g|webp)$", re.IGNORECASE)
# --debug-dir's pictures of one puzzle (vision/debug.py writes them by these names: the search's frames, then
# each stage), the folder of each puzzle of a page of several (vision/read.py: DEBUG_PUZZLE_FOLDER.format(k)),
# and of each look at the picture after the first that found grids (read.py: DEBUG_LOOK_FOLDER.format(j))
DEBUG_PICTURES = ("00_search.png", "01_grid.png", "02_warped.png", "03_contents.png", "04_cages.png", "05_clues.png")
DEBUG_PUZZLE_FOLDER = "puzzle-{}"
DEBUG_LOOK_FOLDER = "look-{}"
DEBUG_PUZZLE = re.compile(r"^(puzzle|look)-\d+$")


def operator(spelling: str) -> str | None:
    """The model's operator a spelling means ('×' -> '*'), or None."""
    return SPELLINGS.get(spelling)


def label_parts(text: str, ncells: int) -> tuple[str, int | None]:
    """The label grammar: '12+' -> ('+', 12), '12×' -> ('*', 12); a bare number
    is '=' on one cell and '?' (hidden) on several; '-' and '/' over more than
    two cells are a puzzle book's (the largest digit less, or over, the others);
    no digits -> target None."""
    text = text.strip()
    op = ""
    if text and text[-1] in SPELLINGS:
        op, text = SPELLINGS[text[-1]], text[:-1]
    digits = "".join(ch for ch in text if "0" <= ch <= "9")
    target = int(digits) if digits and len(digits) <= MAX_DIGITS else None
    if ncells == 1:
        return "=", target
    return (op or "?"), target


def label_text(op: str, target: int) -> str:
    """The plain label of a clue: '12+', '3' (a single cell's digit), '6?' (hidden operator)."""
    return str(target) if op == "=" else f"{target}{op}"


def label_display(op: str, target: int) -> str:
    """The label as kkvision draws it: '12×', '2÷', '3−'."""
    return f"{target}{DISPLAY[op]}"


def canonical_label(text: str) -> str | None:
    """A label as typed by a user or a text ('12X', '12 ×', '3—') in the model's
    spelling ('12*', '3-'), or None when it is not a label."""
    m = LABEL.match(text)
    if not m:
        return None
    return str(int(m[1])) + (SPELLINGS[m[2]] if m[2] else "")


def cell_name(cell: Cell) -> str:
    """Spreadsheet-style name: column letter, row number ('A1' is top-left);
    a cell outside any grid (in a bad puzzle's message) as (row, col), 0-based."""
    r, c = cell
    if not (0 <= c < 26 and 0 <= r < 10**6):
        return f"(row {r}, col {c})"
    return f"{chr(ord('A') + c)}{r + 1}"


def column_name(col: int) -> str:
    return chr(ord("A") + col) if 0 <= col < 26 else str(col + 1)


def parse_cell(name: str) -> Cell | None:
    """'B3' -> (2, 1): the inverse of cell_name; None when it is not a cell name."""
    m = CELL_NAME.match(name)
    if not m:
        return None
    return int(m[2]) - 1, ord(m[1].upper()) - ord("A")


def output_name(stem: str, kind: str, k: int = 1, suffix: str = ".png") -> str:
    """The name of an output picture: 'photo.solved.png', then 'photo.solved-2.png' ..."""
    if kind not in OUTPUT_KINDS:
        raise ValueError(f"not an output kind: {kind!r}")
    return f"{stem}.{kind}{'' if k == 1 else f'-{k}'}{suffix}"
