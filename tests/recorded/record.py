"""Record the grid stage's result on every sample picture, for the per-stage tests.

For each picture in samples/ with an .expected.json beside it, the grid stage
runs (kkvision.vision.picture.decode, then kkvision.vision.grid.find_grids: the first
look vision.read.read_page reads) and, once it found one grid, of the expected
puzzle's size, writes

  tests/recorded/<stem>/square.png     the straightened grey square the later
                                       stages read (lossless PNG, optimised)
  tests/recorded/<stem>/geometry.json  size, corners, xs, ys (a GridGeometry's
                                       cell boxes in the square), the picture
                                       points of every line crossing, and which
                                       picture it came from

tests/test_stages_recorded.py checks the grid stage against geometry.json and
runs the cage, label and reading stages alone on square.png.  Re-record only
when the grid stage was changed on purpose, after looking at its new result
(--debug-dir DIR draws the grid found in each picture); see README.md here.

    python tests/recorded/record.py [--debug-dir DIR] [STEM ...]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from kkvision.vision.grid import GridGeometry, find_grids  # noqa: E402
from kkvision.vision.picture import decode  # noqa: E402

SAMPLES = ROOT / "samples"
RECORDED = Path(__file__).resolve().parent
PICTURES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff")
PLACES = 3  # picture points are kept to a thousandth of a pixel


def samples() -> list[tuple[str, Path, Path]]:
    """(stem, picture, expected.json) of every sample with an expected file."""
    out = []
    for expected in sorted(SAMPLES.glob("*.expected.json")):
        stem = expected.name[: -len(".expected.json")]
        pictures = [p for p in sorted(SAMPLES.glob(stem + ".*")) if p.suffix.lower() in PICTURES]
        if len(pictures) != 1:
            raise SystemExit(f"{expected.name}: expected one picture {stem}.*, found {len(pictures)}")
        out.append((stem, pictures[0], expected))
    return out


def crossings(geom: GridGeometry) -> list[list[list[float]]]:
    """Picture points of every line crossing, [row of ys][column of xs] -> [x, y]."""
    pts = np.array([[(x, y) for x in geom.xs] for y in geom.ys], np.float64)
    return np.round(geom.to_image(pts), PLACES).tolist()


def geometry_record(geom: GridGeometry, picture: Path) -> dict:
    return {
        "picture": picture.relative_to(ROOT).as_posix(),
        "picture_sha256": hashlib.sha256(picture.read_bytes()).hexdigest(),
        "size": geom.size,
        "corners": [[round(x, PLACES), round(y, PLACES)] for x, y in geom.corners],  # tl, tr, br, bl
        "xs": list(geom.xs),  # line positions in the square: the cell boxes (kept exact)
        "ys": list(geom.ys),
        "crossings": crossings(geom),
    }


def to_json(record: dict) -> str:
    """One key a line, the crossings one row a line: small and readable in a diff."""
    lines = []
    for key, value in record.items():
        if key == "crossings":
            rows = ",\n  ".join(json.dumps(row) for row in value)
            lines.append(f' "{key}": [\n  {rows}\n ]')
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    assert json.loads(text) == record
    return text


def png(square: np.ndarray) -> bytes:
    if square.ndim != 2 or square.dtype != np.uint8:
        raise SystemExit(f"the grid stage gave a {square.dtype} square of shape {square.shape}, not grey uint8")
    buf = io.BytesIO()
    Image.fromarray(square, "L").save(buf, "PNG", optimize=True)
    data = buf.getvalue()
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data))), square), "PNG not lossless"
    return data


def run_grid_stage(stem: str, picture: Path, expected: Path, debug_dir: Path | None
                   ) -> tuple[GridGeometry, np.ndarray]:
    """The grid stage on one sample; SystemExit unless it found one grid, of the expected size."""
    size = json.loads(expected.read_text())["puzzle"]["size"]
    image = decode(picture, picture.read_bytes())
    found = find_grids(image)
    if len(found) != 1:
        raise SystemExit(f"{picture.name}: the grid stage found {len(found)} grids, not one;"
                         " nothing recorded")
    geom, square = found[0]
    if debug_dir is not None:
        from kkvision.vision.debug import write_stages
        from kkvision.vision.stages import Reached

        write_stages(debug_dir / stem, image, Reached(geometry=geom, square=square))
    if geom.size != size:
        raise SystemExit(f"{picture.name}: the grid stage found a {geom.size}x{geom.size} grid, but"
                         f" {expected.name} says {size}x{size}; nothing recorded")
    return geom, square


def write(stem: str, picture: Path, geom: GridGeometry, square: np.ndarray) -> int:
    """Write one sample's recording; the bytes written."""
    folder = RECORDED / stem
    folder.mkdir(exist_ok=True)
    data = png(square)
    (folder / "square.png").write_bytes(data)
    text = to_json(geometry_record(geom, picture))
    (folder / "geometry.json").write_text(text)
    return len(data) + len(text.encode())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stems", nargs="*", help="record only these samples (default: all)")
    ap.add_argument("--debug-dir", type=Path,
                    help="also draw the grid found in each picture here (<stem>/01_grid.png, 02_warped.png)")
    args = ap.parse_args(argv)
    todo = samples()
    unknown = set(args.stems) - {stem for stem, _, _ in todo}
    if unknown:
        raise SystemExit(f"no sample with an expected file: {', '.join(sorted(unknown))}")
    chosen = [(stem, picture, expected) for stem, picture, expected in todo if not args.stems or stem in args.stems]
    # every grid stage first: one wrong size and nothing is written
    found = [(stem, picture, *run_grid_stage(stem, picture, expected, args.debug_dir))
             for stem, picture, expected in chosen]
    total = 0
    for stem, picture, geom, square in found:
        written = write(stem, picture, geom, square)
        total += written
        print(f"{stem}: {geom.size}x{geom.size}, {written / 1024:.1f} KiB")
    print(f"recorded {len(found)} sample(s): {total / 1024:.1f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
