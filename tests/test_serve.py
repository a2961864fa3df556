"""`kkvision serve` through Starlette's test client: every endpoint gives the command line's
records (the same as `kkvision ... --json` for the same input) plus the drawn picture, and every
refusal its documented status (400, 413, 503) with one clear message."""

import asyncio
import base64
import json
import re
import struct
import time
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from kkvision.cli import main  # noqa: E402
from kkvision.errors import ExitCode, UsageError  # noqa: E402
from kkvision.serve.app import CSP, clean_name, make_app  # noqa: E402
from kkvision.serve.config import ServeConfig, parse_size  # noqa: E402
from kkvision.serve.pool import Busy, WorkerPool  # noqa: E402
from kkvision.serve.work import Job, parse_label  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "samples" / "photo-6x6.jpg"
NYT = ROOT / "samples" / "nyt-2009-02-13.png"
NAMES = ROOT / "samples" / "names-3x3.txt"
VOLATILE = ("input", "image", "seconds")  # the file given, the picture written, the time taken


@pytest.fixture(scope="module")
def client():
    config = ServeConfig(workers=1, queue=2, max_upload=3_000_000, max_pixels=30_000_000, time_limit=20)
    pool = WorkerPool(config.worker_count, config.queue_size)
    with TestClient(make_app(config, pool)) as c:
        c.pool = pool
        yield c


def cli_records(args, capsys):
    capsys.readouterr()
    main(args)
    out, found, at = capsys.readouterr().out, [], 0
    while out[at:].strip():  # one indented record, or JSON Lines
        rec, at = json.JSONDecoder().raw_decode(out, at + len(out[at:]) - len(out[at:].lstrip()))
        found.append(rec)
    return found


def same(a: dict, b: dict) -> bool:
    return {k: v for k, v in a.items() if k not in VOLATILE} == {k: v for k, v in b.items() if k not in VOLATILE}


def post(client, command, path=PHOTO, **fields):
    files = {"picture": (path.name, path.read_bytes(), "application/octet-stream")} if path else None
    data = {k: v for k, v in fields.items()}
    return client.post(f"/api/{command}", files=files, data=data)


def picture_of(body) -> np.ndarray:
    head, data = body["picture"].split(",", 1)
    assert head.startswith("data:image/")
    return cv2.imdecode(np.frombuffer(base64.b64decode(data), np.uint8), cv2.IMREAD_COLOR)


def test_solve_gives_the_command_lines_record_and_the_drawn_picture(client, capsys):
    r = post(client, "solve")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    body = r.json()
    [rec] = body["records"]
    [cli] = cli_records(["solve", "--json", "--no-image", str(PHOTO)], capsys)
    assert rec["schema"] == "kkvision/1" and rec["ok"] and same(rec, cli)
    assert rec["solution"] == json.loads((ROOT / "samples" / "photo-6x6.expected.json").read_text())["solution"]
    assert body["picture_name"] == "photo-6x6.solved.jpg"
    drawn, original = picture_of(body), cv2.imread(str(PHOTO))
    assert drawn.shape == original.shape
    assert np.abs(drawn.astype(int) - original).mean() > 1  # the digits are drawn in


def test_hint_and_check_give_the_command_lines_records(client, capsys, tmp_path):
    rec = post(client, "hint", cells="2").json()["records"][0]
    assert same(rec, cli_records(["hint", "--json", "--no-image", "--cells", "2", str(PHOTO)], capsys)[0])
    assert len(rec["hints"]) == 2 and rec["solution"] is None
    # typed answers with one cell wrong: exit 11 naming it, as `kkvision check PICTURE ANSWERS`
    solution = json.loads((ROOT / "samples" / "photo-6x6.expected.json").read_text())["solution"]
    rows = ["".join(map(str, row)) for row in solution]
    rows[2] = ("1" if rows[2][0] != "1" else "2") + rows[2][1:]
    r = post(client, "check", answers="\n".join(rows))
    assert r.status_code == 200
    rec = r.json()["records"][0]
    assert rec["exit_code"] == ExitCode.ANSWERS_WRONG and rec["wrong"] == [[2, 0]]
    typed = tmp_path / "answers.txt"
    typed.write_text("\n".join(rows) + "\n")
    assert same(rec, cli_records(["check", "--json", "--no-image", str(PHOTO), str(typed)], capsys)[0])
    # the answers read from the picture: none written, so all blank and no wrong one (exit 0)
    rec = post(client, "check").json()["records"][0]
    assert same(rec, cli_records(["check", "--json", "--no-image", str(PHOTO)], capsys)[0])
    assert rec["wrong"] == [] and len(rec["blank"]) == 36


