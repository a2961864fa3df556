"""Helpers shared by the format readers."""

from __future__ import annotations

from ..errors import UnknownFormat

# Operator spellings seen in the wild, mapped to the model's operators.
OP_ALIASES = {
    "+": "+", "-": "-", "−": "-", "–": "-",
    "*": "*", "x": "*", "X": "*", "×": "*",
    "/": "/", "÷": "/", "%": "/",
    "=": "=", "!": "=", "": "=", "?": "?",
}


def op_from(token: str, where: str) -> str:
    if token in OP_ALIASES:
        return OP_ALIASES[token]
    raise UnknownFormat(f"{where}: unknown operator {token!r}")


def lines_of(text: str) -> list[str]:
    """Non-empty lines with comments (`;` or `//` prefix) removed."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith((";", "//")):
            out.append(line)
    return out


def to_int(token: str, where: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise UnknownFormat(f"{where}: expected a number, found {token!r}") from None
