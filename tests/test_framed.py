"""The framed-answer reader's crops (vision/framed.py): an answer's ink alone, framed as MNIST frames a digit."""

import numpy as np
import pytest

from kkvision.vision import framed


def _seven(side: int, at: tuple[int, int], height: int) -> np.ndarray:
    """Darkness of a blocky 7 `height` px high with its top-left corner at `at`, in a side x side area."""
    d = np.zeros((side, side), np.float32)
    y, x = at
    w, t = height * 3 // 5, max(2, height // 8)
    d[y:y + t, x:x + w] = 1.0  # the bar
    d[y:y + height, x + w - t:x + w] = 1.0  # the stem
    return d


def _box(crop: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(crop >= framed.LEVEL)
    return int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1


def test_a_digit_is_framed_alike_whatever_its_size_and_place():
    """Small at the top left or big at the bottom right, the same shape gives nearly the same crop: its box
    BOX px on its longer side, its mass at the middle of FRAME x FRAME."""
    small, big = framed.framed(_seven(64, (4, 6), 20)), framed.framed(_seven(64, (20, 30), 40))
    assert small is not None and big is not None
    assert small.shape == (framed.FRAME, framed.FRAME)
    for crop in (small, big):
        y0, y1, x0, x1 = _box(crop)
        assert max(y1 - y0, x1 - x0) in (framed.BOX, framed.BOX + 1)
        ys, xs = np.mgrid[:framed.FRAME, :framed.FRAME]
        assert abs((ys * crop).sum() / crop.sum() - framed.FRAME / 2) <= 1.0
        assert abs((xs * crop).sum() / crop.sum() - framed.FRAME / 2) <= 1.0
    assert np.abs(small - big).mean() < 0.05


def test_a_speck_left_beside_the_answer_is_left_out_of_its_frame():
    """A speck of a label left by the content stage far from the answer does not stretch its box."""
    alone = _seven(64, (20, 30), 40)
    specked = alone.copy()
    specked[2:4, 2:4] = 1.0  # 4 px against the 7's ~270
    assert np.allclose(framed.framed(specked), framed.framed(alone))


def test_a_lines_piece_along_the_sides_is_left_out_of_the_frame_but_not_all_the_ink():
    """A blurred frame line left in the answer's mask as an L along the area's bottom and right sides (a
    phone photo's, bigger than a speck) is a line's, not the answer's: the 7 is framed alone.  A piece
    along a side that is all the ink there is, is framed."""
    alone = _seven(64, (14, 14), 36)
    lined = alone.copy()
    lined[58:61, 4:61] = lined[4:61, 58:61] = 1.0  # ~340 px of L, within EDGE of the sides
    assert np.allclose(framed.framed(lined), framed.framed(alone))
    side = np.zeros((64, 64), np.float32)
    side[8:56, 58:61] = 1.0
    assert framed.framed(side) is not None


def test_ink_that_is_all_specks_is_framed_by_its_largest():
    """A noisy cell: twenty-five specks, each 4% of the ink (none SPECK of it): framed, not a failure."""
    dark = np.zeros((64, 64), np.float32)
    for k in range(25):
        y, x = 2 + 12 * (k // 5), 2 + 12 * (k % 5)
        dark[y:y + 2, x:x + 2] = 1.0
    crop = framed.framed(dark)
    assert crop is not None and crop.max() > 0


def test_no_ink_is_no_crop_and_reads_as_nothing():
    assert framed.framed(np.zeros((64, 64), np.float32)) is None
    assert framed.framed(np.full((64, 64), framed.LEVEL / 2, np.float32)) is None  # grey, no ink
    assert not framed.read_framed([None]).any()


def test_the_shipped_reader_gives_probabilities_of_the_nine_digits():
    probs = framed.read_framed([framed.framed(_seven(64, (10, 10), 40)), None])
    assert probs.shape == (2, 9)
    assert probs[0].sum() == pytest.approx(1.0, abs=1e-4) and not probs[1].any()


def test_shapes_are_alike_for_one_shape_at_any_size_and_apart_for_another():
    """framed.shapes: what the reader's last layer reads of a crop, unit length; the same 7 framed from two
    sizes and places is alike (framing makes them one crop), a 7 and an L less so; no crop, zeros."""
    seven, big = framed.framed(_seven(64, (10, 10), 40)), framed.framed(_seven(64, (4, 20), 56))
    ell = framed.framed(np.fliplr(np.flipud(_seven(64, (10, 10), 40))))
    seen = framed.shapes([seven, big, ell, None])
    assert seen.shape[0] == 4 and seen.shape[1] > 0 and (seen >= 0).all()
    assert np.linalg.norm(seen[:3], axis=1) == pytest.approx(1.0, abs=1e-5) and not seen[3].any()
    assert seen[0] @ seen[1] > 0.95 and seen[0] @ seen[2] < seen[0] @ seen[1] - 0.1
    assert framed.shapes([None]).size == 0


def test_stroke_crops_frame_the_whole_strokes_the_mask_touches_not_the_label_nor_the_lines():
    """The content network's mask covered only the bottom half of an answer's stroke: stroke_crops frames
    the whole stroke, as framed_crops frames the answer drawn alone, leaving out the label and the
    cell's lines (the mask reaching into them)."""
    side = 120
    answer = np.full((side, side), 250, np.uint8)
    answer[40:110, 56:64] = 20  # a 1
    answer[40:48, 40:56] = 20  # its flag
    square = answer.copy()
    square[:, :3] = square[:, -3:] = square[:3] = square[-3:] = 0  # the cell's lines
    square[8:26, 8:30] = 20  # the label at the top left
    ink = np.zeros((side, side), np.uint8)
    ink[75:, 50:70] = 255  # the mask: only the 1's bottom half, and the bottom line under it
    box = [(0.0, 0.0, float(side), float(side))]
    got, want = framed.stroke_crops(square, ink, box)[0], framed.framed_crops(answer, box)[0]
    half = framed.framed_crops(np.where(ink > 0, square, 250).astype(np.uint8), box)[0]
    assert got is not None and want is not None and half is not None
    assert np.abs(got - want).mean() < 0.02  # the whole 1 with its flag; no label, no line
    assert np.abs(half - want).mean() > 0.05  # the mask alone frames half of it, and a bit of the line