def test_a_text_puzzle_and_a_label_given(client):
    r = client.post("/api/solve", data={"text": NAMES.read_text()})
    body = r.json()
    assert r.status_code == 200 and body["picture"] is None
    assert body["records"][0]["solution"] == [[2, 3, 1], [1, 2, 3], [3, 1, 2]]
    rec = post(client, "solve", NYT, label="A1=3").json()["records"][0]  # no solution with it
    assert rec["exit_code"] == ExitCode.UNSOLVABLE and "A1=3" in rec["error"]
    r = post(client, "solve", NYT, label="B2=3-")  # not a possible clue there (a difference on one cell): the CLI's exit 2
    assert r.status_code == 400 and "not a possible clue" in r.json()["records"][0]["error"]
    rec = post(client, "solve", NYT, label="A1=7+").json()["records"][0]
    assert rec["ok"] and {lb["cell"]: lb["how"] for lb in rec["labels"]}["A1"] == "given"


@pytest.mark.parametrize("fields, files, words", [
    ({"label": "B3 is 12"}, True, "CELL=LABEL"),
    ({"cells": "0"}, True, "cells must be"),
    ({"cells": "many"}, True, "whole number"),
    ({"puzzle": "0"}, True, "counts from 1"),
    ({"cells": "2"}, False, "send a picture"),
    ({"text": "# 3\n"}, True, "one picture or one puzzle text"),
])
def test_a_bad_request_gets_400_with_one_message(client, fields, files, words):
    r = client.post("/api/hint", data=fields,
                    files={"picture": ("p.jpg", PHOTO.read_bytes(), "image/jpeg")} if files else None)
    assert r.status_code == 400
    [rec] = r.json()["records"]
    assert rec["exit_code"] == ExitCode.USAGE and words in rec["error"] and "Traceback" not in r.text


def test_not_a_picture_malformed_multipart_and_not_a_form_get_400(client):
    r = client.post("/api/solve", files={"picture": ("x.jpg", b"\xff\xd8\xff" + bytes(500), "image/jpeg")})
    assert r.status_code == 400 and r.json()["records"][0]["exit_code"] == ExitCode.INPUT
    r = client.post("/api/solve", content=b"--xyz\r\nContent-Disposition: form-data; name=\"picture\"; filename=\"a\"\r\n"
                    b"garbage without an end", headers={"content-type": "multipart/form-data; boundary=xyz"})
    assert r.status_code == 400 and "malformed" in r.json()["records"][0]["error"]
    r = client.post("/api/solve", content=b'{"text": "x"}', headers={"content-type": "application/json"})
    assert r.status_code == 400 and "send a form" in r.json()["records"][0]["error"]
    assert client.post("/api/nonsense", data={"text": "x"}).status_code == 404


