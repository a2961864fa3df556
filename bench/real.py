"""Accuracy and speed on real pictures that carry their truth.

    .venv/bin/python bench/real.py ../shared/real-dev [DIR ...] [--fails] [--jobs 1]

Every picture X in the folders (recursively) that has `X.truth.json` beside
it is read by the whole pipeline (kkvision.pipeline.read_source, as `kkvision solve`
does) and scored on what its truth knows (`known`: size, cages, clues,
solution; format in ../shared/real-dev/README.md):
  size    the grid found has the true size
  cages   the cage layout read equals the truth's (cells only)
  labels  labels read right (operator and target, before any correction), over
          the known labels whose cage was found
  solved  exit 0 with the true solution
  WRONG   exit 0 with a wrong solution, or with a wrong size or cage layout
          where the truth knows them: an answer printed as if it were right
  refused exit code of each picture that was not solved (e.g. 5:3 = three
          pictures refused with exit 5, clue unreadable)
Rows are per folder (the folder the picture is in), then all together.  The
seconds are the pipeline's own, in this process (decode to solution, no
drawing), one picture at a time unless --jobs is given.  The label model
trains on label crops from half of a folder's pictures (devtools/train_labels.py
--real): --split heldout scores only the other half; --label-model PATH scores another
label model file (e.g. one just trained) in place of the shipped models/labels.onnx, and
--second-label-model PATH in place of models/labels-second.onnx (asked when the first's reading is
refused; the same file as --label-model: a model that never saw a real crop, with no help).
--change NAME reads every picture changed as another camera, screen or light would show it
(CHANGES: halved, a third or twice its size, JPEG at quality 25, turned 7 degrees on a larger canvas,
blurred, half its contrast, noisy, both, photographed from below, half in a shadow, under a
warm lamp, in a dark theme (inverted), turned a quarter, tilted 20 degrees, washed out, over-sharpened,
photographed from further away, a screen photographed (moire), or newsprint): how general the reading is,
on pictures whose truth is known, none of them seen so changed by anything that was tuned.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _read import read_largest  # noqa: E402  (bench/_read.py: a picture read as `kkvision solve` reads it)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)
from calibration import margin_table, widen  # noqa: E402

from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options  # noqa: E402
from kkvision.vocab import LABEL_READERS as OCR_ENGINES  # noqa: E402


def _edge_colour(image: np.ndarray) -> np.ndarray:
    """The median colour of the picture's edge, all four sides (a desk, a screen's bezel)."""
    return np.median(np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]), axis=0)


def _padded(image: np.ndarray) -> np.ndarray:
    """On a canvas grown by PAD of its longer side a side, in the median colour of its edge (a desk, a
    screen's bezel): a picture cropped tight to its grid, turned or seen in perspective, loses nothing."""
    pad = int(PAD * max(image.shape[:2]))
    colour = [int(v) for v in _edge_colour(image)]
    return cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=colour)


def _turned(image: np.ndarray, degrees: float = 7.0) -> np.ndarray:
    big = _padded(image)
    h, w = big.shape[:2]
    return cv2.warpAffine(big, cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0), (w, h),
                          borderMode=cv2.BORDER_REPLICATE)


def _keystone(image: np.ndarray, k: float = 0.15) -> np.ndarray:
    """Photographed from below: the top narrowed by k of the width each side."""
    big = _padded(image)
    h, w = big.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[w * k, 0], [w * (1 - k), 0], [w, h], [0, h]])
    return cv2.warpPerspective(big, cv2.getPerspectiveTransform(src, dst), (w, h), borderMode=cv2.BORDER_REPLICATE)


