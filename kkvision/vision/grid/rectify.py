"""The picture seen face on: a homography that makes a grid's two families of
lines upright and level, from where each family's lines meet (its vanishing
point).  For a photo taken askew of a screen or a page whose grid's frame runs
into what is around it (an app's keypad right under the grid, a toolbar above):
no outline of its own, and its sides, sloping apart in perspective, fill no
row or column of the picture, so neither candidate search finds it.  Turned
face on, its frame is a rectangle of long straight lines again.
"""

from __future__ import annotations

import cv2
import numpy as np

SEGMENT = 0.06  # a straight ink segment weighed is at least this fraction of the shorter side (a cell of a 9x9 grid
                # a bit over half the picture: grid lines, not letters)
VOTES = 0.05  # ... with this many of its pixels on the line, as a fraction of the shorter side
SEGMENT_GAP = 3  # px: gaps this small in a segment are bridged (a dotted or faint line)
MIN_SEGMENTS = 6  # a family of lines is weighed with at least this many segments
ROUNDS = 4  # a vanishing point is fitted this many times, each time to the segments that agree with the last one
AGREE = 3.0  # ... a segment agrees when it points at it within this many times the median miss (sine of the angle)
MIN_MISS = 0.005  # ... or within this sine (0.3 degrees) when nearly all agree
HORIZON = 2.0  # the horizon (where the families meet) lies at least this many half shorter sides from the middle:
               # a grid seen from its front, 10-30 degrees askew, has it several picture sides away
LEAST_TURN = 0.01  # a homography that moves no corner of the picture by more than this fraction of the shorter
                   # side is no different look: the picture is face on already
MOST_STRETCH = 2.0  # nor one that shrinks or grows the picture's area more than this factor (a fit gone wrong)


def face_on(mask: np.ndarray) -> np.ndarray | None:
    """The homography (3x3, in `mask`'s pixels) that turns the straight lines of
    the ink `mask` into upright and level lines, keeping the picture's middle
    where it is and its scale there; None when the lines give no two clear
    families, or when the picture is face on already."""
    h, w = mask.shape
    short = min(h, w)
    found = cv2.HoughLinesP(mask, 1, np.pi / 360, threshold=max(8, int(VOTES * short)),
                            minLineLength=max(8, int(SEGMENT * short)), maxLineGap=SEGMENT_GAP)
    if found is None:
        return None
    segs = found.reshape(-1, 4).astype(np.float64)
    # coordinates about the middle, in half shorter sides: the fit is well conditioned
    middle, unit = np.array([w / 2, h / 2]), short / 2
    p, q = (segs[:, :2] - middle) / unit, (segs[:, 2:] - middle) / unit
    angle = np.degrees(np.arctan2(q[:, 1] - p[:, 1], q[:, 0] - p[:, 0])) % 180
    upright = np.abs(angle - 90) < 45
    v_up, v_level = _vanishing(p[upright], q[upright]), _vanishing(p[~upright], q[~upright])
    if v_up is None or v_level is None:
        return None
    horizon = np.cross(v_up, v_level)  # where both families' lines meet: the image of the line at infinity
    if abs(horizon[2]) < HORIZON * np.linalg.norm(horizon[:2]):
        return None  # the horizon runs through or near the picture: no flat grid seen from in front
    horizon = horizon / horizon[2]
    project = np.array([[1.0, 0, 0], [0, 1.0, 0], [horizon[0], horizon[1], 1.0]])  # lines of a family now parallel
    up, level = ((project @ v)[:2] for v in (v_up, v_level))
    up, level = up / np.linalg.norm(up), level / np.linalg.norm(level)
    up, level = (up if up[1] > 0 else -up), (level if level[0] > 0 else -level)
    frame = np.column_stack([level, up])
    if abs(np.linalg.det(frame)) < 0.3:  # the families nearly parallel (over 70 degrees of shear): no grid
        return None
    square = np.eye(3)
    square[:2, :2] = np.linalg.inv(frame)  # each family's direction to an axis, lengths along it kept
    to_unit = np.array([[1 / unit, 0, -middle[0] / unit], [0, 1 / unit, -middle[1] / unit], [0, 0, 1.0]])
    H = np.linalg.inv(to_unit) @ square @ project @ to_unit
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(corners, H).reshape(-1, 2)
    if np.abs(moved - corners.reshape(-1, 2)).max() < LEAST_TURN * short:
        return None
    stretch = cv2.contourArea(moved.astype(np.float32)) / float(w * h)
    if not 1 / MOST_STRETCH <= stretch <= MOST_STRETCH:
        return None
    return H


def _vanishing(p: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """Where the segments p-q (rows of points) meet, homogeneous (a point at
    infinity for parallel lines): the least-squares meeting point of their
    lines, weighted by length, refitted to the segments that point at it."""
    if len(p) < MIN_SEGMENTS:
        return None
    lines = np.cross(np.c_[p, np.ones(len(p))], np.c_[q, np.ones(len(q))])
    lines /= np.maximum(1e-12, np.linalg.norm(lines[:, :2], axis=1, keepdims=True))
    length = np.linalg.norm(q - p, axis=1)
    direction = (q - p) / np.maximum(1e-12, length[:, None])
    mid = (p + q) / 2
    keep = np.ones(len(p), bool)
    v = None
    for _ in range(ROUNDS):
        if keep.sum() < MIN_SEGMENTS:
            return v
        m = (lines[keep] * length[keep, None]).T @ lines[keep]
        v = np.linalg.eigh(m)[1][:, 0]
        toward = v[:2] - mid * v[2]  # from each segment's middle toward the point (or along it, at infinity)
        miss = np.abs(direction[:, 0] * toward[:, 1] - direction[:, 1] * toward[:, 0]) / np.maximum(
            1e-12, np.linalg.norm(toward, axis=1))
        keep = miss <= max(MIN_MISS, AGREE * float(np.median(miss[keep])))
    return v
