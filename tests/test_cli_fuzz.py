"""The command line fuzzed (issue 18): random commands, option values and paths (names
that are not UTF-8, files where folders are expected and the reverse, read-only
folders, devices, missing places) always end with a documented exit code, without
a traceback or an internal error, and leave every file there was as it was (the user's,
and what earlier runs wrote), adding none but kkvision's own outputs.  bench/fuzz.py
does the same for hostile file contents, thousands at a time."""

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kkvision.cli import BROKEN_PIPE, main
from kkvision.errors import ExitCode
from kkvision.sources import is_own

DOCUMENTED = {int(code) for code in ExitCode} - {int(ExitCode.SOFTWARE)} | {130, BROKEN_PIPE}
NAMES = [b"p.png", b"kk0.j.txt", b"\xffodd.png", b"dir", b"empty", b"missing.png", b"ro", b"ro/p.png", b"notes.txt",
         b"dir/p.png", b"/dev/null", b"/dev/zero", b"new/out", b"out.png", b"out.jpg", b"out.txt", b"\xff/x.png",
         b"notes.txt/x.png", b"-"]
NUMBERS = ["0", "1", "-1", "2", "5", "3.5", "1e9", "nan", "inf", "-0", "x", "", "99999999999999999999"]
LABELS = ["A1=3", "A1=12+", "B2=7x", "Z9=1", "A1=", "=", "1:A1=2", "0:A1=2", "A1=99999999999*", "A1=3\xff", "a1 = 4 -"]


@pytest.fixture
def place(tmp_path, samples):
    """A folder with the user's files: pictures and texts, a folder, an empty one, a read-only one."""
    root = tmp_path
    shutil.copy(samples / "screenshot-5x5.png", root / "p.png")
    shutil.copy(samples / "kk0.j.txt", root / "kk0.j.txt")
    shutil.copy(samples / "screenshot-5x5.png", os.fsdecode(os.fsencode(root) + b"/\xffodd.png"))
    (root / "notes.txt").write_text("the user's own notes\n")
    (root / "dir").mkdir()
    shutil.copy(samples / "screenshot-5x5.png", root / "dir" / "p.png")
    (root / "empty").mkdir()
    (root / "ro").mkdir()
    shutil.copy(samples / "screenshot-5x5.png", root / "ro" / "p.png")
    (root / "ro").chmod(0o555)
    yield root
    (root / "ro").chmod(0o755)


def files(root: Path) -> dict[bytes, tuple[str, int]]:
    """Every file below root, by name, with a hash of its bytes and when it was written (a file written
    over with the same bytes is written over all the same)."""
    out = {}
    for folder, _, names in os.walk(os.fsencode(root)):
        for name in names:
            path = os.path.join(folder, name)
            out[path] = hashlib.sha256(open(path, "rb").read()).hexdigest(), os.stat(path).st_mtime_ns
    return out


def new_but_documented(path: bytes, argv: list[str], root: Path) -> bool:
    """A file a run may add: kkvision's own picture (NAME.solved.png ...; --debug-dir's 01_grid.png ...,
    wherever that names), or the file -o or --report names."""
    named = [os.path.join(os.fsencode(root), os.fsencode(value)) for option, value in zip(argv, argv[1:])
             if option in ("-o", "--report")]
    return is_own(os.fsdecode(os.path.basename(path))) or path in named


def path_arg(root: Path, name: bytes) -> str:
    return os.fsdecode(name if name.startswith(b"/") or name == b"-" else os.fsencode(root) + b"/" + name)


@st.composite
def command_lines(draw, root: Path) -> list[str]:
    name = st.sampled_from(NAMES)
    number = st.one_of(st.sampled_from(["1", "2", "5", "20"]), st.sampled_from(NUMBERS))  # fit, or odd
    command = draw(st.sampled_from(["solve", "check", "hint", "convert"]))
    args = [command, path_arg(root, draw(name))]
    if command == "solve":
        args += [path_arg(root, n) for n in draw(st.lists(name, max_size=2))]
    if command == "check" and draw(st.booleans()):
        args.append(path_arg(root, draw(name)))
    options = {
        "-o": name, "--debug-dir": name, "--time-limit": number, "--puzzle": number,
        "--label": st.sampled_from(LABELS), "--ocr": st.sampled_from(["model", "tesseract", "auto", "none", ""]),
        "--dpi": number, "--max-pixels": number,
        "--format": st.sampled_from(["keen", "json", "letters", "nope"]),
    }
    if command != "convert":
        options["--jobs"] = st.sampled_from(["1", "2", "0", "-3", "x"])
    if command == "solve":
        options |= {"--output-dir": name, "--report": name}
    if command == "hint":
        options["--cells"] = number
    if command == "convert":  # its --to is required: given, mostly a format it has
        args += ["--to", draw(st.sampled_from(["keen", "json", "letters", "shields", "nope"]))]
    for option in draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True)):
        value = draw(options[option])
        args += [option, path_arg(root, value) if isinstance(value, bytes) else value]
    args += draw(st.lists(st.sampled_from(["--json", "--no-image", "-q"]), max_size=2, unique=True))
    return args


def run(argv: list[str], capfd, stdin: bytes) -> tuple[int, str]:
    import io
    import sys

    real = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))  # '-' reads a picture from standard input
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refusing the command line
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdin = real
    return code, capfd.readouterr().err


def test_random_command_lines_end_with_a_documented_exit_code_and_leave_the_users_files(place, capfd, monkeypatch):
    monkeypatch.chdir(place)  # '-' given where a folder goes is made here, not in the checkout
    stdin = (place / "p.png").read_bytes()

    @settings(max_examples=80, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(command_lines(place))
    # a folder of inputs that is the debug folder too: its debug pictures are never read as inputs, and
    # a later run's never go over them (one input alone, then several, then one alone again)
    @example(["check", str(place / "dir" / "p.png"), "--debug-dir", str(place / "dir")])
    @example(["hint", str(place / "dir"), "--debug-dir", str(place / "dir"), "--jobs", "2"])
    @example(["solve", str(place / "dir" / "p.png"), "--debug-dir", str(place / "dir")])
    def one(argv):
        before = files(place)
        code, err = run(argv, capfd, stdin)
        after = files(place)
        assert code in DOCUMENTED, (argv, code, err)
        assert "Traceback" not in err and "internal error" not in err, (argv, err)
        if code not in (0, int(ExitCode.ANSWERS_WRONG)):
            assert "error:" in err, (argv, code, err)  # said why, on stderr
        assert {path: after.get(path) for path in before} == before, f"{argv} changed, removed or wrote over a file"
        added = [path for path in after if path not in before and not new_but_documented(path, argv, place)]
        assert not added, f"{argv} wrote {added}, none of kkvision's documented outputs"

    one()