def _noisy(image: np.ndarray, sigma: float) -> np.ndarray:
    noise = np.random.default_rng(0).normal(0.0, sigma, image.shape)  # fixed: the same picture every run
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def _shadow(image: np.ndarray) -> np.ndarray:
    """A hand's or a phone's shadow: the light falling from full to SHADOW across a soft edge slanting
    through the middle of the picture."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = ((xx - w / 2) + 0.5 * (yy - h / 2)) / (0.08 * max(h, w))  # signed distance from the edge, softened
    light = SHADOW + (1 - SHADOW) / (1 + np.exp(-across))
    return (image.astype(np.float32) * light[..., None]).astype(np.uint8)


def _low_contrast(image: np.ndarray) -> np.ndarray:
    return (image.astype(np.float32) * 0.5 + 25).astype(np.uint8)  # half the contrast, a little lifted


def _sharpened(image: np.ndarray) -> np.ndarray:
    """A phone's over-eager sharpening: an unsharp mask of 1.5x over 2 px (halos beside every stroke)."""
    soft = cv2.GaussianBlur(image, (0, 0), 2.0)
    return cv2.addWeighted(image, 2.5, soft, -1.5, 0)


def _far(image: np.ndarray) -> np.ndarray:
    """Photographed from further away: the picture at half its size in the middle of a canvas twice as
    large, of its edge's median colour with a slow light gradient (a desk, a wall)."""
    small = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    h, w = image.shape[:2]
    colour = _edge_colour(image).astype(np.float32)
    ramp = np.linspace(0.8, 1.1, w, dtype=np.float32)[None, :, None]
    canvas = np.clip(np.broadcast_to(colour, (h, w, 3)) * ramp, 0, 255).astype(np.uint8)
    y, x = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    canvas[y:y + small.shape[0], x:x + small.shape[1]] = small
    return canvas


def _screen_photo(image: np.ndarray) -> np.ndarray:
    """A phone's photo of a screen showing the picture: a little from below, out of focus by a pixel, the
    screen's pixel rows beating with the camera's (moire: bands of a tenth of the light, slanted) and
    the sensor's noise."""
    big = _keystone(image, 0.06)
    h, w = big.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    bands = 1.0 - 0.1 * (0.5 + 0.5 * np.sin(2 * np.pi * (yy + 0.2 * xx) / 9.0))
    soft = cv2.GaussianBlur(big, (0, 0), 1.0).astype(np.float32) * bands[..., None]
    return _noisy(np.clip(soft, 0, 255).astype(np.uint8), 4.0)


def _newsprint(image: np.ndarray) -> np.ndarray:
    """Printed on newsprint and photographed indoors: grey-yellow paper (ink no blacker than 60, paper
    no whiter than 200), the ink spread by a pixel, and noise."""
    soft = cv2.GaussianBlur(image, (0, 0), 1.0).astype(np.float32)
    paper = soft * np.float32((0.50, 0.55, 0.58)) + np.float32((55, 60, 60))
    return _noisy(np.clip(paper, 0, 255).astype(np.uint8), 5.0)


SHADOW = 0.45  # of the light left in the shadow
WARM = (0.6, 0.85, 1.0)  # B, G, R: a tungsten lamp's cast
PAD = 0.12  # of the longer side: a 7 degree turn of the whole picture stays on the canvas
CHANGES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "half": lambda im: cv2.resize(im, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA),
    "double": lambda im: cv2.resize(im, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC),
    "third": lambda im: cv2.resize(im, None, fx=1 / 3, fy=1 / 3, interpolation=cv2.INTER_AREA),
    "jpeg25": lambda im: cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, 25])[1], cv2.IMREAD_COLOR),
    "turned": _turned,
    "blurred": lambda im: cv2.GaussianBlur(im, (0, 0), max(im.shape[:2]) / 900),  # 1.3-1.8 px on real-dev
    "low-contrast": _low_contrast,
    "noisy": lambda im: _noisy(im, 8.0),
    "dim": lambda im: _noisy(_low_contrast(im), 6.0),  # a dim room: half the contrast, and the sensor's noise
    "keystone": _keystone,
    "shadow": _shadow,
    "warm": lambda im: (im.astype(np.float32) * np.float32(WARM)).astype(np.uint8),
    "inverted": lambda im: 255 - im,  # an app's or a site's dark theme: light lines and labels on black
    "quarter": lambda im: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE),  # held sideways, no orientation tag
    "tilted": lambda im: _turned(im, 20.0),
    "washed-out": lambda im: (im.astype(np.float32) * 0.4 + 150).astype(np.uint8),  # over-exposed, glare
    "sharpened": _sharpened,
    "far": _far,
    "screen-photo": _screen_photo,
    "newsprint": _newsprint,
}


