"""kkvision: solve KenKen / Calcudoku puzzles from photos, scans, screenshots and text."""

__version__ = "0.1.0"
