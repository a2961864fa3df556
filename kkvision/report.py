"""Text and JSON renderings of results for stdout."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from .formats.jsonfmt import to_dict
from .puzzle import Grid, Puzzle
from .vocab import HIDDEN, cell_name

if TYPE_CHECKING:
    from .pipeline import Outcome
    from .vision.stages import LabelDecision


def grid_text(grid: Grid, marks: set[tuple[int, int]] | None = None, unsure: set[tuple[int, int]] | None = None) -> str:
    """Rows of digits; a marked cell is shown as `d!`, a blank (0) as '.', an
    unsure one (written, not read surely) as '?'."""
    marks, unsure = marks or set(), unsure or set()
    lines = []
    for r, row in enumerate(grid):
        cells = []
        for c, v in enumerate(row):
            s = "?" if (r, c) in unsure else "." if v == 0 else str(v)
            cells.append(s + ("!" if (r, c) in marks else (" " if marks else "")))
        lines.append(" ".join(cells).rstrip())
    return "\n".join(lines)


SCHEMA = "kkvision/1"  # the version of the JSON records below; changes when a field changes meaning
RECORD_FIELDS = ("schema", "command", "input", "index", "box", "ok", "exit_code", "error", "puzzle", "solution", "unique",
                 "labels", "odds", "notes", "decide", "undetermined", "image", "wrong", "blank", "unsure", "pencil", "text", "hints",
                 "seconds")


def record(command: str, input: str, *, exit_code: int = 0, error: str | None = None, puzzle: Puzzle | None = None,
           solution: Grid | None = None, unique: bool | None = None, **extra: Any) -> dict[str, Any]:
    """One JSON record: every command (solve, check, convert) and every failure
    gives the same fields, null where they do not apply (README: JSON output)."""
    data: dict[str, Any] = dict.fromkeys(RECORD_FIELDS)
    data.update(schema=SCHEMA, command=command, input=input, ok=exit_code == 0, exit_code=int(exit_code),
                error=error, puzzle=to_dict(puzzle) if puzzle is not None else None,
                solution=[list(r) for r in solution] if solution else None, unique=unique, notes=[])
    unknown = set(extra) - set(RECORD_FIELDS)
    if unknown:
        raise ValueError(f"not fields of a record: {sorted(unknown)}")
    data.update(extra)
    return data


def dump(data: dict[str, Any], one_line: bool) -> str:
    return json.dumps(data, indent=None if one_line else 1)


def outcome_record(command: str, input: str, outcome: Outcome, **extra: Any) -> dict[str, Any]:
    """The record of one puzzle of a source: its answer, or why there is none;
    a picture's puzzle with its place (index, box), labels and odds."""
    where: dict[str, Any] = {} if outcome.index is None else {"index": outcome.index}
    if outcome.error is not None:
        if outcome.error.cells:
            where["decide"] = [cell_name(c) for c in outcome.error.cells]
        return record(command, input, exit_code=outcome.error.exit_code, error=outcome.error.message, **where, **extra)
    result = outcome.result
    assert result is not None  # an Outcome holds one of the two
    if result.geometry is not None:
        box = outcome.box
        where.update(labels=labels_json(result.labels), odds=odds_times(result.odds), box=list(box) if box else None)
    solution = result.solution
    if result.undetermined:  # check read in part: those cells' digits are not known (0)
        solution = tuple(tuple(0 if (r, c) in result.undetermined else d for c, d in enumerate(row))
                         for r, row in enumerate(solution))
        where["undetermined"] = [cell_name(c) for c in sorted(result.undetermined)]
    fields = dict(solution=solution, unique=result.unique, notes=list(result.notes), **where)
    fields.update(extra)
    data = record(command, input, puzzle=result.puzzle, **fields)
    hidden = result.freed
    for cage in data["puzzle"]["cages"] if hidden else ():  # not read: what they say is not known
        if tuple(cage["cells"][0]) in hidden:
            cage.update(op=None, target=None)
    return data


def odds_times(nats: float | None) -> float | None:
    """Odds in nats as 'times more probable' (None: no rival found within the search)."""
    return None if nats is None or math.isinf(nats) else round(math.exp(nats), 1)


def labels_json(labels: tuple[LabelDecision, ...]) -> list[dict[str, Any]]:
    """Each cage label read from a picture: what the reader saw first and how
    sure it was, the clue the answer uses, and whether that was 'read' as is,
    'changed' to another of its readings, 'not read' (solved without) or 'given'."""
    return [{"cell": cell_name(lb.cells[0]), "read": lb.read, "probability": round(lb.read_probability, 4),
             "used": None if lb.how == HIDDEN else lb.used.label, "used_probability": round(lb.used_probability, 4),
             "how": lb.how}
            for lb in labels]


REPORT_COLUMNS = ("input", "index", "ok", "exit_code", "error", "size", "solution", "odds", "notes", "image", "seconds")


def report_row(rec: dict[str, Any]) -> dict[str, Any]:
    """A record as one row of a --report file (CSV or JSON Lines)."""
    solution = rec.get("solution")
    return {"input": rec["input"], "index": rec.get("index"), "ok": rec["ok"], "exit_code": rec["exit_code"], "error": rec["error"],
            "size": (rec.get("puzzle") or {}).get("size"),
            "solution": "/".join("".join(map(str, row)) for row in solution) if solution else None,
            "odds": rec.get("odds"), "notes": " | ".join(rec.get("notes") or []), "image": rec.get("image"),
            "seconds": rec.get("seconds")}