def changed(path: Path, change: str | None) -> bytes:
    """The picture file's bytes, or the picture changed by CHANGES[change] and encoded as its file was
    (JPEG at quality 90, else PNG)."""
    data = path.read_bytes()
    if change is None:
        return data
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:  # not a picture OpenCV decodes: read as it is (the reader says what it is)
        return data
    jpeg = path.suffix.lower() in (".jpg", ".jpeg")
    _, out = cv2.imencode(".jpg" if jpeg else ".png", CHANGES[change](image),
                           [cv2.IMWRITE_JPEG_QUALITY, 90] if jpeg else [])
    return out.tobytes()


IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"}


@dataclass
class Score:
    path: str
    known: tuple[str, ...]
    exit_code: int = 0
    seconds: float = 0.0
    size: bool | None = None
    cages: bool | None = None
    labels_right: int = 0
    labels_known: int = 0
    solved: bool | None = None
    wrong: bool = False
    odds: float | None = None  # of the answer, when one was given
    why: list[str] = field(default_factory=list)


def pictures(folders: list[Path]) -> list[Path]:
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.suffix.lower() in IMAGE_SUFFIXES and path.with_name(path.name + ".truth.json").exists():
                found.append(path)
    return found


def _partition(cages) -> set[frozenset]:  # type: ignore[no-untyped-def]
    return {frozenset(tuple(c) for c in cells) for cells in cages}


def score(path: Path, ocr: str, calibrate: float | None = None, change: str | None = None) -> Score:
    if calibrate:
        widen(calibrate)
    truth = json.loads(path.with_name(path.name + ".truth.json").read_text())
    known = tuple(truth.get("known", ()))
    s = Score(str(path), known)
    t0 = time.perf_counter()
    got, reached = read_largest(path, changed(path, change), Options(ocr=ocr))
    if isinstance(got, KkvisionError):
        result = None
        s.exit_code = int(got.exit_code)
        s.why.append(f"exit {s.exit_code}: {got.message[:120]}")
    else:
        result = got
    s.seconds = time.perf_counter() - t0
    geom, layout, clues = reached.geometry, reached.layout, reached.clues
    if "size" in known:
        s.size = geom is not None and geom.size == truth["size"]
        if not s.size:
            s.why.append(f"size {geom.size if geom else None} (truth {truth['size']})")
    true_cells = _partition(c["cells"] for c in truth["cages"]) if "cages" in known else None
    if true_cells is not None:
        s.cages = bool(s.size) and layout is not None and _partition(layout.cages) == true_cells
        if s.size and layout is not None and not s.cages:
            s.why.append(f"cages: {len(_partition(layout.cages) - true_cells)} of {len(true_cells)} differ")
    if "clues" in known:
        read = {frozenset(cl.cells): cl for cl in clues or ()}
        for cage in truth["cages"]:
            s.labels_known += 1
            cl = read.get(frozenset(tuple(c) for c in cage["cells"]))
            if cl is not None and (cl.op, cl.target) == (cage["op"], cage["target"]):
                s.labels_right += 1
            elif cl is not None:
                r, c = cage["cells"][0]
                s.why.append(f"{chr(65 + c)}{r + 1}:{cage['target']}{cage['op']}->{cl.text or '_'}")
    if result is not None:  # exit 0: an answer would be printed
        s.odds = result.odds
        bad = []
        if "solution" in known:
            s.solved = [list(row) for row in result.solution] == truth["solution"]
            if not s.solved:
                bad.append("wrong solution")
        if s.size is False:
            bad.append("wrong size")
        if true_cells is not None and _partition(c.cells for c in result.puzzle.cages) != true_cells:
            bad.append("wrong cages")
        s.wrong = bool(bad)
        if bad:
            s.why.append("WRONG: " + ", ".join(bad))
        if result.notes:
            s.why.append("notes: " + " | ".join(result.notes)[:300])
    elif "solution" in known:
        s.solved = False
    return s


