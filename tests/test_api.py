"""The library API: from kkvision import solve_image, solve_text."""

import dataclasses
import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

import kkvision
from kkvision import solve_image, solve_text
from kkvision.errors import InputImageError, KkvisionError, UnknownFormat


def test_solve_image_takes_a_path_bytes_or_an_array_alike(samples, monkeypatch):
    from kkvision.vision import ocr

    monkeypatch.setattr(ocr, "read_numbers", lambda crops: pytest.fail("tesseract called"))
    path = samples / "photo-6x6.jpg"
    expected = json.loads((samples / "photo-6x6.expected.json").read_text())
    colour = cv2.imread(str(path))
    results = [solve_image(path), solve_image(str(path)), solve_image(path.read_bytes()), solve_image(colour),
               solve_image(cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY))]
    for r in results:
        assert [list(row) for row in r.solution] == expected["solution"] and r.unique
    r = results[0]
    assert len(r.labels) == len(r.puzzle.cages) and all(0 <= lb.read_probability <= 1 for lb in r.labels)
    assert len(r.corners) == 4
    h, w = colour.shape[:2]
    assert all(0 <= x <= w and 0 <= y <= h for x, y in r.corners)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.notes = ()  # type: ignore[misc]


def test_solve_text_gives_the_solution_and_says_when_not_unique(samples):
    r = solve_text((samples / "kk0.j.txt").read_text())
    assert r.unique and r.solution == ((1, 2, 4, 3), (4, 3, 2, 1), (2, 1, 3, 4), (3, 4, 1, 2))
    assert r.labels == () and r.corners is None
    loose = solve_text('{"size": 3, "cages": [{"op": "+", "target": 18, "cells": '
                       '[[0,0],[0,1],[0,2],[1,0],[1,1],[1,2],[2,0],[2,1],[2,2]]}]}')
    assert not loose.unique and loose.other is not None and loose.other != loose.solution


def test_failures_are_kkvision_errors_with_exit_codes():
    with pytest.raises(UnknownFormat):
        solve_text("not a puzzle at all")
    with pytest.raises(InputImageError):
        solve_image(np.zeros((10, 10, 3), np.uint8))  # too small for a puzzle
    with pytest.raises(InputImageError):
        solve_image(np.zeros((100, 100, 3), np.float32))
    with pytest.raises(KkvisionError) as err:
        solve_image(b"")
    assert int(err.value.exit_code) == 3


def test_importing_kkvision_stays_light():
    assert set(kkvision.__all__) >= {"solve_image", "solve_text", "Result"}
    with pytest.raises(AttributeError):
        kkvision.no_such_thing  # noqa: B018
    # in a fresh interpreter (this one has them all loaded): no engine comes with the import itself
    probe = "import sys, kkvision; print(sorted(set(sys.modules) & {'cv2', 'numpy', 'ortools', 'PIL'}))"
    heavy = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert heavy.stdout.strip() == "[]"
