import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
REAL_DEV = ROOT.parent / "shared" / "real-dev"  # real pictures with their truth; never copied into the repo
HANDWRITING = ROOT.parent / "shared" / "handwriting" / "mnist-train"  # real writers' digits (devtools/hands.py)


def pytest_collection_modifyitems(config, items):
    """Skip `needs_tesseract` tests without the tesseract binary, and
    `needs_shared` tests without ../shared/real-dev beside the checkout, `needs_handwriting` tests
    without ../shared/handwriting."""
    skips = {}
    if not shutil.which("tesseract"):
        skips["needs_tesseract"] = pytest.mark.skip(reason="tesseract binary not installed (apt install tesseract-ocr)")
    if not REAL_DEV.is_dir():
        skips["needs_shared"] = pytest.mark.skip(reason=f"{REAL_DEV} is absent")
    if not (HANDWRITING / "train-images-idx3-ubyte.gz").is_file():
        skips["needs_handwriting"] = pytest.mark.skip(reason=f"{HANDWRITING} is absent")
    for item in items:
        for marker, skip in skips.items():
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture
def real_dev() -> Path:
    return REAL_DEV