def png_header(width: int, height: int) -> bytes:
    """A PNG that declares width x height pixels (and holds none): only its header is ever read."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def test_over_the_upload_and_pixel_limits_gets_413_before_a_worker_sees_it(client):
    served = client.pool.stats().served
    r = client.post("/api/solve", files={"picture": ("big.jpg", bytes(3_100_000), "image/jpeg")})
    assert r.status_code == 413 and "larger than the server's limit (3 MB)" in r.json()["records"][0]["error"]
    r = client.post("/api/solve", files={"picture": ("huge.png", png_header(8000, 8000), "image/png")})
    assert r.status_code == 413 and "64 MP" in r.json()["records"][0]["error"]
    r = client.post("/", files={"picture": ("big.jpg", bytes(3_100_000), "image/jpeg")})  # the page says it too
    assert r.status_code == 413 and "text/html" in r.headers["content-type"] and "larger than" in r.text
    assert client.pool.stats().served == served


def test_every_response_has_the_security_headers_and_the_page_no_inline_code(client):
    page = client.get("/")
    for r in (page, post(client, "solve", NYT), client.get("/static/page.js")):
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
    assert "unsafe-inline" not in CSP and "script-src 'self'" in CSP
    html = page.text
    assert 'accept="image/*" capture="environment"' in html
    assert "<script>" not in html and " style=" not in html and " on" + "click=" not in html
    for asset in ("/static/page.js", "/static/page.css", "/static/icon.svg"):
        assert client.get(asset).status_code == 200, asset
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html


def test_the_page_answers_a_form_post_without_javascript(client):
    solution = json.loads((ROOT / "samples" / "photo-6x6.expected.json").read_text())["solution"]
    r = client.post("/", data={"command": "solve"}, files={"picture": ("photo.jpg", PHOTO.read_bytes(), "image/jpeg")})
    assert r.status_code == 200 and "<!doctype html>" in r.text
    cells = [int(d) for d in re.findall(r"<td>(\d)</td>", r.text)]
    assert cells == [d for row in solution for d in row]
    assert re.search(r'href="data:image/jpeg;base64,[^"]+" download="photo.solved.jpg"', r.text)
    cages = json.loads((ROOT / "samples" / "photo-6x6.expected.json").read_text())["puzzle"]["cages"]
    assert r.text.count('<a class="label ') == len(cages)  # every cage's label, tappable over the picture
    r = client.post("/part", data={"command": "hint", "cells": "1"},
                    files={"picture": ("photo.jpg", PHOTO.read_bytes(), "image/jpeg")})
    assert "<!doctype" not in r.text and 'class="hints"' in r.text


def test_a_refused_puzzle_shows_what_was_read_and_asks_for_labels(client):
    r = client.post("/", data={"command": "solve", "label": "A1=3"},
                    files={"picture": ("nyt.png", NYT.read_bytes(), "image/png")})
    assert r.status_code == 200 and "No solution as read" in r.text
    assert "<details open>" in r.text and 'name="label.A1"' in r.text and 'value="3"' in r.text
    assert re.search(r'class="ask-these">[^<]*<strong>A1</strong>\.', r.text)  # the label given is what to check
    assert 'class="label given"' in r.text  # the label given, shown over the picture as given


def test_the_pages_fix_form_gives_labels_one_field_each(client):
    """Without JavaScript the page's fix form posts label.CELL (label.N.CELL on a page of several)
    fields, empty for labels left as read: each filled one is a --label."""
    r = client.post("/api/solve", data={"label.A1": "7+", "label.D1": ""},
                    files={"picture": ("nyt.png", NYT.read_bytes(), "image/png")})
    rec = r.json()["records"][0]
    hows = {lb["cell"]: (lb["used"], lb["how"]) for lb in rec["labels"]}
    assert rec["ok"] and hows["A1"] == ("7+", "given") and hows["D1"][1] != "given"
    r = client.post("/api/solve", data={"label.2.A1": "7+"}, files={"picture": ("nyt.png", NYT.read_bytes(), "image/png")})
    assert r.status_code == 400 and "puzzle" in r.json()["records"][0]["error"]  # no second puzzle there


def test_several_puzzles_on_a_page_are_each_numbered(client):
    a, b = cv2.imread(str(ROOT / "samples" / "screenshot-5x5.png")), cv2.imread(str(ROOT / "samples" / "clean-8x8.png"))
    h = max(a.shape[0], b.shape[0])
    pad = [cv2.copyMakeBorder(im, 0, h - im.shape[0], 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255)) for im in (a, b)]
    page = np.hstack([pad[0], np.full((h, 60, 3), 255, np.uint8), pad[1]])
    data = cv2.imencode(".png", page)[1].tobytes()
    body = client.post("/api/solve", files={"picture": ("page.png", data, "image/png")}).json()
    assert [(r["index"], r["ok"]) for r in body["records"]] == [(1, True), (2, True)]
    html = client.post("/part", data={"command": "solve"}, files={"picture": ("page.png", data, "image/png")}).text
    assert html.count('class="number"') == 2 and html.count('<circle class="badge"') == 2
    assert 'name="label.2.' in html  # a label of the second puzzle is named as the CLI's 2:CELL=LABEL


def test_a_job_past_the_time_limit_gets_the_exit_12_record_and_a_fresh_worker():
    config = ServeConfig(workers=1, queue=0, time_limit=0.05)
    pool = WorkerPool(1, 0)
    with TestClient(make_app(config, pool)) as c:
        pid = pool.stats().pids[0]
        r = post(c, "solve")
        rec = r.json()["records"][0]
        assert r.status_code == 200 and rec["exit_code"] == ExitCode.TIMEOUT and "time limit" in rec["error"]
        stats = pool.stats()
        assert stats.replaced == 1 and stats.pids[0] != pid and stats.running == 0
        assert c.post("/api/solve", data={"text": NAMES.read_text()}).json()["records"][0]["ok"]


def test_a_trickling_upload_gets_408_and_never_reaches_a_worker():
    """A body that does not arrive within the upload time: 408, and the pool is never asked."""
    async def go():
        pool = WorkerPool(1, 0)  # never started: a job reaching it would fail loudly
        app = make_app(ServeConfig(workers=1), pool, upload_seconds=0.3)
        scope = {"type": "http", "method": "POST", "path": "/api/solve", "raw_path": b"/api/solve",
                 "query_string": b"", "root_path": "", "scheme": "http", "http_version": "1.1",
                 "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000),
                 "headers": [(b"content-type", b"multipart/form-data; boundary=b"), (b"content-length", b"5000")]}
        calls = 0

        async def receive():
            nonlocal calls
            calls += 1
            if calls == 1:
                return {"type": "http.request", "body": b"--b\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\n",
                        "more_body": True}
            await asyncio.sleep(30)  # the rest never comes
            return {"type": "http.disconnect"}

        sent = []

        async def send(message):
            sent.append(message)

        t0 = time.perf_counter()
        await asyncio.wait_for(app(scope, receive, send), 10)
        return sent, time.perf_counter() - t0, pool.stats()

    sent, took, stats = asyncio.run(go())
    assert sent[0]["status"] == 408 and took < 5 and stats.served == 0
    assert "took longer than 0.3 s" in json.loads(sent[1]["body"])["records"][0]["error"]


def test_the_queue_is_bounded():
    """One job running and none may wait: the next is refused at once, with a time to come back."""
    async def go():
        pool = WorkerPool(1, 0)
        await pool.start()
        try:
            job = Job("solve", PHOTO.read_bytes(), "photo.jpg")
            first = asyncio.ensure_future(pool.run(job, 20))
            await asyncio.sleep(0.01)
            with pytest.raises(Busy) as busy:
                await pool.run(job, 20)
            assert busy.value.retry_after >= 1
            assert (await first).records[0]["ok"]
            return pool.stats()
        finally:
            pool.close()

    stats = asyncio.run(go())
    assert (stats.running, stats.waiting, stats.served) == (0, 0, 1)


def test_a_client_that_leaves_while_waiting_is_dropped_from_the_queue():
    async def go():
        pool = WorkerPool(1, 1)
        await pool.start()
        try:
            job = Job("solve", PHOTO.read_bytes(), "photo.jpg")
            first = asyncio.ensure_future(pool.run(job, 20))
            await asyncio.sleep(0.01)
            second = asyncio.ensure_future(pool.run(job, 20))
            await asyncio.sleep(0.01)
            assert pool.stats().waiting == 1
            second.cancel()  # the client hung up
            await asyncio.sleep(0.01)
            assert pool.stats().waiting == 0
            await first
            return pool.stats()
        finally:
            pool.close()

    stats = asyncio.run(go())
    assert (stats.running, stats.waiting, stats.served) == (0, 0, 1)


def test_a_job_runs_on_the_cores_no_other_job_is_running_on():
    """Alone, a job's OpenCV work (the label network's forward pass, the warps) spreads over every
    core; beside another running job it gets the cores left, at least one."""
    from kkvision.serve.work import Answer

    class Worker:  # stands in for a worker process: notes the threads each job is given
        def __init__(self):
            self.threads = []

        def call(self, job, deadline, threads):
            self.threads.append(threads)
            time.sleep(0.3)
            return Answer(200, ()), False

    async def go():
        pool = WorkerPool(2, 0, cores=2)
        pool._idle = asyncio.Queue()
        workers = [Worker(), Worker()]
        for w in workers:
            pool._idle.put_nowait(w)
        job = Job("solve", b"text", "puzzle.txt")
        try:
            first = asyncio.ensure_future(pool.run(job, 5))
            await asyncio.sleep(0.1)
            await asyncio.gather(first, pool.run(job, 5))  # the second starts while the first runs
            await pool.run(job, 5)  # alone again
        finally:
            pool.close()
        return [t for w in workers for t in w.threads]

    given = asyncio.run(go())
    assert sorted(given) == [1, 2, 2] and given.count(1) == 1


def test_labels_names_and_sizes_are_read_safely():
    assert str(parse_label("2:b3=12x")) == "2:B3=12*" and str(parse_label("A1 = 3")) == "A1=3"
    with pytest.raises(UsageError):
        parse_label("0:B3=12+")
    assert clean_name("../../etc/passwd", False) == "passwd"
    assert clean_name("C:\\Users\\me\\photo 1.jpg", False) == "photo 1.jpg"
    assert clean_name("<script>.jpg", False) == "script_.jpg" and clean_name("...", False) == "upload"
    assert clean_name("anything", True) == "text"
    assert parse_size("20MB") == 20_000_000 and parse_size("500k") == 500_000 and parse_size("1000") == 1000
    for bad in ("lots", "-1MB"):
        with pytest.raises(UsageError):
            parse_size(bad)
    for bad in (dict(port=70000), dict(workers=-1), dict(time_limit=0), dict(max_upload=10)):
        with pytest.raises(UsageError):
            ServeConfig(**bad)


def test_serve_help_says_how_to_open_it_from_a_phone_and_that_it_has_no_accounts(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--host 0.0.0.0" in out and "phone on the same network" in out and "no accounts" in out
    assert "default 127.0.0.1" in out


def test_serve_refuses_a_bad_command_line_with_exit_2(capsys):
    assert main(["serve", "--workers", "-3"]) == ExitCode.USAGE
    assert main(["serve", "--max-upload", "lots"]) == ExitCode.USAGE
    assert "--max-upload" in capsys.readouterr().err


def test_every_asset_of_the_page_ships_in_the_package():
    """The page's files are package data (pyproject's patterns cover each), so a wheel serves the page."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["kkvision.serve"]
    package = ROOT / "kkvision" / "serve"
    assets = [p.relative_to(package).as_posix() for p in package.rglob("*")
              if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert len(assets) >= 6 and "kkvision.serve" in tomllib.loads((ROOT / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["packages"]
    assert [a for a in assets if not any(fnmatch.fnmatch(a, p) for p in patterns)] == []


def test_the_start_message_names_addresses_that_work():
    from kkvision.serve.server import _url_host, phone_addresses

    assert _url_host("0.0.0.0") == "127.0.0.1" and _url_host("::") == "[::1]" and _url_host("10.0.0.5") == "10.0.0.5"
    assert phone_addresses("127.0.0.1") == []  # loopback only: no phone can reach it, none is named
    assert all(not a.startswith("127.") for a in phone_addresses("0.0.0.0"))


def test_a_picture_bigger_than_it_is_sent_back_is_drawn_at_the_size_sent_where_the_command_line_draws(
        client, tmp_path):
    from kkvision.serve.work import SHOWN_SIDE

    big = cv2.resize(cv2.imread(str(PHOTO)), None, fx=1.7, fy=1.7, interpolation=cv2.INTER_CUBIC)
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    body = post(client, "solve", path).json()
    assert body["records"][0]["ok"]
    drawn = picture_of(body)
    h, w = big.shape[:2]
    size = (round(w * SHOWN_SIDE / max(h, w)), round(h * SHOWN_SIDE / max(h, w)))
    assert max(h, w) > SHOWN_SIDE and drawn.shape[:2] == size[::-1]
    assert main(["solve", str(path), "-o", str(tmp_path / "cli.png")]) == 0
    cli = cv2.resize(cv2.imread(str(tmp_path / "cli.png")), size, interpolation=cv2.INTER_AREA)
    plain = cv2.resize(big, size, interpolation=cv2.INTER_AREA).astype(int)
    digits = np.abs(cli - plain).max(axis=2) > 60  # where the command line's answer digits are
    here = np.abs(drawn - plain).max(axis=2) > 30
    assert digits.sum() > 1000 and (here & digits).sum() > 0.9 * digits.sum() and here.sum() < 1.3 * digits.sum()


def test_only_check_reads_a_grid_in_part(monkeypatch):
    """The server asks the vision to read a grid whose answers hide labels in part for check alone
    (commands.READ_IN_PART), as the command line does: solve and hint need every cell."""
    from kkvision.serve import work

    seen = []

    def read(loaded, opts):
        seen.append(opts.in_part)
        raise UsageError("read no further")

    monkeypatch.setattr(work, "read_loaded", read)
    for command in ("solve", "hint", "check"):
        assert work.run(Job(command, PHOTO.read_bytes(), "photo.jpg")).status == 400
    assert seen == [False, False, True]
