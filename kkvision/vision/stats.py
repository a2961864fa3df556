"""Statistics of arrays the vision stages take many times a picture, each giving numpy's number to
the last bit (np.percentile's linear method, np.median) without numpy's per-call overhead, or from
histograms where the values are whole grey levels.  Every one is tested against numpy's
(tests/test_stats.py): the stages read the same numbers whichever form computes them."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np


def grey_percentile(grey: np.ndarray, q: float) -> float:
    """percentile's number for whole grey levels (uint8) from their histogram: a picture's in well
    under a millisecond, where np.percentile sorts it in part (~7 ms for 2 MP)."""
    if grey.dtype != np.uint8:
        return percentile(grey, q)
    if grey.size < 1 << 24:  # OpenCV counts in float32: exact below 2**24
        counts = cv2.calcHist([np.ascontiguousarray(grey)], [0], None, [256], [0, 256]).ravel().astype(np.int64)
    else:
        counts = np.bincount(grey.ravel(), minlength=256)
    upto = np.cumsum(counts)  # upto[v]: how many are at most v
    n = int(upto[-1])
    virtual = (n - 1) * (q / 100)
    below = min(max(int(np.floor(virtual)), 0), n - 1)
    a = int(np.searchsorted(upto, below, side="right"))  # the value ranked `below` (from 0) in sorted order
    if virtual >= n - 1 or virtual < 0:
        return float(a)
    return _between(a, int(np.searchsorted(upto, below + 1, side="right")), virtual - below)


def grey_percentiles(rows: np.ndarray, q: float) -> np.ndarray:
    """np.percentile(rows.astype(np.float32), q, axis=1), the same float32 numbers, for (N, M) whole grey
    levels (uint8), from each row's histogram (a label crop per row: ~5x quicker than sorting them in part)."""
    n, m = rows.shape
    counts = np.bincount((rows + (np.arange(n) * 256)[:, None]).ravel(), minlength=256 * n).reshape(n, 256)
    upto = np.cumsum(counts, axis=1)
    virtual = (m - 1) * (q / 100)
    below = int(np.floor(virtual))
    a = (upto > below).argmax(axis=1).astype(np.float32)  # each row's value ranked `below` (from 0)
    if virtual >= m - 1:
        return a
    b = (upto > below + 1).argmax(axis=1).astype(np.float32)
    t = virtual - below
    diff = b - a
    return b - diff * np.float32(1 - t) if t >= 0.5 else a + diff * np.float32(t)


def percentile(values: np.ndarray, q: float) -> float:
    """float(np.percentile(values, q)) of a 1-d array of finite numbers, the same number to the last
    bit (numpy's linear method, its arithmetic step by step), without its overhead (~0.1 ms a call)."""
    v = np.asarray(values).ravel()
    n = v.size
    virtual = (n - 1) * (q / 100)
    below = int(np.floor(virtual))
    if virtual >= n - 1:  # at or past the last value
        return float(np.partition(v, n - 1)[n - 1])
    if virtual < 0:
        return float(np.partition(v, 0)[0])
    part = np.partition(v, (below, below + 1))
    return _between(part[below], part[below + 1], virtual - below)


def median(values: np.ndarray) -> float:
    """float(np.median(values)) of an array of finite numbers, the same number to the last bit (the
    middle value, or the mean of the middle two as numpy takes it: their sum halved), without its
    overhead (~20 us a call)."""
    v = np.asarray(values).ravel()
    half = v.size // 2
    if v.size % 2:
        return float(np.partition(v, half)[half])
    part = np.partition(v, (half - 1, half))
    if v.dtype.kind in "biu":  # numpy's mean of whole numbers is taken in float64
        return (float(part[half - 1]) + float(part[half])) / 2
    return float((part[half - 1] + part[half]) / 2)


def _between(a: Any, b: Any, t: float) -> float:
    """The value `t` of the way from order statistic a to the next, b, with numpy's linear method's
    arithmetic step by step (in a's and b's own type: float32 stays float32)."""
    diff = b - a
    return float(b - diff * (1 - t) if t >= 0.5 else a + diff * t)
