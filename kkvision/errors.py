"""Every way kkvision can fail, each with its own process exit code.

Library code raises these; only the CLI turns them into messages and exit
codes (see ``cli.main``).  Match errors by class, never by message text.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    SOFTWARE = 1  # a bug: unexpected exception
    USAGE = 2  # bad command line (argparse uses 2 too)
    INPUT = 3  # file missing, not an image, not a known puzzle format
    NO_GRID = 4  # no puzzle grid found in the image
    CLUE_UNREADABLE = 5  # a cage label could not be read
    INVALID_PUZZLE = 6  # cages overlap, leave gaps, impossible targets...
    UNSOLVABLE = 7  # no grid satisfies the puzzle
    AMBIGUOUS = 8  # more than one grid satisfies the puzzle
    MISSING_DEPENDENCY = 9  # tesseract binary or a Python package missing
    OUTPUT_EXISTS = 10  # refusing to overwrite a file
    ANSWERS_WRONG = 11  # `check`: some of the user's answers are wrong
    TIMEOUT = 12  # the solver found no answer within --time-limit
    UNCERTAIN = 13  # labels read from a picture could mean different puzzles with different solutions
    OUTPUT = 14  # an output cannot be written: a read-only folder, a file where a folder is needed, disk full
    ANSWERS_UNSURE = 15  # `check`: no wrong answer found, but some written cells could not be read surely


class KkvisionError(Exception):
    """Base class: carries an exit code and a message for the user."""

    exit_code: ExitCode = ExitCode.SOFTWARE

    def __init__(self, message: str, cells: tuple[tuple[int, int], ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.cells = cells  # a picture refused for its labels: the first cells of the cages whose labels decide


class UsageError(KkvisionError):
    """The command line asks for something that cannot be done (found before any work)."""

    exit_code = ExitCode.USAGE


class LabelNotACage(UsageError):
    """--label names a cell where no cage starts, as the picture was read."""


class InputError(KkvisionError):
    exit_code = ExitCode.INPUT


class InputImageError(InputError):
    """The file is not an image we can decode."""


class UnknownFormat(InputError):
    """Text input in none of the supported puzzle formats."""


class GridNotFound(KkvisionError):
    exit_code = ExitCode.NO_GRID


class ClueUnreadable(KkvisionError):
    exit_code = ExitCode.CLUE_UNREADABLE


class InvalidPuzzle(KkvisionError):
    exit_code = ExitCode.INVALID_PUZZLE


class Unsolvable(KkvisionError):
    exit_code = ExitCode.UNSOLVABLE


class Ambiguous(KkvisionError):
    exit_code = ExitCode.AMBIGUOUS


class UncertainReading(KkvisionError):
    """Two readings of a picture's labels, nearly as likely, give different solutions."""

    exit_code = ExitCode.UNCERTAIN


class SolverTimeout(KkvisionError):
    exit_code = ExitCode.TIMEOUT


class MissingDependency(KkvisionError):
    exit_code = ExitCode.MISSING_DEPENDENCY


class OutputExists(KkvisionError):
    exit_code = ExitCode.OUTPUT_EXISTS


class OutputError(KkvisionError):
    """An output (picture, debug pictures, report) cannot be written where it was asked for."""

    exit_code = ExitCode.OUTPUT
