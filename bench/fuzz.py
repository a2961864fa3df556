"""Hostile and malformed inputs, thousands of them, through the command line.

    .venv/bin/python bench/fuzz.py [--cases 5000] [--seed 1] [--jobs 2] [--show 5]

Each case is a file made from a seed: random bytes; puzzle texts in every
format, written by kkvision then truncated, cut, spliced, with characters or
lines deleted, duplicated or replaced, huge numbers and odd unicode put in;
pictures (the samples, re-encoded) with bytes flipped, truncated, shrunk to
odd sizes, or with headers declaring huge sizes; random-noise pictures.  Each
is run as `kkvision solve --no-image --time-limit 5 FILE` in a worker process
(in-process `cli.main`, stderr captured at file descriptor 2) and counted as:
  clean          an allowed exit code for its kind and, on failure, exactly one
                 line on stderr
  internal error exit 1
  hang           no answer within HANG seconds
  wrong exit     an exit code a case of its kind should never give
  stderr lines   a failure that printed other than one line
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
import zlib
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HANG = 15.0  # seconds: --time-limit 5, plus reading, plus a margin
TEXT_EXITS = {0, 3, 6, 7, 8, 12}  # a text may be a fine puzzle, unreadable, invalid, unsolvable, ambiguous, slow
IMAGE_EXITS = {0, 3, 4, 5, 6, 7, 8, 12, 13}


def _puzzle_texts(rng: random.Random) -> list[tuple[str, str]]:
    from devtools.generate import random_puzzle
    from kkvision import formats

    n = rng.randint(3, 7)
    puzzle, _ = random_puzzle(n, rng.randint(0, 10**6), unique=False)
    return [(fmt, formats.write(puzzle, fmt)) for fmt in formats.FORMATS]


def _mutate_text(text: str, rng: random.Random) -> str:
    junk = ["", "0", "-1", "9" * rng.randint(5, 5000), "1e400", "Infinity", "NaN", "×", "÷", "\x00", "\ufeff",
            "é", "\U0001f600", "#", ",", ";", "\n", "\t", "[", "]", "{", "}", '"', "null", "true", "-0", "A99"]
    kind = rng.randrange(7)
    if kind == 0:  # truncate
        return text[: rng.randint(0, len(text))]
    if kind == 1:  # delete a span
        a = rng.randint(0, len(text))
        return text[:a] + text[a + rng.randint(1, 20):]
    if kind == 2:  # duplicate a line
        lines = text.splitlines() or [""]
        i = rng.randrange(len(lines))
        return "\n".join(lines[:i + 1] + [lines[i]] + lines[i + 1:])
    if kind == 3:  # replace tokens
        out = text
        for _ in range(rng.randint(1, 5)):
            a = rng.randint(0, len(out))
            out = out[:a] + rng.choice(junk) + out[a + rng.randint(0, 3):]
        return out
    if kind == 4:  # swap two lines
        lines = text.splitlines()
        if len(lines) > 1:
            i, j = rng.sample(range(len(lines)), 2)
            lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)
    if kind == 5:  # a number made huge
        digits = [i for i, ch in enumerate(text) if ch.isdigit()]
        if digits:
            i = rng.choice(digits)
            return text[:i] + "9" * rng.randint(3, 400) + text[i:]
        return text
    return "".join(rng.choice(text + "".join(junk)) for _ in range(rng.randint(0, 200)))  # shuffled soup


def _png(width: int, height: int, rows: int) -> bytes:
    import struct

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\x80" * min(width, 4000) for _ in range(rows))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _picture(rng: random.Random) -> tuple[str, bytes]:
    import cv2
    import numpy as np

    samples = sorted(p for p in (ROOT / "samples").iterdir() if p.suffix in (".png", ".jpg"))
    kind = rng.randrange(6)
    if kind == 0:  # random noise, or a flat colour
        h, w = rng.randint(32, 600), rng.randint(32, 600)
        a = np.random.default_rng(rng.randint(0, 10**6)).integers(0, 256, (h, w, 3), dtype=np.uint8)
        if rng.random() < 0.3:
            a[:] = rng.randint(0, 255)
        return ".png", cv2.imencode(".png", a)[1].tobytes()
    if kind == 1:  # a header declaring a huge or odd size
        w, h = rng.choice([(30000, 30000), (60000, 60000), (1, 4000), (4000, 1), (0, 10), (65535, 3)])
        return ".png", _png(max(w, 1), max(h, 1), rng.randint(0, 5))
    image = cv2.imread(str(rng.choice(samples)))
    if kind == 2:  # shrunk to an odd size
        size = (rng.randint(1, 120), rng.randint(1, 120))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        return ".png", cv2.imencode(".png", image)[1].tobytes()
    ext = rng.choice([".png", ".jpg"])
    scale = rng.uniform(0.3, 1.0)
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    data = bytearray(cv2.imencode(ext, image)[1].tobytes())
    if kind == 3:  # bytes flipped
        for _ in range(rng.randint(1, 50)):
            i = rng.randrange(len(data))
            data[i] = rng.randrange(256)
    elif kind == 4:  # truncated
        data = data[: rng.randint(0, len(data))]
    else:  # a slice spliced from elsewhere
        a, b = sorted(rng.sample(range(len(data)), 2))
        data = data[:a] + data[b:] + data[a:b]
    return ext, bytes(data)


def make_case(index: int, seed: int) -> tuple[str, str, bytes]:
    """(kind, file suffix, bytes) of case `index`."""
    rng = random.Random(seed * 1_000_003 + index)
    u = rng.random()
    if u < 0.08:
        return "random bytes", rng.choice([".txt", ".png", ".jpg", ""]), bytes(rng.randrange(256) for _ in range(rng.randint(0, 3000)))
    if u < 0.75:
        fmt, text = rng.choice(_puzzle_texts(rng))
        return f"text {fmt}", ".txt", _mutate_text(text, rng).encode("utf-8", "surrogatepass")
    return "picture", *_picture(rng)


class _Hang(Exception):
    pass


def _alarm(signum, frame):  # type: ignore[no-untyped-def]
    raise _Hang


def run_case(args: tuple[int, int, str]) -> tuple[str, int | None, int, float]:
    """(kind, exit code or None for a hang, stderr lines, seconds)."""
    index, seed, folder = args
    from kkvision.cli import main

    kind, suffix, data = make_case(index, seed)
    path = Path(folder) / f"case{index}{suffix}"
    path.write_bytes(data)
    err = tempfile.TemporaryFile()
    saved_err, saved_out = os.dup(2), os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    sys.stderr.flush()
    sys.stdout.flush()
    os.dup2(err.fileno(), 2)
    os.dup2(devnull, 1)
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG)
    t0 = time.perf_counter()
    code: int | None
    try:
        code = main(["solve", "--no-image", "--time-limit", "5", str(path)])
    except _Hang:
        code = None
    except SystemExit as exc:  # argparse
        code = int(exc.code or 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stderr.flush()
        sys.stdout.flush()
        os.dup2(saved_err, 2)
        os.dup2(saved_out, 1)
        os.close(saved_err)
        os.close(saved_out)
        os.close(devnull)
    seconds = time.perf_counter() - t0
    err.seek(0)
    lines = [ln for ln in err.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    path.unlink()
    return kind, code, len(lines), seconds


def verdict(kind: str, code: int | None, lines: int) -> str:
    if code is None:
        return "hang"
    if code == 1:
        return "internal error"
    allowed = TEXT_EXITS if kind.startswith("text") else IMAGE_EXITS | TEXT_EXITS
    if code not in allowed:
        return "wrong exit"
    if code != 0 and lines != 1:
        return "stderr lines"
    return "clean"


@saved("fuzz")
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=5, help="list this many failing cases of each verdict")
    args = ap.parse_args()
    table: dict[str, Counter] = defaultdict(Counter)
    slowest: dict[str, float] = defaultdict(float)
    failing: dict[str, list[str]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as folder, ProcessPoolExecutor(args.jobs) as pool:
        jobs = [(i, args.seed, folder) for i in range(args.cases)]
        for (i, _, _), (kind, code, lines, seconds) in zip(jobs, pool.map(run_case, jobs, chunksize=20)):
            v = verdict(kind, code, lines)
            for key in {"texts" if kind.startswith("text") else kind, kind, "all"}:
                table[key][v] += 1
                slowest[key] = max(slowest[key], seconds)
            if v != "clean" and len(failing[v]) < args.show:
                failing[v].append(f"case {i} ({kind}): exit {code}, {lines} stderr lines, {seconds:.1f} s")
    cols = ("clean", "internal error", "hang", "wrong exit", "stderr lines")
    print("| kind | cases | " + " | ".join(cols) + " | slowest s |")
    print("|---|---|" + "---|" * len(cols) + "---|")
    for key in sorted(table, key=lambda k: (k != "all", k)):
        c = table[key]
        print(f"| {key} | {sum(c.values())} | " + " | ".join(str(c[v]) for v in cols) + f" | {slowest[key]:.1f} |")
    for v, cases in failing.items():
        print(f"\n{v}:", *cases, sep="\n  ")
    bad = sum(table["all"][v] for v in ("internal error", "hang"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