def table(scores: list[Score], root_of) -> str:  # type: ignore[no-untyped-def]
    groups: dict[str, list[Score]] = defaultdict(list)
    for s in scores:
        groups[root_of(s)].append(s)
    groups["all"] = scores
    head = ("| folder | images | size right | cages right | labels right | solved right | WRONG"
            " | refused (exit:count) | s/image |")
    lines = [head, "|" + "---|" * 9]

    def frac(num: int, den: int) -> str:
        return f"{num}/{den}" if den else "-"

    for name, group in groups.items():
        size = [s.size for s in group if s.size is not None]
        cages = [s.cages for s in group if s.cages is not None]
        solved = [s.solved for s in group if s.solved is not None]
        refused = Counter(s.exit_code for s in group if s.exit_code)
        lines.append(
            f"| {name} | {len(group)} | {frac(sum(size), len(size))} | {frac(sum(cages), len(cages))}"
            f" | {frac(sum(s.labels_right for s in group), sum(s.labels_known for s in group))}"
            f" | {frac(sum(solved), len(solved))} | {sum(s.wrong for s in group)}"
            f" | {' '.join(f'{k}:{v}' for k, v in sorted(refused.items())) or '-'}"
            f" | {sum(s.seconds for s in group) / len(group):.2f} |")
    return "\n".join(lines)


@saved("real")
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", type=Path, nargs="+")
    ap.add_argument("--ocr", default="model", choices=OCR_ENGINES)
    ap.add_argument("--fails", action="store_true", help="a line for each picture not solved right")
    ap.add_argument("--jobs", type=int, default=1, help="pictures read at once (timing is then shared)")
    ap.add_argument("--split", choices=("all", "train", "heldout"), default="all",
                    help="only the pictures devtools/train_labels.py --real trained on, or only the others")
    ap.add_argument("--calibrate", type=float, metavar="NATS",
                    help="answer at any odds and measure them up to NATS: a table for choosing MARGIN")
    ap.add_argument("--fail-on-wrong", action="store_true", help="exit 1 when any answer is WRONG (for CI)")
    add_model_options(ap, "PATH",
                      label="read labels with this ONNX file instead of the shipped models/labels.onnx",
                      second_label="and this one instead of the shipped second label model"
                                   " (models/labels-second.onnx, trained with real crops): the same file as"
                                   " --label-model scores a model that never saw a real crop, alone")
    ap.add_argument("--change", choices=sorted(CHANGES),
                    help="read every picture changed so (another camera, screen or light): see above")
    args = ap.parse_args()
    models = chosen(args)
    use_models(models)
    for what, path in (("label model", args.label_model), ("second label model", args.second_label_model)):
        if path:
            print(f"{what}: {path}", file=sys.stderr)
    paths = pictures(args.folders)
    if args.split != "all":
        from devtools.train_labels import real_split

        paths = [p for p in paths if real_split(p) == args.split]
    if not paths:
        print("no pictures with a .truth.json beside them", file=sys.stderr)
        return 2
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs, initializer=use_models, initargs=(models,)) as pool:
            scores = list(pool.map(score, paths, [args.ocr] * len(paths), [args.calibrate] * len(paths),
                                   [args.change] * len(paths)))
    else:
        scores = [score(p, args.ocr, args.calibrate, args.change) for p in paths]
    if args.fails:
        for s in scores:
            if s.why:
                print(f"{Path(s.path).name}: " + "; ".join(s.why), file=sys.stderr)
    print(table(scores, lambda s: Path(s.path).parent.name))
    if args.calibrate:
        known = [s for s in scores if s.odds is not None and (s.solved is not None or s.wrong)]
        print()
        print(margin_table([(float(s.odds), not s.wrong) for s in known if s.odds is not None]))
    wrong = [Path(s.path).name for s in scores if s.wrong]
    if args.fail_on_wrong and wrong:
        print(f"WRONG answers: {', '.join(wrong)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
