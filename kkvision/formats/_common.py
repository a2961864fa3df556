"""Helpers shared by the format readers.

Every reader goes through these for the things hostile text can get wrong:
numbers (`to_int`, `json_int`: at most MAX_DIGITS digits), an empty text
(`content_lines`), tokens quoted in messages (`shown`: short, one line) and
building the puzzle (`make_puzzle`: size bounded before any work).
"""

from __future__ import annotations

import math
import re

from ..errors import InvalidPuzzle, UnknownFormat
from ..puzzle import Cage, Puzzle
from ..vocab import MAX_DIGITS, MAX_SIZE, MIN_SIZE, SPELLINGS

# Every operator spelling (vocab.SPELLINGS), and the texts' own ways of saying
# "a single cell's digit" ('=', '!', nothing) or "hidden" ('?'); '%' is the J
# essay's division.
OP_ALIASES = {**SPELLINGS, "%": "/", "=": "=", "!": "=", "": "=", "?": "?"}

# The one-character spellings, as a regex character class for the readers' patterns.
OP_CHARS = "[" + "".join(re.escape(k) for k in OP_ALIASES if len(k) == 1) + "]"

_SHOWN = 40  # longest token quoted in a message


def shown(token: object) -> str:
    """`token` quoted for a one-line message, cut to a readable length."""
    text = repr(token)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 5] + "...'" + f" ({len(str(token))} chars)"


def op_from(token: str, where: str) -> str:
    if token in OP_ALIASES:
        return OP_ALIASES[token]
    raise UnknownFormat(f"{where}: unknown operator {shown(token)}")


def lines_of(text: str) -> list[str]:
    """Non-empty lines with comments (`;` or `//` prefix) removed."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith((";", "//")):
            out.append(line)
    return out


def content_lines(text: str, fmt: str) -> list[str]:
    """`lines_of(text)`, refusing a text with nothing in it."""
    lines = lines_of(text)
    if not lines:
        raise UnknownFormat(f"{fmt}: the text is empty (no puzzle lines, only blanks or comments)")
    return lines


def to_int(token: str, where: str) -> int:
    """A non-negative decimal number of at most MAX_DIGITS ASCII digits."""
    token = token.strip()
    if not (token.isascii() and token.isdigit()):
        raise UnknownFormat(f"{where}: expected a number, found {shown(token)}")
    if len(token.lstrip("0")) > MAX_DIGITS:
        raise UnknownFormat(
            f"{where}: number with {len(token)} digits; no KenKen number has more than {MAX_DIGITS}"
        )
    return int(token)


def json_int(value: object, where: str) -> int:
    """A JSON value that must be a whole number (not a bool, float, string...)."""
    if isinstance(value, bool) or not isinstance(value, int):
        kind = {bool: "a boolean", str: "a string", list: "a list", dict: "an object",
                type(None): "null"}.get(type(value), type(value).__name__)
        if isinstance(value, float):
            kind = "a decimal number" if math.isfinite(value) else "a non-finite number"
        raise UnknownFormat(f"{where} must be a whole number, found {kind} {shown(value)}")
    if abs(value) >= 10**MAX_DIGITS:
        raise UnknownFormat(f"{where}: number with more than {MAX_DIGITS} digits;"
                            f" no KenKen number is that long")
    return value


def check_size(n: int, where: str) -> int:
    """The grid size, refused early (before a reader builds n*n anything)."""
    if not MIN_SIZE <= n <= MAX_SIZE:
        raise InvalidPuzzle(f"{where}: size {n} is outside {MIN_SIZE}..{MAX_SIZE}")
    return n


def _has_big_prime(target: int, n: int) -> bool:
    """Does `target` have a prime factor above n (so no digits 1..n multiply to it)?"""
    for p in range(2, n + 1):
        while target % p == 0:
            target //= p
    return target > 1


def make_puzzle(n: int, cages: list[Cage] | tuple[Cage, ...], where: str) -> Puzzle:
    """Puzzle(n, cages), first refusing products no digits 1..n can make.

    Puzzle's own check factors a product target by trial division up to the
    target itself: a 12-digit prime would take hours.  Dividing out only the
    primes up to n answers the same question at once.
    """
    check_size(n, where)
    for cage in cages:
        k, t = len(cage.cells), cage.target
        only_product = cage.op == "*" or (cage.op == "?" and k > 1 and t > max(k * n, n))
        if only_product and t > 0 and _has_big_prime(t, n):
            raise InvalidPuzzle(
                f"cage {cage.label} at {cage.where}: no digits 1..{n} in {k} cells give {t} with *"
                f" ({t} has a prime factor above {n})"
            )
    return Puzzle(n, tuple(cages))
