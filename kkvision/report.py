"""Text and JSON renderings of results for stdout."""

from __future__ import annotations

import json
from typing import Any

from .formats.jsonfmt import to_dict
from .puzzle import Grid, Puzzle


def grid_text(grid: Grid, marks: set[tuple[int, int]] | None = None) -> str:
    """Rows of digits; a marked cell is shown as `d!`, a blank (0) as '.'."""
    marks = marks or set()
    lines = []
    for r, row in enumerate(grid):
        cells = []
        for c, v in enumerate(row):
            s = "." if v == 0 else str(v)
            cells.append(s + ("!" if (r, c) in marks else (" " if marks else "")))
        lines.append(" ".join(cells).rstrip())
    return "\n".join(lines)


def result_json(puzzle: Puzzle, grid: Grid | None, unique: bool | None, indent: int | None = 1,
                **extra: Any) -> str:
    """One JSON object; indent=None gives one line per result (JSON Lines for batches)."""
    data: dict[str, Any] = {"puzzle": to_dict(puzzle), "solution": [list(r) for r in grid] if grid else None,
                            "unique": unique}
    data.update(extra)
    return json.dumps(data, indent=indent)


def labels_json(labels: Any) -> list[dict[str, Any]]:
    """Each cage label read from a picture: what the reader saw first and how
    sure it was, the clue the answer uses, and whether that was 'read' as is,
    'changed' to another of its readings, or 'not read' (solved without)."""
    from .puzzle import cell_name

    return [{"cell": cell_name(lb.cells[0]), "read": lb.read, "probability": round(lb.read_probability, 4),
             "used": lb.used.label, "used_probability": round(lb.used_probability, 4), "how": lb.how}
            for lb in labels]
