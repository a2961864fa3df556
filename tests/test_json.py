"""One JSON record shape for every command and every failure (README: JSON output)."""

import json

from kkvision.cli import main
from kkvision.report import RECORD_FIELDS, SCHEMA


def records(out: str) -> list[dict]:
    out = out.strip()
    try:
        return [json.loads(out)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in out.splitlines()]


def check_shape(rec: dict, command: str, code: int) -> None:
    assert tuple(rec) == RECORD_FIELDS
    assert rec["schema"] == SCHEMA and rec["command"] == command
    assert rec["exit_code"] == code and rec["ok"] == (code == 0)
    assert (rec["error"] is None) == (code in (0, 11))


def test_solve_check_and_convert_give_the_same_record(samples, tmp_path, capsys):
    assert main(["solve", "--json", str(samples / "kk0.j.txt")]) == 0
    [rec] = records(capsys.readouterr().out)
    check_shape(rec, "solve", 0)
    assert rec["solution"][0] == [1, 2, 4, 3] and rec["labels"] is None
    assert main(["solve", "--json", "--no-image", str(samples / "photo-6x6.jpg")]) == 0
    [rec] = records(capsys.readouterr().out)
    check_shape(rec, "solve", 0)
    assert len(rec["labels"]) == len(rec["puzzle"]["cages"])
    answers = tmp_path / "mine.txt"
    answers.write_text("2143\n4321\n2134\n3412\n")  # A1 and B1 swapped: wrong
    assert main(["check", "--json", "--no-image", str(samples / "kk0.j.txt"), str(answers)]) == 11
    [rec] = records(capsys.readouterr().out)
    check_shape(rec, "check", 11)
    assert rec["wrong"] and rec["blank"] == []
    assert main(["convert", "--json", "--to", "keen", str(samples / "kk0.j.txt")]) == 0
    [rec] = records(capsys.readouterr().out)
    check_shape(rec, "convert", 0)
    assert rec["text"].startswith("4:")


def test_a_failure_prints_its_record_too(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("no puzzle here")
    assert main(["solve", "--json", str(bad)]) == 3
    [rec] = records(capsys.readouterr().out)
    check_shape(rec, "solve", 3)
    assert rec["input"] == str(bad) and rec["solution"] is None and rec["error"]


def test_a_batch_gives_one_record_per_input_failures_included(samples, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("")
    code = main(["solve", "--json", str(samples / "kk0.j.txt"), str(bad), str(samples / "kk0.j.txt")])
    recs = records(capsys.readouterr().out)
    assert code == 3 and [r["exit_code"] for r in recs] == [0, 3, 0]
    for r in recs:
        check_shape(r, "solve", r["exit_code"])


def test_a_picture_refused_for_its_labels_names_the_labels_that_decide():
    """A refusal for the labels (exit 13 here) lists, in 'decide', the cells of the labels
    whose reading decides, for a user (or the web page) to check or give with --label; other
    failures leave it null."""
    from kkvision.errors import GridNotFound, UncertainReading
    from kkvision.pipeline import Outcome
    from kkvision.report import outcome_record

    rec = outcome_record("solve", "x.jpg", Outcome(error=UncertainReading("unsure of B3 and A1", cells=((2, 1), (0, 0)))))
    check_shape(rec, "solve", 13)
    assert rec["decide"] == ["B3", "A1"]
    rec = outcome_record("solve", "x.jpg", Outcome(error=GridNotFound("no grid")))
    assert rec["decide"] is None
