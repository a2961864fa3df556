import os
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


@pytest.fixture
def misreading(monkeypatch):
    """misreading({model: k}): each named label model reads every other label of a grid (those whose
    place in the call is k mod 2) a digit off, surely (0.6), the label as printed next (0.4), the rest
    as it reads them; records the models asked, in order, and returns that list.  The readers' fall-backs
    (the second model, both together, the grid turned) are tested on real scenes with it, whatever the
    shipped models read unaided."""
    from kkvision.vision import labels
    from kkvision.vision.stages import LabelReading

    real = labels.read_labels

    def use(lost: dict[str, int]) -> list[str]:
        calls: list[str] = []

        def read(gray, boxes, model=None):
            model = model or labels.MODEL
            calls.append(model)

            def misread(text: str) -> str:
                digits = text.rstrip("+-*/")
                return str(int(digits) + 1) + text[len(digits):] if digits.isdigit() else text

            return [LabelReading(((misread(rd.best), 0.6), (rd.best, 0.4)))
                    if model in lost and k % 2 == lost[model] and rd.best else rd
                    for k, rd in enumerate(real(gray, boxes, model))]

        monkeypatch.setattr(labels, "read_labels", read)
        return calls

    return use


# Skips that say only that data outside the repository is absent (../shared): a checkout without it
# skips those cleanly by design.  Every other skip (an extra or a browser not installed, a font
# missing) counts against KKVISION_SKIP_BUDGET when it is set (.ci/run states CI's).
OUTSIDE = (str(REAL_DEV), str(HANDWRITING), "seed-puzzles")


def pytest_sessionfinish(session, exitstatus):
    """With KKVISION_SKIP_BUDGET set, fail the run when more tests skipped than it allows (not counting
    the skips for ../shared), naming their reasons: a missing extra must not pass as quiet skips."""
    budget = os.environ.get("KKVISION_SKIP_BUDGET")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if budget is None or reporter is None:
        return
    reasons: dict[str, int] = {}
    for report in reporter.stats.get("skipped", []):
        reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)
        if not any(part in reason for part in OUTSIDE):
            reasons[reason] = reasons.get(reason, 0) + 1
    counted = sum(reasons.values())
    reporter.write_line(f"\nskips counted against the budget: {counted} of {budget} allowed"
                        + "".join(f"\n  {n} x {reason}" for reason, n in sorted(reasons.items())))
    if counted > int(budget):
        reporter.write_line(f"FAILED: {counted} tests skipped, more than KKVISION_SKIP_BUDGET={budget}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
