"""The locked split stays locked.

Scenes (devtools.scenes.scene(..., locked=True): LOCKED_THEMES, the held-out hands, the 'locked'
writers) and browser pages (devtools.browser_scenes.render(..., locked=True)) of the locked split are
scored by the benchmarks alone and reported apart.  A test that reads one would make it development
data, so no test module but this one may ask for a locked scene, and this one only renders them: it
checks that the split draws what it says, never what kkvision reads from it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from devtools.scenes import (
    FAMILIES,
    HELDOUT_THEMES,
    LOCKED_LABEL_FONTS,
    LOCKED_THEMES,
    TRAIN_THEMES,
    scene,
)
from devtools.synth import find_font

TESTS = Path(__file__).resolve().parent


def asks_for_locked(source: str) -> list[int]:
    """The lines of a module's calls that pass `locked=` anything but a literal False."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "locked" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    lines.append(node.lineno)
    return lines


def test_the_guard_sees_a_locked_scene_asked_for():
    assert asks_for_locked("scene('app', 3, locked=True)\n") == [1]
    assert asks_for_locked("x = 1\nrender(range(5), heldout=True, locked=split == 'locked')\n") == [2]
    assert asks_for_locked("scene('app', 3, heldout=True, locked=False)\nscene('web', 4)\n") == []


def test_no_other_test_asks_for_a_locked_scene_or_page():
    found = {path.name: lines for path in sorted(TESTS.rglob("*.py")) if path.name != Path(__file__).name
             if (lines := asks_for_locked(path.read_text(encoding="utf-8")))}
    assert not found, f"tests that make locked scenes or pages (the locked split is never tuned on): {found}"


def test_the_locked_themes_are_their_own_in_faces_no_model_saw():
    from devtools.train_digits import HELDOUT_FAMILIES
    from devtools.train_labels import design, group_of

    names = [t.name for t in LOCKED_THEMES]
    assert len(set(names)) == len(names)
    assert not set(names) & {t.name for t in TRAIN_THEMES + HELDOUT_THEMES}
    for theme in LOCKED_THEMES:
        assert set(theme.fonts) <= set(LOCKED_LABEL_FONTS), theme.name
    for face in LOCKED_LABEL_FONTS:
        path = find_font(face)
        assert path is not None, f"{face} missing (run scripts/setup.sh)"
        assert group_of(design(str(path))) != "train", f"{face}: a design the label models train on"
        assert any(part in face for part in HELDOUT_FAMILIES), f"{face}: a design the cell reader trains on"
    used = {f for t in TRAIN_THEMES + HELDOUT_THEMES for f in t.fonts}
    assert not set(LOCKED_LABEL_FONTS) & used, "the locked faces are printed by no other theme"
    # every family can draw a locked scene: an app, a web and a print theme, and an app's fills alone
    assert {t.kind for t in LOCKED_THEMES} == {"app", "web", "print"}
    assert any(t.by_colour and t.kind == "app" for t in LOCKED_THEMES)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_locked_scene_is_drawn_in_a_locked_theme_and_named_so(family):
    sc = scene(family, 7, locked=True)
    assert sc.locked and sc.heldout and sc.split == "locked"
    assert sc.theme in {t.name for t in LOCKED_THEMES}
    assert sc.name.startswith(f"{family}-locked-7-")
    assert sc.puzzles
    working = scene(family, 7, heldout=True)
    assert working.split == "heldout" and working.data != sc.data


@pytest.mark.needs_handwriting
def test_a_locked_scene_in_a_real_hand_takes_a_locked_writer():
    from devtools import hands

    sc = scene("filled", 5, locked=True, mode="hand")
    writer = int(next(n for n in sc.notes if "writer=" in n).split("writer=")[1].split()[0])
    assert writer in hands.writers("locked") and writer not in hands.writers("dev")


def test_a_locked_page_draws_apart_from_the_held_out_pages():
    from devtools.browser_scenes import chromium, render

    if chromium() is None:
        pytest.fail("no chromium: scripts/setup.sh installs it")
    locked, = render([3], locked=True)
    held, = render([3], heldout=True)
    assert locked.locked and locked.split == "locked" and locked.heldout
    assert not held.locked and locked.data != held.data
