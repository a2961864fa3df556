"""Installed as a user would install it: a wheel (the runtime and the models only, no dev
code), outside the checkout; the entry points and the options every command takes."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import cv2
import pytest

from kkvision.cli import main
from kkvision.errors import ExitCode

ROOT = Path(__file__).resolve().parents[1]
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
# what a checkout holds that is not source: never copied into the tree the wheel is built from
NOT_SOURCE = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache",
              ".ruff_cache", "out")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built once from a copy of the checkout's source: setuptools never clears its
    build/ folder, so a wheel built in the checkout could carry modules removed since the last
    build there."""
    work = tmp_path_factory.mktemp("wheel")
    tree, wheels = work / "tree", work / "wheels"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    subprocess.run(PIP + ["wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(tree)],
                   check=True, capture_output=True, timeout=300)
    return next(wheels.glob("kkvision-*.whl"))


def not_runtime(names: list[str]) -> list[str]:
    """The files of a wheel that are no part of the runtime: training or synthetic-picture code,
    the puzzle generator, the dev-only folder, or any code beside the model files."""
    bad = [n for n in names if any(w in n for w in ("train_", "synth", "generate", "devtools"))]
    return bad + [n for n in names if n.startswith("kkvision/models/") and n.endswith(".py")
                  and n != "kkvision/models/__init__.py" and n not in bad]


def test_the_wheel_holds_the_runtime_and_the_models_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert not_runtime(names) == []
    for needed in ("kkvision/models/labels.onnx", "kkvision/models/digits.onnx", "kkvision/models/__init__.py",
                   "kkvision/cli.py", "kkvision/__main__.py"):
        assert needed in names
    assert {n.split("/")[0] for n in names if not n.startswith("kkvision-")} == {"kkvision"}


def test_the_wheel_check_finds_dev_code():
    names = ["kkvision/cli.py", "kkvision/models/__init__.py", "kkvision/models/labels.onnx",
             "kkvision/synth.py", "kkvision/generate.py", "kkvision/models/train_labels.py",
             "kkvision/models/helper.py", "devtools/__init__.py"]
    assert sorted(not_runtime(names)) == sorted(names[3:])


def test_a_wheel_installed_outside_the_checkout_solves_a_sample(tmp_path, samples, wheel):
    target = tmp_path / "site"
    subprocess.run(PIP + ["install", "--no-deps", "--target", str(target), str(wheel)],
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
    assert "onnxruntime 1." in out  # the networks' runtime in the server and a batch, installed with kkvision


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
