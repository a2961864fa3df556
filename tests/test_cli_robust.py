"""The command line under hostile input and signals (issue 18): one line on stderr, a
documented exit code, nothing half-written, never a traceback or a crash."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from kkvision.cli import BROKEN_PIPE, main
from kkvision.errors import ExitCode

ROOT = Path(__file__).resolve().parents[1]


def kk(*args: str | bytes, stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """kkvision as a user runs it: its own process (bytes arguments pass non-UTF-8 names through)."""
    return subprocess.run([sys.executable, "-m", "kkvision", *args], input=stdin, capture_output=True,
                          timeout=timeout, cwd=ROOT)


def one_error_line(stderr: bytes) -> str:
    text = stderr.decode(errors="replace")
    assert "Traceback" not in text and "internal error" not in text, text
    lines = [line for line in text.splitlines() if line.startswith("kkvision: error:")]
    assert len(lines) == 1, text
    return lines[0]


def test_a_debug_folder_named_with_a_byte_that_is_not_utf8_gets_its_pictures(samples, tmp_path):
    folder = os.fsencode(tmp_path) + b"/dbg\xff"
    r = kk("solve", str(samples / "photo-6x6.jpg"), "--no-image", b"--debug-dir", folder)
    assert r.returncode == 0, r.stderr
    assert {b"01_grid.png", b"02_warped.png", b"03_contents.png", b"04_cages.png", b"05_clues.png"} <= set(os.listdir(folder))


def test_a_debug_folder_that_is_a_file_is_refused_before_the_work(samples, tmp_path, capsys):
    afile = tmp_path / "notes.txt"
    afile.write_text("mine")
    assert main(["solve", str(samples / "photo-6x6.jpg"), "--no-image", "--debug-dir", str(afile)]) == ExitCode.OUTPUT
    assert "is a file, not a folder" in one_error_line(capsys.readouterr().err.encode())
    assert afile.read_text() == "mine"


def test_an_output_folder_that_does_not_exist_yet_is_made(samples, tmp_path, capsys):
    out = tmp_path / "answers" / "today"
    assert main(["solve", str(samples / "screenshot-5x5.png"), "--output-dir", str(out)]) == 0
    assert [p.name for p in out.iterdir()] == ["screenshot-5x5.solved.png"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only folders")
def test_an_output_into_a_read_only_folder_is_refused_before_the_work(samples, tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        assert main(["solve", str(samples / "screenshot-5x5.png"), "-o", str(ro / "x.png")]) == ExitCode.OUTPUT
        assert "cannot be written" in one_error_line(capsys.readouterr().err.encode())
        assert main(["solve", str(samples / "screenshot-5x5.png"), "--output-dir", str(ro)]) == ExitCode.OUTPUT
    finally:
        ro.chmod(0o755)


def test_a_picture_in_a_read_only_folder_is_refused_before_the_work_unless_written_elsewhere(samples, tmp_path,
                                                                                              capsys, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir()
    shutil.copy(samples / "screenshot-5x5.png", ro / "p.png")
    shutil.copy(samples / "kk0.j.txt", ro / "kk0.j.txt")
    ro.chmod(0o555)
    access = os.access  # root may write anywhere: the folder is also reported unwritable as a user's would be
    monkeypatch.setattr(os, "access", lambda path, mode: access(path, mode) and Path(path) != ro)
    read = []
    from kkvision import batch

    real = batch.read_source
    monkeypatch.setattr(batch, "read_source", lambda *a, **k: read.append(a) or real(*a, **k))
    try:
        for command in (["solve"], ["hint"], ["check"]):
            assert main([*command, str(ro / "p.png")]) == ExitCode.OUTPUT
            err = one_error_line(capsys.readouterr().err.encode())
            assert "cannot be written" in err and "--output-dir" in err
        assert not read, "refused before reading the picture"
        assert main(["solve", str(ro / "p.png"), "--no-image"]) == 0
        assert main(["solve", str(ro / "p.png"), "--output-dir", str(tmp_path)]) == 0
        assert main(["solve", str(ro / "kk0.j.txt")]) == 0  # a text draws no picture
        assert sorted(os.listdir(ro)) == ["kk0.j.txt", "p.png"]
    finally:
        ro.chmod(0o755)


def test_the_answer_picture_is_written_in_the_inputs_format(samples, tmp_path):
    import cv2

    for name in ("photo-6x6.jpg", "screenshot-5x5.png"):
        shutil.copy(samples / name, tmp_path / name)
    shutil.copy(samples / "photo-6x6.jpg", tmp_path / "upper.JPEG")
    assert main(["solve", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir() if ".solved" in p.name)
    assert written == ["photo-6x6.solved.jpg", "screenshot-5x5.solved.png", "upper.solved.jpg"]
    assert (tmp_path / "photo-6x6.solved.jpg").read_bytes()[:3] == b"\xff\xd8\xff"
    assert (tmp_path / "screenshot-5x5.solved.png").read_bytes()[:4] == b"\x89PNG"
    assert cv2.imread(str(tmp_path / "upper.solved.jpg")).shape == cv2.imread(str(samples / "photo-6x6.jpg")).shape
    assert main(["solve", str(tmp_path / "photo-6x6.jpg"), "-o", str(tmp_path / "mine.png")]) == 0  # -o decides
    assert (tmp_path / "mine.png").read_bytes()[:4] == b"\x89PNG"


def test_an_output_write_that_fails_is_an_output_error_and_leaves_no_file(tmp_path, monkeypatch):
    from kkvision import render
    from kkvision.errors import OutputError

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[:10])
            raise OSError(28, "No space left on device")

    real_open = open
    monkeypatch.setattr(render, "open", lambda path, mode: Full(real_open(path, mode)), raising=False)
    with pytest.raises(OutputError, match="No space left"):
        render.save_image(np.zeros((40, 40, 3), np.uint8), tmp_path / "x.png")
    assert list(tmp_path.iterdir()) == []


def test_an_empty_folder_among_the_inputs_fails_alone(samples, tmp_path, capsys):
    empty = tmp_path / "nothing"
    empty.mkdir()
    code = main(["solve", "--no-image", "--jobs", "1", str(empty), str(samples / "kk0.j.txt"),
                 str(samples / "nyt-2009-02-13.shields.txt")])
    captured = capsys.readouterr()
    assert code == ExitCode.INPUT
    assert "a folder with no pictures or puzzle texts" in captured.err
    assert "2 solved" in captured.err and "Traceback" not in captured.err


@pytest.mark.parametrize("digit", ["¹", "٣", "²"])
def test_an_answers_file_with_a_digit_that_is_not_ascii_is_bad_input(samples, tmp_path, capsys, digit):
    answers = tmp_path / "mine.txt"
    answers.write_text(f"21{digit}3\n1324\n4231\n3412\n", encoding="utf-8")
    assert main(["check", str(samples / "nyt-2009-02-13.shields.txt"), str(answers)]) == ExitCode.INPUT
    assert "is not a digit" in one_error_line(capsys.readouterr().err.encode())


def test_a_reader_that_closes_the_pipe_ends_the_run_quietly(samples):
    proc = subprocess.Popen([sys.executable, "-m", "kkvision", "solve", "--json", "--no-image", "--jobs", "1",
                             str(samples)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(5)
    proc.stdout.close()  # as `| head -c 5` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == BROKEN_PIPE
    assert "Traceback" not in err and "internal error" not in err and "BrokenPipe" not in err


def test_ctrl_c_in_a_batch_stops_the_workers_and_says_what_was_done(tmp_path):
    pictures = tmp_path / "many"
    pictures.mkdir()
    for k in range(200):  # far more than are done before the interrupt, on any machine
        shutil.copy(ROOT / "samples" / "scan-9x9.jpg", pictures / f"scan-{k:03d}.jpg")
    proc = subprocess.Popen([sys.executable, "-m", "kkvision", "solve", "--no-image", "--jobs", "2", str(pictures)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    proc.stdout.readline()  # the first answer printed: the pool is running, more pictures under way
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert "200 inputs, " not in err.decode()  # stopped, not finished (no summary of a whole batch)
    text = err.decode()
    assert proc.returncode == 130, text
    assert time.monotonic() - t0 < 15
    assert "interrupted:" in text and "inputs done" in text
    assert "Traceback" not in text and "internal error" not in text and "could not weigh" not in text


def test_no_grid_found_still_writes_a_debug_picture_of_the_search(tmp_path, capsys):
    import cv2

    blank = tmp_path / "blank.png"
    picture = np.full((400, 600, 3), 255, np.uint8)
    cv2.putText(picture, "no puzzle here", (40, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 0, 0), 3)
    cv2.rectangle(picture, (20, 20), (300, 120), (0, 0, 0), 3)
    cv2.imwrite(str(blank), picture)
    dbg = tmp_path / "dbg"
    assert main(["solve", str(blank), "--debug-dir", str(dbg)]) == ExitCode.NO_GRID
    assert (dbg / "00_search.png").is_file()
