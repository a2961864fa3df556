"""The one front door: every command and the library read every puzzle of a
source the same way (pipeline.read_source), --puzzle picks one, --label goes
to the puzzle it names, and the vocabulary means the same everywhere."""

import ast
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from kkvision import formats, solve_image, solve_puzzles
from kkvision.cli import main, parse_label
from kkvision.errors import ExitCode, UsageError
from kkvision.vision.readers import READERS
from kkvision.vocab import LABEL_READERS, OUTPUT_NAME, canonical_label, cell_name, label_parts, parse_cell

PACKAGE = Path(__file__).resolve().parents[1] / "kkvision"
LEFT, RIGHT = "nyt-2009-02-13", "clean-8x8"  # the page's puzzles in reading order


@pytest.fixture(scope="module")
def two_puzzle_page(tmp_path_factory) -> Path:
    """Two sample puzzles side by side on one white page."""
    samples = Path(__file__).resolve().parents[1] / "samples"
    left, right = (cv2.imread(str(samples / f"{name}.png")) for name in (LEFT, RIGHT))
    page = np.full((1000, left.shape[1] + right.shape[1] + 180, 3), 250, np.uint8)
    page[40:40 + left.shape[0], 60:60 + left.shape[1]] = left
    x = 120 + left.shape[1]
    page[60:60 + right.shape[0], x:x + right.shape[1]] = right
    path = tmp_path_factory.mktemp("page") / "page.png"
    cv2.imwrite(str(path), page)
    return path


def expected(name: str) -> dict:
    return json.loads((Path(__file__).resolve().parents[1] / "samples" / f"{name}.expected.json").read_text())


def records(capsys) -> list[dict]:
    """The JSON records a command printed (one per puzzle, indented JSON objects one after another)."""
    out, decoder, found = capsys.readouterr().out, json.JSONDecoder(), []
    i = 0
    while i < len(out):
        if out[i].isspace():
            i += 1
            continue
        rec, i = decoder.raw_decode(out, i)
        found.append(rec)
    return found


@pytest.mark.parametrize("command", [["solve"], ["check"], ["hint"], ["convert", "--to", "json"]])
def test_every_command_gives_a_record_per_puzzle_of_a_page(two_puzzle_page, capsys, command):
    code = main([*command, "--json", *(["--no-image"] if command[0] != "convert" else []), str(two_puzzle_page)])
    recs = records(capsys)
    assert code == 0
    assert [r["index"] for r in recs] == [1, 2]
    assert [r["puzzle"]["size"] for r in recs] == [4, 8]
    assert all(r["command"] == command[0] and r["ok"] for r in recs)
    if command[0] == "solve":
        assert [r["solution"] for r in recs] == [expected(LEFT)["solution"], expected(RIGHT)["solution"]]
    if command[0] == "check":  # nothing written in: every cell blank, nothing wrong
        assert [len(r["blank"]) for r in recs] == [16, 64] and all(r["wrong"] == [] for r in recs)


@pytest.mark.parametrize("command", [["solve"], ["check"], ["hint"], ["convert", "--to", "json"]])
def test_puzzle_2_gives_the_second_puzzle_alone(two_puzzle_page, capsys, command):
    code = main([*command, "--json", "--puzzle", "2", *(["--no-image"] if command[0] != "convert" else []),
                 str(two_puzzle_page)])
    recs = records(capsys)
    assert code == 0
    assert len(recs) == 1 and recs[0]["puzzle"]["size"] == 8
    if command[0] == "solve":
        assert recs[0]["solution"] == expected(RIGHT)["solution"]


def test_a_puzzle_the_page_does_not_hold_is_a_usage_error(two_puzzle_page, capsys):
    assert main(["solve", "--no-image", "--puzzle", "3", str(two_puzzle_page)]) == ExitCode.USAGE
    assert "holds 2 puzzles" in capsys.readouterr().err


def test_a_label_goes_to_the_puzzle_it_names(two_puzzle_page, capsys):
    first = expected(LEFT)["puzzle"]["cages"][0]
    cell = cell_name(tuple(first["cells"][0]))
    label = f"{first['target']}{'' if first['op'] == '=' else first['op']}"
    assert main(["solve", "--json", "--no-image", str(two_puzzle_page), "--label", f"1:{cell}={label}"]) == 0
    recs = records(capsys)
    hows = [{lb["cell"]: lb["how"] for lb in r["labels"]} for r in recs]
    assert hows[0][cell] == "given" and hows[1][cell] != "given"
    # without saying which puzzle, on a page of two: refused before anything is solved
    assert main(["solve", "--no-image", str(two_puzzle_page), "--label", f"{cell}={label}"]) == ExitCode.USAGE
    assert "say which one" in capsys.readouterr().err
    # with --puzzle, a bare label is that puzzle's, and a label for another puzzle is refused
    assert main(["solve", "--no-image", "--puzzle", "1", str(two_puzzle_page), "--label", f"{cell}={label}"]) == 0
    assert main(["solve", "--no-image", "--puzzle", "1", str(two_puzzle_page), "--label",
                 f"2:{cell}={label}"]) == ExitCode.USAGE


