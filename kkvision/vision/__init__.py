"""The vision: a picture -> what was read from each puzzle grid in it (read.py runs the stages;
stages.py holds what they hand each other).  Importing this package is light: the
stages load when first used."""

from __future__ import annotations

from typing import Any

__all__ = ["decode", "read_grid", "read_page"]


def __getattr__(name: str) -> Any:
    if name == "decode":
        from .picture import decode

        return decode
    if name in __all__:
        from . import read

        return getattr(read, name)
    raise AttributeError(f"module 'kkvision.vision' has no attribute {name!r}")
