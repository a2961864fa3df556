import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kkvision.cli import main
from kkvision.errors import ExitCode


def test_solve_text_prints_grid(samples, capsys):
    assert main(["solve", str(samples / "nyt-2009-02-13.shields.txt")]) == 0
    assert capsys.readouterr().out.splitlines() == ["2 1 4 3", "1 3 2 4", "4 2 3 1", "3 4 1 2"]


def test_solve_json(samples, capsys):
    assert main(["solve", "--json", str(samples / "kk0.j.txt")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["unique"] is True and data["solution"][0] == [1, 2, 4, 3]


def test_solve_names_the_cages_it_took_by_a_puzzle_books_rule(tmp_path, capsys):
    from kkvision import formats
    from kkvision.puzzle import Puzzle
    from tests.test_solver import BOOK_5X5, BOOK_SOLUTION

    book = tmp_path / "book.json"
    book.write_text(formats.write(Puzzle(5, BOOK_5X5), "json"))
    assert main(["solve", "--json", str(book)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["solution"] == [list(row) for row in BOOK_SOLUTION]
    assert any("puzzle books' rule" in note and "2/ at E1" in note and "2- at C3" in note for note in data["notes"])


@pytest.mark.parametrize(
    "content, code",
    [
        (b"hello, this is not a puzzle", ExitCode.INPUT),
        (b"\x89PNG\r\n\x1a\nthis is no png", ExitCode.INPUT),
        (b"\xff\xfe\x00binary junk", ExitCode.INPUT),
        (b"a6+,a,a,b6+,b,b,c6+,c,c", ExitCode.AMBIGUOUS),
        (b"a1,b1,c7+,d6+,d,c,d,d,c", ExitCode.UNSOLVABLE),
        (b"a7*,a,a,b6+,b,b,c6+,c,c", ExitCode.INVALID_PUZZLE),
    ],
)
def test_bad_input_gets_its_own_exit_code_and_no_traceback(tmp_path, capsys, content, code):
    f = tmp_path / "input.txt"
    f.write_bytes(content)
    assert main(["solve", str(f)]) == code
    err = capsys.readouterr().err
    assert err.startswith("kkvision: error:") and "Traceback" not in err


def test_missing_file(capsys):
    assert main(["solve", "/no/such/file.png"]) == ExitCode.INPUT
    assert "no such file" in capsys.readouterr().err


def test_check_marks_wrong_cells(samples, tmp_path, capsys):
    answers = tmp_path / "mine.txt"
    answers.write_text("2143\n1324\n42.1\n3412\n".replace("42.1", "4231").replace("3412", "3421"))
    assert main(["check", str(samples / "nyt-2009-02-13.shields.txt"), str(answers)]) == ExitCode.ANSWERS_WRONG
    out = capsys.readouterr().out
    assert "2 wrong, 0 blank" in out and "1!" in out


def test_check_all_right_with_blanks(samples, tmp_path, capsys):
    answers = tmp_path / "mine.txt"
    answers.write_text("2 1 4 3\n1 3 . 4\n4 2 3 1\n3 4 1 2\n")
    assert main(["check", str(samples / "nyt-2009-02-13.shields.txt"), str(answers)]) == 0
    assert "0 wrong, 1 blank" in capsys.readouterr().out


def test_convert(samples, capsys):
    assert main(["convert", str(samples / "kk0.j.txt"), "--to", "letters"]) == 0
    assert capsys.readouterr().out.startswith("a1,b11+,b,")


def test_console_entry_point_runs(samples):
    r = subprocess.run([sys.executable, "cli.py", "solve", str(samples / "kk0.j.txt")],
                       capture_output=True, text=True, cwd=samples.parent)
    assert r.returncode == 0 and r.stdout.startswith("1 2 4 3")


def test_solve_several_files_keeps_going(samples, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("not a puzzle")
    code = main(["solve", str(samples / "kk0.j.txt"), str(bad), str(samples / "nyt-2009-02-13.shields.txt")])
    out, err = capsys.readouterr()
    assert code == ExitCode.INPUT
    assert out.count("== ") == 3 and "2 1 4 3" in out and "1 2 4 3" in out
    assert "bad.txt" in err


def test_solve_several_files_as_json_lines(samples, capsys):
    assert main(["solve", "--json", str(samples / "kk0.j.txt"), str(samples / "nyt-2009-02-13.shields.txt")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [json.loads(line)["input"].rsplit("/", 1)[-1] for line in lines] == ["kk0.j.txt", "nyt-2009-02-13.shields.txt"]


def test_kkvision_alone_greets_with_its_commands_and_examples(capsys):
    assert main([]) == ExitCode.OK
    out = capsys.readouterr()
    assert out.err == ""
    for command in ("solve", "check", "hint", "convert", "serve"):
        assert command in out.out
    assert "examples:" in out.out and "kkvision solve photo.jpg" in out.out


@pytest.mark.parametrize("command", ["solve", "check", "hint", "convert"])
def test_each_commands_help_ends_with_examples_and_explains_every_option(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "-h"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert f"kkvision {command} " in out.split("examples:")[1]
    if command == "convert":
        assert "the text format to print" in out


@pytest.mark.parametrize("command", [["convert", "x", "--to", "keen"], ["serve"]])
def test_a_command_without_an_option_the_shared_code_reads_holds_its_default(command):
    """convert and serve reach _check_args and main's error record, which read every reading
    command's options: each holds the default that solve, check and hint have when not given."""
    from kkvision.cli import _parser

    parser = _parser()
    given = vars(parser.parse_args(command))
    others = [vars(parser.parse_args([other, "x"])) for other in ("solve", "check", "hint")]
    shared = set.intersection(*(set(other) for other in others)) - {"command", "input"}
    assert {"time_limit", "more", "jobs", "cells", "debug_dir", "output_dir", "recursive"} <= shared
    for other in others:
        assert {name: given.get(name, "missing") for name in shared} == {name: other[name] for name in shared}


def test_dash_capital_v_is_the_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["-V"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("kkvision ")


def test_an_empty_folder_alone_is_one_line_and_exit_3(tmp_path, capsys):
    assert main(["solve", str(tmp_path)]) == ExitCode.INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"kkvision: error: {tmp_path}: a folder with no pictures or puzzle texts in it"]


def test_kkvisions_own_outputs_named_among_several_are_skipped_and_said_once(samples, tmp_path, capsys):
    import shutil

    for name in ("clean-8x8.png", "hidden-ops-4x4.png"):
        shutil.copy(samples / name, tmp_path / name)
    first = sorted(tmp_path.glob("*.png"))
    assert main(["solve", *map(str, first)]) == 0
    again = sorted(tmp_path.glob("*.png"))  # `solve *.png` again: the answers drawn are among them
    assert len(again) == 4
    capsys.readouterr()
    assert main(["solve", "--no-image", *map(str, again)]) == 0
    out = capsys.readouterr()
    assert out.err.count("skipped 2 of kkvision's own output pictures") == 1
    assert out.out.count("== ") == 2 and ".solved" not in out.out
    assert main(["solve", "--no-image", str(tmp_path / "clean-8x8.solved.png")]) == 0  # named alone: read


@pytest.mark.parametrize("command", [["hint", "--no-image"], ["check", "--no-image"], ["convert", "--to", "keen"]])
def test_a_page_of_two_puzzles_gives_json_lines_for_every_command(command, tmp_path, capsys):
    """More than one record: one a line (JSON Lines), for every command; one alone stays indented."""
    import cv2

    from tests.test_pages import page

    image, _ = page((1500, 800), [(4, 500, 100, 150), (5, 550, 850, 120)], seed=3, text=0)
    path = tmp_path / "two.png"
    cv2.imwrite(str(path), image)
    main([command[0], "--json", str(path), *command[1:]])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and [json.loads(line)["index"] for line in lines] == [1, 2]


def test_recursive_solves_the_folders_below_a_folder_too(samples, tmp_path, capsys):
    import shutil

    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    shutil.copy(samples / "kk0.j.txt", tmp_path / "kk0.j.txt")
    shutil.copy(samples / "hidden-ops-4x4.png", tmp_path / "sub" / "deeper" / "hidden-ops-4x4.png")
    assert main(["solve", "--json", "--no-image", str(tmp_path)]) == 0
    assert [json.loads(line)["input"] for line in capsys.readouterr().out.split("\n") if line.startswith("{")] == [
        str(tmp_path / "kk0.j.txt")]
    assert main(["solve", "--json", "--no-image", "-r", str(tmp_path)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert [json.loads(line)["input"] for line in out] == [str(tmp_path / "kk0.j.txt"),
                                                           str(tmp_path / "sub" / "deeper" / "hidden-ops-4x4.png")]


NYT = "nyt-2009-02-13.shields.txt"
NYT_SOLUTION = ((2, 1, 4, 3), (1, 3, 2, 4), (4, 2, 3, 1), (3, 4, 1, 2))


@pytest.fixture
def pictures(samples, tmp_path, monkeypatch):
    """A folder of three 'pictures' (a.png, b.png, sub/c.png) and kkvision's own a.checked.png, each
    read as the NYT sample with its answers written in: a.png and c.png right, b.png with one wrong
    cell; with --debug-dir, its debug picture 01_grid.png holds the input's name.  The reading is faked
    (read_source and the written digits): what is tested is the command line over several inputs, not
    the reading."""
    import numpy as np

    from kkvision import batch, cli, commands
    from kkvision.answers import Judged, check_answers
    from kkvision.pipeline import Options, Outcome, Page, solve_text
    from kkvision.sources import read_file

    (tmp_path / "sub").mkdir()
    for name in ("a.png", "b.png", "a.checked.png", "sub/c.png"):
        (tmp_path / name).write_bytes(b"\x89PNG fake")
    text = (samples / NYT).read_text()

    def read(source, opts, dpi):
        read_file(source.path)  # a missing file fails as it does
        if opts.debug_dir is not None:  # a debug picture, written as vision/debug.py writes it: over any file
            opts.debug_dir.mkdir(parents=True, exist_ok=True)
            (opts.debug_dir / "01_grid.png").write_text(source.name)
        picture = np.full((40, 40, 3), 255 if source.name.endswith("b.png") else 250, np.uint8)
        return Page(source.name, (Outcome(solve_text(text, opts or Options())),), picture)

    def written(puzzle, solution, typed, picture, geometry, undetermined=frozenset(), clues=(), freed=frozenset(),
                cells=None):
        answers = [list(row) for row in solution]
        if picture[0, 0, 0] == 255:
            answers[0][0] = 4
        return Judged(check_answers(puzzle, solution, tuple(map(tuple, answers))))

    monkeypatch.setattr(cli, "read_source", read)  # convert's
    monkeypatch.setattr(batch, "read_source", read)  # solve's, check's and hint's (batch.worked)
    monkeypatch.setattr(commands, "judge", written)
    return tmp_path


def test_check_takes_several_pictures_and_folders_like_solve(pictures, capsys):
    """Names and folders (-r: the folders below too), kkvision's own outputs skipped; a header a picture,
    the verdict of each, the first failure's exit code and a summary on stderr."""
    code = main(["check", "--no-image", "-r", str(pictures)])
    out, err = capsys.readouterr()
    assert code == ExitCode.ANSWERS_WRONG
    assert [line for line in out.splitlines() if line.startswith("== ")] == [
        f"== {pictures / 'a.png'}", f"== {pictures / 'b.png'}", f"== {pictures / 'sub' / 'c.png'}"]
    assert out.count("0 wrong, 0 blank; the grid is complete") == 2 and out.count("1 wrong, 0 blank") == 1
    assert err.strip().splitlines()[-1].startswith("kkvision: 3 inputs, 3 puzzles: 3 checked; refused: none;")
    assert main(["check", "--no-image", str(pictures / "a.png"), str(pictures / "a.checked.png")]) == 0
    out, err = capsys.readouterr()
    assert out.count("== ") == 0 and "skipped 1 of kkvision's own output pictures" in err


def test_check_and_hint_of_several_give_a_record_a_puzzle_as_json_lines(pictures, capsys):
    names = [str(pictures / "a.png"), str(pictures / "b.png"), str(pictures / "nothing.png")]
    assert main(["check", "--json", "--no-image", *names]) == ExitCode.ANSWERS_WRONG
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["input"], r["exit_code"], r["wrong"]) for r in records] == [
        (names[0], 0, []), (names[1], ExitCode.ANSWERS_WRONG, [[0, 0]]), (names[2], ExitCode.INPUT, None)]
    assert main(["hint", "--json", "--no-image", "--cells", "2", *names[:2]]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["input"] for r in records] == names[:2] and all(len(r["hints"]) == 2 for r in records)


@pytest.mark.parametrize("command", [["check"], ["hint", "--cells", "2"]])
def test_check_and_hint_of_several_in_a_process_pool_print_as_one_after_another(command, pictures, monkeypatch,
                                                                                capsys):
    """--jobs 2 reads the inputs in two worker processes, and prints the same records (JSON Lines) and the same
    text, in the inputs' order, with the same exit code as --jobs 1: the first failure's (a missing file, read
    before a wrong answer)."""
    from kkvision import batch

    read, seen = batch.read_source, Path()

    def noting(source, opts, dpi):
        """The fixture's reading, noting first (in `seen`) the process that reads each picture."""
        (seen / f"{os.getpid()}-{Path(source.name).name}").touch()
        return read(source, opts, dpi)

    names = [str(pictures / "a.png"), str(pictures / "nothing.png"), str(pictures / "b.png"),
             str(pictures / "sub" / "c.png")]
    runs = {}
    for jobs, json_or_text in (("1", "--json"), ("2", "--json"), ("1", "-q"), ("2", "-q")):
        seen = pictures / f"pids-{jobs}{json_or_text}"
        seen.mkdir()
        monkeypatch.setattr(batch, "read_source", noting)  # the forked workers get it too
        code = main([*command, json_or_text, "--no-image", "--jobs", jobs, *names])
        runs[jobs, json_or_text] = code, capsys.readouterr().out
        pids = {int(p.name.split("-")[0]) for p in seen.iterdir()}
        assert (pids == {os.getpid()}) == (jobs == "1")  # --jobs 2: read in workers, not here
    assert runs["2", "--json"] == runs["1", "--json"] and runs["2", "-q"] == runs["1", "-q"]
    code, out = runs["1", "--json"]
    assert code == ExitCode.INPUT
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["input"], r["exit_code"]) for r in records] == [
        (names[0], 0), (names[1], ExitCode.INPUT), (names[2], ExitCode.ANSWERS_WRONG if command == ["check"] else 0),
        (names[3], 0)]
    assert [line for line in runs["1", "-q"][1].splitlines() if line.startswith("== ")] == [f"== {n}" for n in names]


def test_check_in_a_process_pool_writes_each_picture_beside_its_input_never_over_a_file(samples, tmp_path, capsys):
    """Pictures really read, in two workers: each checked picture written where --jobs 1 writes it (a user's
    file of that name kept: the next free name), named in its record; the records otherwise the same."""
    names = [str(tmp_path / name) for name in ("hidden-ops-4x4.png", "nyt-2009-02-13.png")]
    for name in names:
        shutil.copy(samples / Path(name).name, name)
    (tmp_path / "nyt-2009-02-13.checked.png").write_bytes(b"the user's own")
    runs = []
    for jobs, where in (("1", ["--output-dir", str(tmp_path / "one")]), ("2", [])):
        code = main(["check", "--json", "--jobs", jobs, *where, *names])
        runs.append((code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]))
    (code_one, one), (code_two, two) = runs
    assert [Path(r["image"]) for r in two] == [tmp_path / "hidden-ops-4x4.checked.png",
                                              tmp_path / "nyt-2009-02-13.checked-2.png"]
    assert [Path(r["image"]) for r in one] == [tmp_path / "one" / "hidden-ops-4x4.checked.png",
                                              tmp_path / "one" / "nyt-2009-02-13.checked.png"]
    assert all(Path(r["image"]).read_bytes().startswith(b"\x89PNG") for r in one + two)
    assert (tmp_path / "nyt-2009-02-13.checked.png").read_bytes() == b"the user's own"
    assert code_two == code_one and [dict(r, image=None) for r in two] == [dict(r, image=None) for r in one]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_in_a_check_of_several_stops_its_workers_and_says_what_was_done(jobs, pictures, monkeypatch, capsys):
    """Ctrl-C (here: while the second input is printed) ends the run with 130 and solve's line, its workers
    stopped at once (--jobs 2), no summary."""
    from kkvision import cli

    show, stop, stopped = cli._show_answered, cli._stop, []

    def interrupted(args, answered, several, counts):
        if counts:  # one input done
            raise KeyboardInterrupt
        return show(args, answered, several, counts)

    monkeypatch.setattr(cli, "_show_answered", interrupted)
    monkeypatch.setattr(cli, "_stop", lambda executor: stopped.append(executor) or stop(executor))
    names = [str(pictures / name) for name in ("a.png", "b.png", "sub/c.png")]
    assert main(["check", "--no-image", "--jobs", jobs, *names]) == 130
    out, err = capsys.readouterr()
    assert out.count("== ") == 1 and "interrupted: 1 of 3 inputs done" in err and "3 inputs, " not in err
    assert len(stopped) == (jobs == "2")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_and_hint_of_several_give_each_input_its_debug_folder_as_solve_does_never_over_a_file(
        jobs, pictures, monkeypatch):
    """--debug-dir with several inputs: each input's debug pictures in a folder of its own, named as solve
    names it, in worker processes too (--jobs 2); a second run's in new folders (NAME-2), every picture
    of the first run kept as it was."""
    from kkvision import batch, cli

    monkeypatch.setattr(batch, "read_source", cli.read_source)  # solve reads as the fixture does
    names = [str(pictures / name) for name in ("a.png", "b.png", "sub/c.png")]
    folders = {}
    for command in ("solve", "check", "hint"):
        dbg = pictures / f"dbg-{command}"
        assert main([command, "--no-image", "-q", "--jobs", jobs, "--debug-dir", str(dbg), *names]) in (0, ExitCode.ANSWERS_WRONG)
        folders[command] = {p.name: (p / "01_grid.png").read_text() for p in dbg.iterdir()}
    assert folders["check"] == folders["hint"] == folders["solve"]
    assert sorted(folders["check"].values()) == names  # one folder an input, holding that input's pictures
    dbg = pictures / "dbg-hint"
    first = {p: p.read_bytes() for p in dbg.rglob("*") if p.is_file()}
    assert main(["hint", "--no-image", "-q", "--jobs", jobs, "--debug-dir", str(dbg), *names]) == 0
    assert {p: p.read_bytes() for p in first} == first
    again = {p.name: (p / "01_grid.png").read_text() for p in dbg.iterdir() if p.name not in folders["hint"]}
    assert again == {f"{name}-2": input for name, input in folders["hint"].items()}


def test_one_input_writes_its_debug_pictures_into_the_debug_folder_never_over_a_file(pictures, capsys):
    """One input alone: its debug pictures straight into --debug-dir (as before), unless that holds
    debug pictures already (an earlier run's, or the user's files of those names): then into a folder
    of its own, as one of several inputs.  Debug pictures in a folder of inputs are never read as inputs."""
    a, b = str(pictures / "a.png"), str(pictures / "b.png")
    assert main(["check", "--no-image", "-q", "--debug-dir", str(pictures), a]) == 0
    assert (pictures / "01_grid.png").read_text() == a
    assert main(["hint", "--no-image", "-q", "--debug-dir", str(pictures), b]) == 0
    assert (pictures / "01_grid.png").read_text() == a  # the earlier run's picture kept
    assert [(p.parent.name, p.read_text()) for p in pictures.glob("*/01_grid.png")] == [
        (b.replace("/", "_").strip("_"), b)]
    capsys.readouterr()
    assert main(["check", "--no-image", "-r", str(pictures)]) == ExitCode.ANSWERS_WRONG
    out, err = capsys.readouterr()
    assert [line for line in out.splitlines() if line.startswith("== ")] == [
        f"== {pictures / 'a.png'}", f"== {pictures / 'b.png'}", f"== {pictures / 'sub' / 'c.png'}"]
    assert main(["check", "--no-image", a, str(pictures / "01_grid.png")]) == 0  # among several named: skipped
    assert "skipped 1 of kkvision's own output pictures (01_grid.png)" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["solve", "check", "hint"])
def test_a_negative_jobs_is_a_usage_error(command, samples, capsys):
    assert main([command, "--jobs", "-1", str(samples / NYT), str(samples / "kk0.j.txt")]) == ExitCode.USAGE
    assert "--jobs must be 0 (the number of cores) or more" in capsys.readouterr().err


def test_the_second_of_two_names_is_the_answers_when_it_is_a_text(pictures, samples, tmp_path, capsys):
    answers = tmp_path / "mine.txt"
    answers.write_text("2143\n1324\n4231\n3412\n")
    assert main(["check", "--no-image", str(samples / NYT), str(answers)]) == 0  # typed: no picture read
    assert capsys.readouterr().out.count("== ") == 0
    assert main(["hint", "--no-image", str(pictures / "a.png"), str(answers)]) == 0
    capsys.readouterr()
    assert main(["check", "--no-image", str(pictures), str(answers)]) == ExitCode.USAGE  # a folder: several
    assert "typed answers are for one puzzle" in capsys.readouterr().err


def test_an_output_file_names_one_input_only(pictures, capsys):
    assert main(["hint", str(pictures / "a.png"), str(pictures / "b.png"), "-o", "x.png"]) == ExitCode.USAGE
    assert "use --output-dir" in capsys.readouterr().err


class _Terminal(io.StringIO):
    """A terminal as a test sees it: what is written, and isatty() true."""

    def isatty(self) -> bool:
        return True


def test_progress_is_on_stderr_only_and_results_alone_on_stdout(samples, monkeypatch):
    """With a progress bar (stderr a terminal), stdout holds exactly the results, as without one."""
    names = [str(samples / name) for name in ("kk0.j.txt", NYT, "names-3x3.txt")]
    quiet_out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", quiet_out)
    assert main(["solve", "--jobs", "1", *names]) == 0
    for command in (["solve", "--jobs", "1"], ["hint"]):
        out, err = io.StringIO(), _Terminal()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        assert main([*command, *names]) == 0
        assert "input/s" in err.getvalue() or "input]" in err.getvalue()  # the bar was drawn
        assert "\r" not in out.getvalue() and "%|" not in out.getvalue()
        if command[0] == "solve":
            assert out.getvalue() == quiet_out.getvalue()
        assert out.getvalue().count("== ") == 3


def test_a_result_never_shares_a_line_with_the_progress_bar(samples, monkeypatch):
    """stdout and stderr on one terminal: every result line is written whole, on a line of its own
    (the bar cleared first and drawn again after)."""
    names = [str(samples / name) for name in ("kk0.j.txt", NYT, "names-3x3.txt")]
    screen = _Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stderr", screen)
    for command in (["solve", "--jobs", "1"], ["hint"]):
        assert main([*command, *names]) == 0
    pieces = [piece.strip() for piece in re.split(r"[\r\n]", screen.getvalue())]
    assert any("input" in piece for piece in pieces)  # the bar was drawn
    results = [piece for piece in pieces if piece.startswith("== ") or re.fullmatch(r"[\d ]+", piece)]
    assert len([r for r in results if r.startswith("== ")]) == 6
    assert not [piece for piece in pieces if "== " in piece and not piece.startswith("== ")]
    assert not [piece for piece in pieces if "|" in piece and ("== " in piece or "kkvision:" in piece)]


def test_only_check_reads_a_grid_in_part(samples, monkeypatch):
    """The command line asks the vision to read a grid whose answers hide labels in part for check
    alone (commands.READ_IN_PART): solve, hint and convert need every cell."""
    from kkvision import batch, cli
    from kkvision.errors import UsageError

    seen = []

    def read(source, opts, dpi=None):
        seen.append(opts.in_part)
        raise UsageError("read no further")

    monkeypatch.setattr(batch, "read_source", read)
    monkeypatch.setattr(cli, "read_source", read)
    for command in ("solve", "hint", "check", "convert"):
        main([command, "--no-image", str(samples / "photo-6x6.jpg")] if command != "convert"
             else [command, "--to", "keen", str(samples / "photo-6x6.jpg")])
    assert seen == [False, False, True, False]