def test_an_answers_file_on_a_page_of_two_must_name_its_puzzle(two_puzzle_page, tmp_path, capsys):
    answers = tmp_path / "mine.txt"
    answers.write_text("\n".join("".join(map(str, row)) for row in expected(LEFT)["solution"]) + "\n")
    assert main(["check", "--no-image", str(two_puzzle_page), str(answers)]) == ExitCode.USAGE
    capsys.readouterr()
    assert main(["check", "--no-image", "--puzzle", "1", str(two_puzzle_page), str(answers)]) == 0
    assert "0 wrong, 0 blank" in capsys.readouterr().out


def test_the_library_says_how_to_ask_for_one_puzzle_of_a_page(two_puzzle_page):
    with pytest.raises(UsageError, match="puzzle=N"):
        solve_image(two_puzzle_page)
    assert [list(r) for r in solve_image(two_puzzle_page, puzzle=2).solution] == expected(RIGHT)["solution"]
    outcomes = solve_puzzles(two_puzzle_page.read_bytes())
    assert [o.index for o in outcomes] == [1, 2]
    assert [[list(r) for r in o.result.solution] for o in outcomes] == [expected(LEFT)["solution"],
                                                                        expected(RIGHT)["solution"]]


def test_check_and_hint_read_standard_input(samples, monkeypatch, capsys):
    import io
    import sys

    data = (samples / "photo-6x6.jpg").read_bytes()
    for command in (["check"], ["hint"]):
        monkeypatch.setattr(sys, "stdin", type("In", (), {"buffer": io.BytesIO(data)})())
        assert main([*command, "--json", "-"]) == 0
        rec = records(capsys)[0]
        assert rec["input"] == "-" and rec["puzzle"]["size"] == 6 and rec["image"] is None


@pytest.mark.parametrize("spelling", ["12X", "12x", "12×", "12*", "12 ×", "12✕"])
def test_a_times_label_means_the_same_in_a_text_in_label_and_in_the_label_grammar(spelling):
    assert canonical_label(spelling) == "12*"
    assert parse_label(f"B3={spelling}").text == "12*"
    assert label_parts(spelling, 3) == ("*", 12)
    puzzle = formats.read(f"# 3\n{spelling[2:].strip()} 12 A1 A2 A3\n+ 3 B1 C1\n+ 5 B2 B3\n- 1 C2 C3\n", "names")
    assert puzzle.cages[0].op == "*" and puzzle.cages[0].target == 12


@pytest.mark.parametrize("spelling", ["2-", "2−", "2–", "2—"])
def test_every_minus_means_minus(spelling):
    assert canonical_label(spelling) == "2-" and parse_label(f"2:A1={spelling}").text == "2-"
    assert label_parts(spelling, 2) == ("-", 2) and label_parts(spelling, 3) == ("-", 2)  # over 3: a book's


def test_cell_names_both_ways():
    for cell in [(0, 0), (2, 1), (8, 8), (11, 25)]:
        assert parse_cell(cell_name(cell)) == cell
    assert parse_label("B3=7").cell == (2, 1) and parse_label("B3=7").puzzle is None
    assert parse_label("2:B3=7").puzzle == 2
    for bad in ("B3", "3B=7", "B3=x", "0:B3=7", "B3=12+3"):
        with pytest.raises(UsageError):
            parse_label(bad)


def test_hint_outputs_are_not_inputs():
    assert OUTPUT_NAME.search("photo.hint.png") and OUTPUT_NAME.search("photo.solved-2.jpg")
    assert not OUTPUT_NAME.search("photo.png")


def test_every_label_reader_is_named_in_the_vocabulary():
    assert tuple(READERS) == LABEL_READERS


def _imports(path: Path, top_only: bool = False) -> set[str]:
    """The kkvision modules a module imports: at any depth of its code (lazy
    imports and TYPE_CHECKING ones count), or at its top level only."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    tree = ast.parse(path.read_text())
    for node in (tree.body if top_only else ast.walk(tree)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            names = [f"{name}.{a.name}" for a in node.names]
            found |= {n for n in [name, *names] if n.startswith("kkvision")}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("kkvision")}
    return found


def test_no_import_cycle_in_the_package():
    modules = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in PACKAGE.rglob("*.py")}
    graph = {m: {i for i in _imports(p) if i in modules and i != m} for m, p in modules.items()}
    # a package's __init__ may name its own submodules lazily (on first use), which is no cycle
    for m in graph:
        if modules[m].name == "__init__.py":
            eager = _imports(modules[m], top_only=True)
            graph[m] = {i for i in graph[m] if not i.startswith(m + ".") or i in eager}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for nxt in sorted(graph[m]):
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert len(graph) > 30  # the walk saw the whole package


def test_a_given_label_is_never_dropped(samples, capsys):
    """A --label that leaves no solution is an error naming it (exit 7), not a label solved without;
    one that cannot be its cage's clue is a usage error."""
    path = str(samples / "nyt-2009-02-13.png")
    assert main(["solve", "--no-image", path, "--label", "A1=3"]) == ExitCode.UNSOLVABLE
    assert "A1=3" in capsys.readouterr().err
    assert main(["solve", "--no-image", path, "--label", "B2=3-"]) == ExitCode.USAGE
    assert "not a possible clue" in capsys.readouterr().err
    assert main(["solve", "--json", "--no-image", path, "--label", "A1=7+"]) == 0  # 2+1+4: it fits
    rec = records(capsys)[0]
    assert {lb["cell"]: (lb["used"], lb["how"]) for lb in rec["labels"]}["A1"] == ("7+", "given")
