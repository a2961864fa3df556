"""Installed as a user would install it: a wheel, outside the checkout; the
entry points and the options every command takes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2

from kkvision.cli import main
from kkvision.errors import ExitCode

ROOT = Path(__file__).resolve().parents[1]


def test_a_wheel_installed_outside_the_checkout_solves_a_sample(tmp_path, samples):
    wheels, target = tmp_path / "wheels", tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(wheels.glob("kkvision-*.whl"))
    subprocess.run(pip + ["install", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    assert (target / "kkvision" / "models" / "labels.onnx").is_file()
    env = {**os.environ, "PYTHONPATH": str(target)}  # the installed copy, not the checkout
    out = subprocess.run([sys.executable, "-m", "kkvision", "solve", "--json", "--no-image",
                          str(samples / "photo-6x6.jpg")], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    expected = json.loads((samples / "photo-6x6.expected.json").read_text())
    assert json.loads(out.stdout)["solution"] == expected["solution"]
    where = subprocess.run([sys.executable, "-c", "import kkvision; print(kkvision.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=60).stdout
    assert where.startswith(str(target))


def test_version_names_the_engines(capsys):
    try:
        code = main(["--version"])
    except SystemExit as exc:  # argparse's version action exits
        code = exc.code
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("kkvision ") and "OpenCV" in out and "OR-Tools" in out and "tesseract" in out


def test_quiet_and_verbose_are_taken_after_the_subcommand(samples, tmp_path, capfd):
    src = tmp_path / "p.jpg"
    src.write_bytes((samples / "photo-6x6.jpg").read_bytes())
    assert main(["solve", str(src), "-q"]) == 0
    assert capfd.readouterr().err == ""  # not even "solution drawn into ..."
    assert main(["solve", str(src), "--no-image", "-v"]) == 0
    assert "grid found" in capfd.readouterr().err


def test_the_output_picture_takes_the_format_its_name_asks_for(samples, tmp_path):
    src = tmp_path / "p.jpg"
    src.write_bytes((samples / "photo-6x6.jpg").read_bytes())
    for name, magic in (("o.jpg", b"\xff\xd8\xff"), ("o.webp", b"RIFF"), ("o.png", b"\x89PNG")):
        assert main(["solve", str(src), "-q", "-o", str(tmp_path / name)]) == 0
        data = (tmp_path / name).read_bytes()
        assert data.startswith(magic) and cv2.imdecode(__import__("numpy").frombuffer(data, "uint8"), 1) is not None
    assert main(["solve", str(src), "-q", "-o", str(tmp_path / "o.gif")]) == ExitCode.USAGE
    assert not (tmp_path / "o.gif").exists()
