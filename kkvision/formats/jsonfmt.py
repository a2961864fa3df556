"""JSON: {"size": n, "cages": [{"op", "target", "cells": [[row, col], ...]}]}."""

from __future__ import annotations

import json
from typing import Any

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import check_size, json_int, make_puzzle, op_from, shown

_FMT = "JSON puzzle"


def looks_like(text: str) -> bool:
    return text.lstrip().startswith(("{", "["))  # a list is refused by read() with a clear message


def _first_line(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return lines[0] if lines else type(exc).__name__


def _field(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise UnknownFormat(f"{_FMT}: {where} has no {key!r} field")
    return obj[key]


def _cell(value: Any, where: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2):
        raise UnknownFormat(f"{_FMT}: {where}: a cell must be a [row, col] pair, found {shown(value)}")
    return json_int(value[0], f"{_FMT}: {where} row"), json_int(value[1], f"{_FMT}: {where} column")


def _cage(obj: Any, k: int, n: int) -> Cage:
    where = f"cages[{k}]"
    if not isinstance(obj, dict):
        raise UnknownFormat(f"{_FMT}: {where} must be an object with op, target and cells, found {shown(obj)}")
    op = _field(obj, "op", where)
    if not isinstance(op, str):
        raise UnknownFormat(f"{_FMT}: {where} 'op' must be a string like \"+\", found {shown(op)}")
    target = json_int(_field(obj, "target", where), f"{_FMT}: {where} 'target'")
    cells = _field(obj, "cells", where)
    if not isinstance(cells, list):
        raise UnknownFormat(f"{_FMT}: {where} 'cells' must be a list of [row, col] pairs, found {shown(cells)}")
    if len(cells) > n * n:
        raise UnknownFormat(f"{_FMT}: {where} lists {len(cells)} cells; a {n}x{n} grid has {n * n}")
    return Cage(op_from(op, f"{_FMT}: {where}"), target,
                tuple(_cell(c, f"{where}.cells[{i}]") for i, c in enumerate(cells)))


def read(text: str) -> Puzzle:
    if not text.strip():
        raise UnknownFormat(f"{_FMT}: the text is empty")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        # ValueError covers JSONDecodeError and numbers past Python's digit limit
        raise UnknownFormat(f"{_FMT}: not valid JSON ({_first_line(exc)})") from None
    if not isinstance(data, dict):
        raise UnknownFormat(f"{_FMT}: the text must be an object with size and cages, found {shown(data)}")
    n = check_size(json_int(_field(data, "size", "the puzzle"), f"{_FMT}: 'size'"), _FMT)
    cages = _field(data, "cages", "the puzzle")
    if not isinstance(cages, list):
        raise UnknownFormat(f"{_FMT}: 'cages' must be a list of cages, found {shown(cages)}")
    if len(cages) > n * n:
        raise UnknownFormat(f"{_FMT}: {len(cages)} cages; a {n}x{n} grid has only {n * n} cells")
    return make_puzzle(n, [_cage(c, k, n) for k, c in enumerate(cages)], _FMT)


def to_dict(puzzle: Puzzle) -> dict:
    return {
        "size": puzzle.size,
        "cages": [
            {"op": c.op, "target": c.target, "cells": [list(cell) for cell in c.cells]}
            for c in puzzle.cages
        ],
    }


def write(puzzle: Puzzle) -> str:
    return json.dumps(to_dict(puzzle), indent=1) + "\n"
