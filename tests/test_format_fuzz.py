"""Hostile and malformed text: every reader either returns a Puzzle or raises a
KkvisionError (exit 3 or 6), and does so quickly."""

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devtools.generate import random_puzzle
from kkvision import formats
from kkvision.cli import main
from kkvision.errors import ExitCode, KkvisionError
from kkvision.puzzle import Puzzle

READERS = (*formats.FORMATS, None)  # None: auto-detect
WRITABLE = {True: ("json", "letters", "names", "j"), False: formats.FORMATS}  # by hidden_ops
FAST = 1.0  # seconds one read may take
FUZZ = settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])

# pieces hostile texts are made of: the formats' own characters, and worse
PIECES = st.sampled_from(
    list("0123456789+-*/x%=!?#,:;_ \t\n\r{}[]\"adms rludABCIZaz")
    + ["\x00", "\u2028", "\x0c", "\ufeff", "−", "×", "÷", "٣", "１", "é", "\U0001f600", "Infinity", "NaN", "1e400"]
)
HOSTILE = st.lists(PIECES, max_size=120).map("".join)
NASTY = st.sampled_from(["\x00", "9" * 40, "9" * 5000, "-1", "0", "\u2028", "١٢", "NaN", "Infinity", "1e400",
                         "\n", "#", ",", " ", "true", "[]", "null", "3.5", "\U0001f600", "zz", "z9999999999"])


def _read(text: str, fmt: str | None) -> None:
    start = time.perf_counter()
    try:
        result = formats.read(text, fmt)
    except KkvisionError as exc:
        assert exc.exit_code in (ExitCode.INPUT, ExitCode.INVALID_PUZZLE), exc
        assert "\n" not in exc.message and "\r" not in exc.message, exc.message
        assert len(exc.message) < 400, exc.message
    else:
        assert isinstance(result, Puzzle)
    assert time.perf_counter() - start < FAST, (fmt, text[:80])


def _read_everyhow(text: str) -> None:
    for fmt in READERS:
        _read(text, fmt)


