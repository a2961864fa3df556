import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def pytest_collection_modifyitems(config, items):
    """`@pytest.mark.needs_tesseract` tests run the real tesseract binary; skip them without it."""
    if shutil.which("tesseract"):
        return
    skip = pytest.mark.skip(reason="tesseract binary not installed (apt install tesseract-ocr)")
    for item in items:
        if "needs_tesseract" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def samples() -> Path:
    return SAMPLES
