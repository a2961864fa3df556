"""Many inputs: folders, PDF and TIFF pages, standard input, output folders,
reports, and any concurrent.futures-style executor."""

import csv
import io
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kkvision import batch
from kkvision.batch import Task, run_batch
from kkvision.cli import main
from kkvision.errors import ExitCode
from kkvision.pipeline import Options
from kkvision.sources import expand

PICTURES = ("photo-6x6.jpg", "screenshot-5x5.png")


def expected(samples: Path, name: str) -> list[list[int]]:
    return json.loads((samples / (name.rsplit(".", 1)[0] + ".expected.json")).read_text())["solution"]


@pytest.fixture
def folder(samples, tmp_path) -> Path:
    d = tmp_path / "scans"
    d.mkdir()
    for name in PICTURES:
        (d / name).write_bytes((samples / name).read_bytes())
    return d


def test_a_folder_is_its_pictures_and_never_kkvisions_outputs(folder, capsys):
    assert main(["solve", "--json", "--jobs", "2", str(folder)]) == 0
    first = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [Path(r["input"]).name for r in first] == sorted(PICTURES)
    assert all(Path(r["image"]).exists() for r in first)
    assert main(["solve", "--json", "--no-image", str(folder)]) == 0  # the .solved.png files are not inputs
    again = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(again) == len(PICTURES)


THREADS_SEEN = Path()  # where a batch worker notes its OpenCV threads (set by the test below)


def _solve_noting_threads(task: Task) -> list[dict]:
    """batch.solve_source, noting first, in a new file, the OpenCV threads of the worker that runs it."""
    import tempfile

    import cv2

    fd, _ = tempfile.mkstemp(prefix="threads-", dir=THREADS_SEEN)
    os.write(fd, str(cv2.getNumThreads()).encode())
    os.close(fd)
    return SOLVE_SOURCE(task)


SOLVE_SOURCE = batch.solve_source