@st.composite
def puzzle_texts(draw: st.DrawFn) -> str:
    hidden = draw(st.booleans())
    fmt = draw(st.sampled_from(WRITABLE[hidden]))
    puzzle, _ = random_puzzle(draw(st.integers(3, 12)), draw(st.integers(0, 10**6)), unique=False,
                              hidden_ops=hidden)
    return formats.write(puzzle, fmt)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A valid puzzle text with a few characters or lines deleted, duplicated, replaced or inserted."""
    text = draw(puzzle_texts())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "duplicate", "replace", "insert", "truncate", "line"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "replace":
            text = text[:i] + draw(NASTY) + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.one_of(NASTY, st.lists(PIECES, max_size=6).map("".join))) + text[i:]
        elif kind == "truncate":
            text = text[:i]
        else:  # drop or repeat a whole line
            lines = text.splitlines(keepends=True)
            if lines:
                k = draw(st.integers(0, len(lines) - 1))
                lines[k:k + 1] = [] if draw(st.booleans()) else [lines[k]] * draw(st.integers(2, 300))
                text = "".join(lines)
    return text


@FUZZ
@given(HOSTILE)
def test_random_text_reads_or_fails_cleanly(text):
    _read_everyhow(text)


@FUZZ
@given(st.text(max_size=200))
def test_random_unicode_reads_or_fails_cleanly(text):
    _read_everyhow(text)


@FUZZ
@given(mutated())
def test_mutated_puzzle_text_reads_or_fails_cleanly(text):
    _read_everyhow(text)


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**15), 10**15), st.floats(), st.text(max_size=5)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["op", "target", "cells", "size"]),
                                                                inner, max_size=4),
    max_leaves=20,
)


@FUZZ
@given(st.integers(0, 10**6), st.integers(3, 9), st.sampled_from(["size", "op", "target", "cells", "cell", "cage"]),
       JSON_VALUES)
def test_json_with_any_value_in_any_field_reads_or_fails_cleanly(seed, n, field, value):
    puzzle, _ = random_puzzle(n, seed, unique=False)
    data = json.loads(formats.write(puzzle, "json"))
    cage = data["cages"][seed % len(data["cages"])]
    if field == "size":
        data["size"] = value
    elif field == "cage":
        data["cages"][0] = value
    elif field == "cell":
        cage["cells"][0] = value
    else:
        cage[field] = value
    _read(json.dumps(data), "json")  # Infinity/NaN are written as such, as Python and JavaScript do


# ------------------------------------------------ the cases, by name

JSON_CAGE = '{"size": 3, "cages": [{"op": "+", "target": TARGET, "cells": [[0, 0], [0, 1]]}]}'


@pytest.mark.parametrize("target", ["Infinity", "-Infinity", "NaN", "1e400", "2.5", '"5"', "true", "[5]", "null",
                                    "9" * 5000, "9" * 13])
def test_json_target_that_is_not_a_whole_number_names_the_field_and_cage(target):
    with pytest.raises(KkvisionError) as err:
        formats.read(JSON_CAGE.replace("TARGET", target))
    assert err.value.exit_code == ExitCode.INPUT
    if target != "9" * 5000:  # Python's JSON parser refuses that one itself
        assert "cages[0] 'target'" in err.value.message


@pytest.mark.parametrize("text, words", [
    ('{"size": 3, "cages": [{"op": "+", "target": 3}]}', ["cages[0]", "'cells'"]),
    ('{"size": 3, "cages": [{"op": "+", "target": 3, "cells": 5}]}', ["cages[0]", "'cells'"]),
    ('{"size": 3, "cages": [{"op": "+", "target": 3, "cells": [[0, 0, 1]]}]}', ["cages[0].cells[0]", "[row, col]"]),
    ('{"size": 3, "cages": [{"op": "+", "target": 3, "cells": [["0", 0]]}]}', ["cages[0].cells[0] row"]),
    ('{"size": "3", "cages": []}', ["'size'"]),
    ('{"size": 1e9, "cages": []}', ["'size'"]),
    ('{"size": 99999999999, "cages": []}', ["size 99999999999"]),
    ('{"cages": []}', ["'size'"]),
    ('{"size": 3}', ["'cages'"]),
    ('{"size": 3, "cages": {}}', ["'cages'"]),
    ('{"size": 3, "cages": [7]}', ["cages[0]"]),
    ('[1, 2]', ["object"]),
    ('{"size": 3, "cages": [{"op": 5, "target": 3, "cells": []}]}', ["cages[0]", "'op'"]),
])
def test_json_structure_errors_name_the_place(text, words):
    with pytest.raises(KkvisionError) as err:
        formats.read(text)
    for word in words:
        assert word in err.value.message


@pytest.mark.parametrize("fmt", READERS)
@pytest.mark.parametrize("text", ["", "   \n\t\n", "; a comment\n// another\n", "\ufeff"])
def test_empty_text_is_an_input_error_in_every_format(fmt, text):
    with pytest.raises(KkvisionError) as err:
        formats.read(text, fmt)
    assert err.value.exit_code == ExitCode.INPUT


def test_five_thousand_digit_target_says_how_long_a_number_may_be():
    with pytest.raises(KkvisionError) as err:
        formats.read("9" * 5000 + "+,0 1 2\n3,3\n")
    assert err.value.exit_code == ExitCode.INPUT and "more than 12" in err.value.message


def test_product_target_with_a_huge_prime_factor_is_refused_at_once():
    start = time.perf_counter()
    with pytest.raises(KkvisionError) as err:  # 999999999989 is prime
        formats.read("# 4\n* 999999999989 A1 A2 A3 A4 B1 B2 B3 B4 C1 C2 C3 C4 D1 D2 D3 D4\n")
    assert err.value.exit_code == ExitCode.INVALID_PUZZLE
    assert time.perf_counter() - start < FAST


# ------------------------------------------------------------ through the CLI

CLI_CASES = {
    "inf.json": ('{"size": 4, "cages": [{"op": "+", "target": Infinity, "cells": [[0, 0]]}]}', []),
    "nan.json": ('{"size": 4, "cages": [{"op": "*", "target": NaN, "cells": [[0, 0]]}]}', []),
    "nocells.json": ('{"size": 4, "cages": [{"op": "+", "target": 3}]}', []),
    "huge.j.txt": ("9" * 5000 + "+,0 1\n", []),
    "empty-shields.txt": ("", ["--format", "shields"]),
    "empty-names.txt": ("  \n\n", ["--format", "names"]),
    "empty.txt": ("", []),
    "nul.txt": ("# 3\n+ 3 A1\x00 B1\n", []),
    "lines.txt": ("4\n" + "8 * 0 0 rr\n" * 3 + "\u2028\n", ["--format", "shields"]),
    "walk.txt": ("4\n8 * 0 0 " + "r" * 100000 + "\n", []),
    "keen.txt": ("4:_999999999,a1", []),
    "overlap.names.txt": ("# 3\n+ 3 A1 A2\n+ 3 A2 A3\n", []),
}


@pytest.mark.parametrize("name", sorted(CLI_CASES))
def test_cli_nasty_text_exits_3_or_6_with_one_line(name, tmp_path, capsys):
    text, options = CLI_CASES[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code = main(["solve", str(path), *options])
    out, err = capsys.readouterr()
    assert code in (ExitCode.INPUT, ExitCode.INVALID_PUZZLE), err
    assert out == "" and err.count("\n") == 1 and err.startswith("kkvision: error: "), err
