"""Stage 0 and the command line: hostile and malformed inputs end at once, with
their exit code and ONE line on stderr (captured at the file-descriptor level,
so a codec library's own messages would show)."""

import os
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from kkvision.cli import main
from kkvision.errors import ExitCode


def png_declaring(width: int, height: int, rows: int) -> bytes:
    """A PNG whose header declares width x height but which holds only `rows` rows."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff" * width for _ in range(rows))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def run(capfd, *argv) -> tuple[int, list[str]]:
    code = main(["solve", "--no-image", *map(str, argv)])
    err = capfd.readouterr().err
    return code, [line for line in err.splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["x.jpg", "x.png"])
def test_an_empty_picture_is_bad_input(tmp_path, capfd, name):
    (tmp_path / name).write_bytes(b"")
    code, lines = run(capfd, tmp_path / name)
    assert code == ExitCode.INPUT and len(lines) == 1 and "empty" in lines[0]


@pytest.mark.parametrize("shape", [(4000, 1), (1, 4000)])
def test_a_picture_one_pixel_thin_is_refused(tmp_path, capfd, shape):
    path = tmp_path / "thin.png"
    cv2.imwrite(str(path), np.full(shape + (3,), 255, np.uint8))
    code, lines = run(capfd, path)
    assert code in (ExitCode.INPUT, ExitCode.NO_GRID) and len(lines) == 1


@pytest.mark.parametrize("side, rows", [(30000, 10), (60000, 1)])
def test_a_header_declaring_too_many_pixels_is_refused_before_decoding(tmp_path, capfd, side, rows):
    path = tmp_path / "big.png"
    path.write_bytes(png_declaring(side, side, rows))
    code, lines = run(capfd, path)
    assert code == ExitCode.INPUT and len(lines) == 1
    assert "image too large" in lines[0] and "--max-pixels" in lines[0] and "libpng" not in lines[0]


def test_a_truncated_picture_within_the_limit_gives_one_line(tmp_path, capfd):
    path = tmp_path / "cut.png"
    path.write_bytes(png_declaring(3000, 3000, 10))  # 9 MP declared, 10 rows of data: libpng complains
    code, lines = run(capfd, path, "--max-pixels", 10_000_000)
    assert code == ExitCode.INPUT and len(lines) == 1 and lines[0].startswith("kkvision: error:")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_at_once(tmp_path, capfd):
    fifo = tmp_path / "x.png"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    code, lines = run(capfd, fifo)
    assert code == ExitCode.INPUT and len(lines) == 1 and "not a regular file" in lines[0]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_device_is_refused_at_once(capfd):
    code, lines = run(capfd, "/dev/zero")
    assert code == ExitCode.INPUT and len(lines) == 1


def test_random_noise_is_no_puzzle(tmp_path, capfd):
    path = tmp_path / "noise.png"
    cv2.imwrite(str(path), np.random.default_rng(1).integers(0, 256, (800, 800, 3), dtype=np.uint8))
    code, lines = run(capfd, path)
    assert code == ExitCode.NO_GRID and len(lines) == 1


def test_output_into_a_missing_folder_is_refused_before_any_work(samples, tmp_path, capfd):
    code = main(["solve", str(samples / "kk0.j.txt"), "-o", str(tmp_path / "no" / "such" / "out.png")])
    lines = capfd.readouterr().err.strip().splitlines()
    assert code == ExitCode.INPUT and len(lines) == 1 and "does not exist" in lines[0]


def test_one_output_for_several_inputs_is_a_usage_error(samples, capfd):
    code = main(["solve", str(samples / "kk0.j.txt"), str(samples / "kk0.j.txt"), "-o", "x.png"])
    captured = capfd.readouterr()
    assert code == ExitCode.USAGE and captured.out == "" and len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize("limit", ["-1", "0", "nan", "1e9"])
def test_an_impossible_time_limit_is_a_usage_error(samples, capfd, limit):
    code = main(["solve", str(samples / "kk0.j.txt"), "--time-limit", limit])
    captured = capfd.readouterr()
    assert code == ExitCode.USAGE and captured.out == "" and len(captured.err.strip().splitlines()) == 1


def test_answers_from_a_device_are_refused(samples, capfd):
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    code = main(["check", "--no-image", str(samples / "kk0.j.txt"), "/dev/zero"])
    assert code == ExitCode.INPUT and len(capfd.readouterr().err.strip().splitlines()) == 1


# --- fuzz: corrupted and odd-sized pictures --------------------------------------------------------

HANG_GUARD = 30.0  # seconds: not a speed measure (bench/ has those), only a guard against endless work


def _read(data: bytes, suffix: str = ".png") -> None:
    import time

    from kkvision.errors import KkvisionError
    from kkvision.pipeline import Options, read_source
    from kkvision.sources import of_bytes

    t0 = time.monotonic()
    try:
        page = read_source(of_bytes(data, "fuzz" + suffix), Options(time_limit=5.0))
        errors = [outcome.error for outcome in page.outcomes if outcome.error is not None]
    except KkvisionError as exc:
        errors = [exc]
    for exc in errors:  # the base class with its exit code 1 is kkvision's own "internal error"
        assert exc.exit_code != ExitCode.SOFTWARE, exc.message
    assert time.monotonic() - t0 < HANG_GUARD


def _sample_bytes(ext: str) -> bytes:
    image = cv2.imread(str(Path(__file__).resolve().parents[1] / "samples" / "screenshot-5x5.png"))
    return cv2.imencode(ext, cv2.resize(image, (240, 240), interpolation=cv2.INTER_AREA))[1].tobytes()


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ext=st.sampled_from([".png", ".jpg"]), flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)),
                                                            max_size=40),
       cut=st.one_of(st.none(), st.floats(0.0, 0.98)))
def test_corrupted_pictures_give_only_kkvision_errors(ext, flips, cut):
    # A cut picture never decodes, nor does a PNG with a byte changed (its checksums), nor mostly a JPEG
    # with its headers hit: a whole JPEG has its bytes changed in the compressed pixels, past its headers,
    # so that about a quarter of the draws decode, damaged, and go on through every stage.  (30 draws take
    # longer than the 40 did when the decoder refused all but the rare uncut one.)
    data = bytearray(_sample_bytes(ext))
    start = 0
    if ext == ".jpg" and cut is None:
        sos = data.index(b"\xff\xda")  # start of scan: its segment's length, then the pixels
        start = sos + 2 + int.from_bytes(data[sos + 2:sos + 4], "big")
    for where, value in flips:
        data[min(len(data) - 1, start + int(where * (len(data) - start)))] = value
    _read(bytes(data if cut is None else data[: int(cut * len(data))]), ext)


@settings(max_examples=30, deadline=None)
@given(w=st.integers(1, 90), h=st.integers(1, 90), seed=st.integers(0, 1000))
def test_odd_sized_pictures_give_only_kkvision_errors(w, h, seed):
    noise = np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)
    _read(cv2.imencode(".png", noise)[1].tobytes())