def test_a_batch_s_workers_run_opencv_on_their_share_of_the_cores(folder, tmp_path, monkeypatch):
    import cv2

    cv2.resize(np.zeros((3000, 3000), np.uint8), (1000, 1000))  # this process's own OpenCV threads have run
    before = cv2.getNumThreads()
    monkeypatch.setattr(sys.modules[__name__], "THREADS_SEEN", tmp_path)
    monkeypatch.setattr(batch, "solve_source", _solve_noting_threads)  # the forked workers get it too
    assert main(["solve", "--no-image", "--jobs", "2", str(folder)]) == 0
    assert sorted(p.read_text() for p in tmp_path.glob("threads-*")) \
        == [str(max(1, (os.cpu_count() or 1) // 2))] * len(PICTURES)
    assert cv2.getNumThreads() == before  # and this process's own count is given back


def test_pdf_pages_and_tiff_pages_each_give_a_puzzle(samples, tmp_path, capsys):
    pages = [Image.fromarray(np.asarray(Image.open(samples / name).convert("RGB"))) for name in PICTURES]
    pdf, tif, out = tmp_path / "two.pdf", tmp_path / "two.tif", tmp_path / "out"
    pages[0].copy().save(tif, save_all=True, append_images=[p.copy() for p in pages[1:]])
    pages[0].copy().save(pdf, save_all=True, append_images=[p.copy() for p in pages[1:]], resolution=150)
    out.mkdir()
    assert main(["solve", "--json", "--dpi", "200", "--output-dir", str(out), str(pdf), str(tif)]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["input"] for r in recs] == [f"{pdf}#1", f"{pdf}#2", f"{tif}#1", f"{tif}#2"]
    assert [r["solution"] for r in recs] == [expected(samples, n) for n in PICTURES] * 2
    # the PDF's and the TIFF's pages share names: the second of each never overwrites the first
    assert sorted(p.name for p in out.iterdir()) == sorted(["two-p1.solved.png", "two-p2.solved.png",
                                                            "two-p1.solved-2.png", "two-p2.solved-2.png"])


def test_standard_input_is_read_with_a_dash(samples, tmp_path, monkeypatch, capsys):
    data = (samples / "kk0.j.txt").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["solve", "-"]) == 0
    assert capsys.readouterr().out.startswith("1 2 4 3")


def test_a_report_has_a_row_per_input_and_is_never_overwritten(folder, tmp_path, capfd):
    bad = folder / "zz-empty.png"
    bad.write_bytes(b"")
    report = tmp_path / "report.csv"
    assert main(["solve", "--no-image", "--report", str(report), str(folder)]) == ExitCode.INPUT
    rows = list(csv.DictReader(report.open()))
    assert [Path(r["input"]).name for r in rows] == sorted(PICTURES) + ["zz-empty.png"]
    assert [r["ok"] for r in rows] == ["True", "True", "False"] and rows[2]["exit_code"] == "3"
    err = capfd.readouterr().err
    assert "3 inputs, 3 puzzles: 2 solved; refused: 1 with exit 3" in err
    assert main(["solve", "--no-image", "--report", str(report), str(folder)]) == ExitCode.OUTPUT_EXISTS
    jsonl = tmp_path / "report.jsonl"
    assert main(["solve", "--no-image", "--report", str(jsonl), str(folder / PICTURES[0])]) == 0
    assert json.loads(jsonl.read_text().splitlines()[0])["size"] == 6


def test_debug_pictures_go_to_a_subfolder_per_input(folder, tmp_path):
    dbg = tmp_path / "dbg"
    assert main(["solve", "--no-image", "--debug-dir", str(dbg), str(folder)]) == 0
    subs = sorted(p.name for p in dbg.iterdir())
    assert len(subs) == len(PICTURES) and all((dbg / s / "01_grid.png").exists() for s in subs)


def test_any_executor_runs_a_batch_in_input_order(folder, samples):
    tasks = [Task(src, Options(), write_image=False) for src in expand([folder])]
    with ThreadPoolExecutor(2) as pool:
        recs = list(run_batch(tasks, pool))
    assert [r["solution"] for r in recs] == [expected(samples, n) for n in sorted(PICTURES)]
    alone = list(run_batch(tasks))  # in this process, one after another: the same records
    assert [dict(r, seconds=0) for r in alone] == [dict(r, seconds=0) for r in recs]


def test_every_puzzle_on_a_page_is_solved_in_reading_order_into_one_picture(tmp_path, capsys):
    import random

    from devtools.generate import random_puzzle
    from devtools.synth import TRAIN_FONTS, available, render

    fonts = available(TRAIN_FONTS)
    page = Image.new("RGB", (1700, 900), (255, 255, 255))
    truths = []
    for k, (n, x) in enumerate([(4, 60), (6, 860)]):
        puzzle, grid = random_puzzle(n, seed=40 + k)
        image, _ = render(puzzle, "clean", random.Random(k), fonts)
        image = image.resize((700, 700))
        page.paste(image, (x, 100))
        truths.append([list(row) for row in grid])
    path = tmp_path / "page.png"
    page.save(path)
    assert main(["solve", "--json", str(path)]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["index"] for r in recs] == [1, 2]
    assert [r["solution"] for r in recs] == truths
    assert recs[0]["box"][2] < recs[1]["box"][0]  # left puzzle first
    assert recs[0]["image"] == recs[1]["image"] and Path(recs[0]["image"]).exists()
    blank = tmp_path / "blank.png"
    Image.new("RGB", (800, 600), (255, 255, 255)).save(blank)
    assert main(["solve", str(blank)]) == ExitCode.NO_GRID


def test_a_batch_runs_on_a_local_dask_cluster(folder, samples):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is a dev extra")
    tasks = [Task(src, Options(), write_image=False) for src in expand([folder])]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        recs = list(run_batch(tasks, client))
    assert [r["solution"] for r in recs] == [expected(samples, n) for n in sorted(PICTURES)]


@pytest.mark.parametrize("kept", [1, 2])
def test_one_picture_holding_several_grids_has_a_summary_only_when_several_puzzles_are_kept(
        samples, monkeypatch, capfd, kept):
    """A page's grids that are no KenKen are left out: one puzzle kept (the page's #2) and refused is
    one line on stderr, as any refused picture; two kept get the batch's summary after their lines."""
    from kkvision.report import record

    def solve_source(task: Task) -> list[dict]:
        return [dict(record("solve", str(task.source.path), exit_code=13, error="unsure of the labels"),
                     index=k, seconds=0.1) for k in range(2, 2 + kept)]

    monkeypatch.setattr(batch, "solve_source", solve_source)
    assert main(["solve", "--no-image", str(samples / "photo-6x6.jpg")]) == 13
    err = capfd.readouterr().err.splitlines()
    assert [line.startswith("kkvision: error: ") for line in err] == [True] * kept + [False] * (kept - 1)
    if kept == 2:
        assert "1 inputs, 2 puzzles: 0 solved; refused: 2 with exit 13" in err[-1]
