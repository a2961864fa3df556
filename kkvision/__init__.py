"""kkvision: solve KenKen / Calcudoku puzzles from photos, scans, screenshots and text.

The library API is `solve_image`, `solve_puzzles` and `solve_text` (kkvision.api), loaded on
first use so that importing kkvision stays light.
"""

from typing import Any

__version__ = "0.1.0"
__all__ = ["Outcome", "Result", "__version__", "solve_image", "solve_puzzles", "solve_text"]


def __getattr__(name: str) -> Any:
    if name in ("solve_image", "solve_puzzles", "solve_text", "Result", "Outcome"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'kkvision' has no attribute {name!r}")
