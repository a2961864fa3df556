"""Where the grid lies: the straightened square and its map back into the picture.

The square is SIDE x SIDE pixels; pixel (x, y) has square coordinates (x, y).
Its map to the original picture is a mesh: the picture points of a regular
lattice of square points, MESH + 1 per side.  Between mesh nodes the map is
bilinear, so a grid on a curved page (bowed lines, uneven cells) is followed
cell by cell, and a flat grid (one perspective) is a mesh made from its
homography.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

SIDE = 900  # straightened square side, px
MESH = 60  # mesh steps per side (a node every 15 px of the square): lines bend little within one step
SHRINK_TO = 1.5  # before remapping, shrink a picture whose grid spans more than this many SIDEs (no aliasing)


def _nodes(count: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """For square coordinates 0..count-1: the mesh node before each, and the fraction past it."""
    t = np.clip(np.arange(count, dtype=np.float64) * nodes / SIDE, 0, nodes)
    k = np.minimum(t.astype(int), nodes - 1)
    return k, t - k


def mesh_from_homography(homography: np.ndarray, nodes: int = MESH) -> np.ndarray:
    """Mesh of a flat grid: picture points of the square lattice under the inverse homography."""
    g = np.linspace(0, SIDE, nodes + 1)
    pts = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 1, 2)
    inv = np.linalg.inv(homography)
    return cv2.perspectiveTransform(pts, inv).reshape(nodes + 1, nodes + 1, 2)


@dataclass(frozen=True)
class GridGeometry:
    """A found grid.  Give `mesh` (picture points of square points (j, i) * SIDE / MESH, rows i)
    or, for a flat grid, `homography` (picture -> square); the other is derived or None."""

    size: int
    corners: tuple[tuple[float, float], ...]  # tl, tr, br, bl frame corners in the original image
    xs: tuple[float, ...]  # n+1 vertical line positions in the square
    ys: tuple[float, ...]  # n+1 horizontal line positions
    homography: np.ndarray | None = field(default=None, compare=False, repr=False)
    mesh: np.ndarray | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        n = self.size
        if not 1 <= n <= 20:
            raise ValueError(f"grid size {n} out of range")
        if len(self.corners) != 4 or any(len(p) != 2 for p in self.corners):
            raise ValueError("corners must be four (x, y) points")
        for name, lines in (("xs", self.xs), ("ys", self.ys)):
            if len(lines) != n + 1 or any(b <= a for a, b in zip(lines, lines[1:])):
                raise ValueError(f"{name} must be {n + 1} increasing line positions")
            if lines[0] < -0.1 * SIDE or lines[-1] > 1.1 * SIDE:
                raise ValueError(f"{name} lie outside the square")
        if self.mesh is None:
            if self.homography is None or np.asarray(self.homography).shape != (3, 3):
                raise ValueError("give a mesh or a 3x3 homography")
            object.__setattr__(self, "mesh", mesh_from_homography(np.asarray(self.homography, np.float64)))
        mesh = np.asarray(self.mesh, np.float64)
        if mesh.ndim != 3 or mesh.shape[0] != mesh.shape[1] or mesh.shape[2] != 2 or mesh.shape[0] < 2:
            raise ValueError("mesh must be (k+1, k+1, 2)")
        if not np.isfinite(mesh).all():
            raise ValueError("mesh has non-finite points")
        object.__setattr__(self, "mesh", mesh)

    def cell_box(self, r: int, c: int) -> tuple[float, float, float, float]:
        return self.xs[c], self.ys[r], self.xs[c + 1], self.ys[r + 1]

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Square coordinates (..., 2) -> original picture coordinates (..., 2)."""
        assert self.mesh is not None
        pts = np.asarray(points, np.float64)
        nodes = self.mesh.shape[0] - 1
        t = np.clip(pts * nodes / SIDE, 0, nodes)
        k = np.minimum(t.astype(int), nodes - 1)
        f = t - k
        fx, fy = f[..., :1], f[..., 1:]
        m = self.mesh
        i, j = k[..., 1], k[..., 0]
        top = m[i, j] * (1 - fx) + m[i, j + 1] * fx
        bottom = m[i + 1, j] * (1 - fx) + m[i + 1, j + 1] * fx
        out = top * (1 - fy) + bottom * fy
        # beyond the square, continue along the border's slope (debug lines, digits near the frame)
        over = pts * nodes / SIDE - t
        if np.any(over):
            step_x = (m[i, j + 1] - m[i, j]) / (SIDE / nodes)
            step_y = (m[i + 1, j] - m[i, j]) / (SIDE / nodes)
            out = out + step_x * (over[..., :1] * SIDE / nodes) + step_y * (over[..., 1:] * SIDE / nodes)
        return out

    def maps(self) -> tuple[np.ndarray, np.ndarray]:
        """Picture x and y for every pixel of the square (float32 maps for cv2.remap)."""
        assert self.mesh is not None
        k, f = _nodes(SIDE, self.mesh.shape[0] - 1)
        m = self.mesh.astype(np.float32)
        f32 = f.astype(np.float32)[:, None, None]
        rows = m[k] * (1 - f32) + m[k + 1] * f32  # (SIDE, nodes+1, 2): along y
        fx = f.astype(np.float32)[None, :, None]
        full = rows[:, k] * (1 - fx) + rows[:, k + 1] * fx  # (SIDE, SIDE, 2)
        return np.ascontiguousarray(full[..., 0]), np.ascontiguousarray(full[..., 1])

    def straighten(self, image: np.ndarray) -> np.ndarray:
        """The grid of `image` (the original picture, or one of its size) as the upright square."""
        mx, my = self.maps()
        x0, y0 = max(0, int(mx.min()) - 2), max(0, int(my.min()) - 2)
        x1 = min(image.shape[1], int(mx.max()) + 3)
        y1 = min(image.shape[0], int(my.max()) + 3)
        if x1 <= x0 or y1 <= y0:
            return np.zeros((SIDE, SIDE) + image.shape[2:], image.dtype)
        crop = image[y0:y1, x0:x1]
        f = min(1.0, SHRINK_TO * SIDE / max(x1 - x0, y1 - y0))
        if f < 1.0:
            crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        # pixel centres: a shrunk pixel k covers original [k/f, (k+1)/f)
        mx = (mx - x0 + 0.5) * f - 0.5
        my = (my - y0 + 0.5) * f - 0.5
        return cv2.remap(crop, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

