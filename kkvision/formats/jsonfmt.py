"""JSON: {"size": n, "cages": [{"op", "target", "cells": [[row, col], ...]}]}."""

from __future__ import annotations

import json

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import op_from


def looks_like(text: str) -> bool:
    return text.lstrip().startswith("{")


def read(text: str) -> Puzzle:
    try:
        data = json.loads(text)
        cages = tuple(
            Cage(op_from(str(c["op"]), "json"), int(c["target"]),
                 tuple((int(r), int(col)) for r, col in c["cells"]))
            for c in data["cages"]
        )
        return Puzzle(int(data["size"]), cages)
    except (ValueError, KeyError, TypeError) as exc:
        raise UnknownFormat(f"not a kkvision JSON puzzle: {exc}") from None


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
