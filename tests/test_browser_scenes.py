"""devtools/browser_scenes.py: KenKen pages drawn by Chromium, the held-out renderer of bench/browser.py.
Skipped without Playwright (the serve extra) or Chromium from the system's packages (scripts/setup.sh)."""

import pytest

pytest.importorskip("playwright.sync_api")
from devtools.browser_scenes import STRUCTURES, chromium, render  # noqa: E402
from kkvision.vision.read import read_page  # noqa: E402
from kkvision.vision.stages import VisionOptions  # noqa: E402

pytestmark = pytest.mark.skipif(chromium() is None, reason="no chromium (scripts/setup.sh installs it)")


def test_each_page_holds_its_kenken_where_its_truth_says_and_is_the_same_for_its_seed():
    scenes = list(render(range(4)))
    assert any("screen-photo" in sc.notes for sc in scenes) and any(sc.ext == ".png" for sc in scenes)
    assert {sc.theme for sc in scenes} <= set(STRUCTURES) and all(sc.family == "browser" for sc in scenes)
    for sc in scenes:
        (truth,) = sc.puzzles
        # the grid the command reads (read_page): where the first look finds a grid that is no KenKen,
        # the KenKen a later look finds
        _, [(_, read)] = read_page(sc.image, sc.name, VisionOptions())
        geom = read.geometry
        assert geom.size == truth.puzzle.size
        x0, y0, x1, y1 = truth.box
        side = x1 - x0
        if "screen-photo" not in sc.notes:  # (a photo sees it in perspective)
            assert abs((y1 - y0) - side) <= 0.02 * side, "the board is laid out square"
        for (x, y), (tx, ty) in zip(geom.corners, truth.corners):
            assert abs(x - tx) <= 0.03 * side and abs(y - ty) <= 0.03 * side, (sc.name, geom.corners, truth.corners)
    again = next(render([2]))
    assert again.puzzles == scenes[2].puzzles and again.notes == scenes[2].notes
