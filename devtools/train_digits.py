"""Train the cell-digit reader (models/digits.onnx): is a digit written in this cell, and which?

From the repository root (dev-only: not installed with the package):

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python -m devtools.train_digits            # about 2 minutes on 2 cores

It reads the middle and bottom of a cell (where an answer is written; the
label sits at the top left, pencil marks are small) as a 28x28 darkness crop
(kkvision.vision.digits.digit_crop) and gives 10 classes: 0 = no answer, or
the digits 1..9.  Training crops:
  - synthetic cells: an answer digit (or none) in any installed font but the
    URW families (an eighth as kkvision.render draws answers), made to look written: thick or thin strokes, slant, wobble,
    scale and place jitter; with or without a cage label at the top left and
    pencil marks (small digits) around; grid lines at the edges; uneven light
    and shaded blocks behind; blur, noise, low contrast, JPEG;
  - handwriting: scikit-learn's bundled digits (8x8, 1..9 only), the images
    with an EVEN index, heavily augmented; the ODD ones are held out and are
    what the accuracy on handwriting is measured on.
Fixed seeds; exports ONNX and checks OpenCV's dnn gives what torch gives.
"""

from __future__ import annotations

import argparse
import random
import time
from functools import lru_cache
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from kkvision.vision.digits import SIDE, digit_crop, handwriting_crop

ROOT = Path(__file__).resolve().parents[1]  # the repository root: the model goes to its models/ folder
HELDOUT_FAMILIES = ("Nimbus", "URW", "C059", "P052")
SHADE_SHARE = 0.3  # synthetic cells with uneven light or shaded blocks behind the digit
OWN_SHARE = 0.12  # synthetic answers drawn as kkvision's answer pictures draw them: checking its own output
NOT_TEXT_FONTS = ("StandardSymbols", "D050000L", "DejaVuMathTeXGyre", "Hairline")


@lru_cache(maxsize=2)
def fonts() -> list[str]:
    found = sorted(str(p) for d in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")) if d.exists()
                   for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))
    return [f for f in found if not any(b in Path(f).name for b in NOT_TEXT_FONTS + HELDOUT_FAMILIES)]


@lru_cache(maxsize=4096)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@lru_cache(maxsize=1)
def own_font() -> str:
    """The font kkvision.render draws answers with (its first installed FONT_NAMES)."""
    from kkvision.render import FONT_NAMES

    for name in FONT_NAMES:
        hits = [p for d in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")) if d.exists()
                for p in d.rglob(name)]
        if hits:
            return str(hits[0])
    return fonts()[0]


def cell(rng: random.Random) -> tuple[np.ndarray, int]:
    """One synthetic cell crop and its class (0: no answer)."""
    s = rng.randint(40, 160)
    img = Image.new("L", (s, s), rng.randint(200, 255))
    d = ImageDraw.Draw(img)
    ink = rng.randint(0, 90)
    for k in (0, s - 1):  # cell borders, thin or thick
        w = rng.choice([1, 1, 2, max(2, s // 18)])
        d.line([(k, 0), (k, s)], fill=ink, width=w)
        d.line([(0, k), (s, k)], fill=ink, width=w)
    if rng.random() < 0.5:  # a cage label at the top left
        f = _font(rng.choice(fonts()), max(6, int(s * rng.uniform(0.16, 0.28))))
        d.text((s * 0.06, s * 0.04), f"{rng.randint(1, 999)}{rng.choice('+-x/÷')}", font=f, fill=ink)
    if rng.random() < 0.25:  # pencil marks: small digits
        f = _font(rng.choice(fonts()), max(5, int(s * rng.uniform(0.1, 0.16))))
        for _ in range(rng.randint(1, 6)):
            d.text((rng.uniform(0.05, 0.85) * s, rng.uniform(0.3, 0.85) * s), str(rng.randint(1, 9)), font=f,
                   fill=rng.randint(0, 150))
    label = 0 if rng.random() < 0.2 else rng.randint(1, 9)
    own = rng.random() < OWN_SHARE  # drawn as kkvision's own answer pictures draw it (render.py)
    if label:
        layer = Image.new("L", (s, s), 0)
        ld = ImageDraw.Draw(layer)
        if own:
            f = _font(own_font(), max(8, int(s * rng.uniform(0.46, 0.54))))
            cx, cy = s * rng.uniform(0.47, 0.53), s * rng.uniform(0.58, 0.66)
            ld.text((cx, cy), str(label), font=f, fill=255, anchor="mm")
        else:
            f = _font(rng.choice(fonts()), max(8, int(s * rng.uniform(0.4, 0.72))))
            box = ld.textbbox((0, 0), str(label), font=f)
            cx, cy = s * rng.uniform(0.42, 0.58), s * rng.uniform(0.52, 0.66)
            ld.text((cx - (box[0] + box[2]) / 2, cy - (box[1] + box[3]) / 2), str(label), font=f, fill=255)
        a = np.asarray(layer).astype(np.float32)
        if not own and rng.random() < 0.5:  # written, not printed: stroke weight, slant, wobble
            k = rng.choice([1, 2, 3])
            a = cv2.dilate(a, np.ones((k, k), np.uint8)) if rng.random() < 0.6 else cv2.erode(a, np.ones((2, 2), np.uint8))
            m = np.float32([[1, rng.uniform(-0.3, 0.3), 0], [0, 1, 0]])
            m[0, 2] = -m[0, 1] * s / 2
            a = cv2.warpAffine(a, m, (s, s))
            dx = cv2.GaussianBlur(np.random.default_rng(rng.randint(0, 10**6)).normal(0, 1, (s, s)).astype(np.float32), (0, 0), s / 10)
            dy = cv2.GaussianBlur(np.random.default_rng(rng.randint(0, 10**6)).normal(0, 1, (s, s)).astype(np.float32), (0, 0), s / 10)
            amp = rng.uniform(0, 0.06) * s / (np.abs(dx).max() + 1e-6)
            yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
            a = cv2.remap(a, xx + dx * amp, yy + dy * amp, cv2.INTER_LINEAR)
        colour = rng.randint(50, 130) if own else rng.randint(0, 110)  # render.SOLUTION's blue is a mid grey
        base = np.asarray(img).astype(np.float32)
        img = Image.fromarray(np.clip(base - (base - colour) * (a / 255.0), 0, 255).astype(np.uint8))
    arr = np.asarray(img).astype(np.float32)
    if rng.random() < SHADE_SHARE:  # a photo's uneven light and a screen's shaded cells: soft, wide, not ink
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s
        arr -= rng.uniform(0, 70) * np.clip(rng.uniform(-1, 1) * (xx - 0.5) + rng.uniform(-1, 1) * (yy - 0.5) + 0.5,
                                          0, 1)
        for _ in range(rng.randint(0, 3)):  # blocks of a lighter grey (a highlighted row, a cage's fill)
            x0, y0 = rng.uniform(-0.5, 0.9) * s, rng.uniform(-0.5, 0.9) * s
            x1, y1 = x0 + rng.uniform(0.3, 1.5) * s, y0 + rng.uniform(0.3, 1.5) * s
            arr[max(0, int(y0)):max(0, int(y1)), max(0, int(x0)):max(0, int(x1))] -= rng.uniform(10, 45)
        arr = np.clip(arr, 0, 255)
    if rng.random() < 0.6:
        arr = cv2.GaussianBlur(arr, (0, 0), rng.uniform(0.3, 1.2))
    arr = np.clip(arr + np.random.default_rng(rng.randint(0, 10**6)).normal(0, rng.uniform(0, 10), arr.shape), 0, 255)
    if rng.random() < 0.5:
        arr = cv2.imdecode(cv2.imencode(".jpg", arr.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(30, 90)])[1], 0)
    jitter = [rng.uniform(-0.04, 0.04) * s for _ in range(4)]
    return digit_crop(arr.astype(np.uint8), (jitter[0], jitter[1], s + jitter[2], s + jitter[3])), label


def _make(args: tuple[int, int]) -> tuple[np.ndarray, int]:
    i, seed = args
    return cell(random.Random(seed * 1_000_003 + i))


def handwriting(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's digits 1..9 as crops: (train x, y) from even indices, (held-out x, y) from odd."""
    from sklearn.datasets import load_digits

    d = load_digits()
    keep = d.target > 0
    x = np.stack([handwriting_crop(img / 16.0) for img in d.images[keep]])
    y = d.target[keep]
    idx = np.arange(len(y))
    return x[idx % 2 == 0], y[idx % 2 == 0], x[idx % 2 == 1], y[idx % 2 == 1]


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = np.empty(x.shape, np.float32)
    for i, a in enumerate(x):
        ang, sc = rng.uniform(-12, 12), rng.uniform(0.8, 1.15)
        m = cv2.getRotationMatrix2D((SIDE / 2, SIDE / 2), ang, sc)
        m[:, 2] += rng.uniform(-2, 2, 2)
        out[i] = cv2.warpAffine(a, m, (SIDE, SIDE))
    return np.clip(out * rng.uniform(0.7, 1.2, (len(x), 1, 1)), 0, 1)


def network():  # type: ignore[no-untyped-def]
    import torch.nn as nn

    return nn.Sequential(
        nn.Conv2d(1, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(24, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(48, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * 3 * 3, 96), nn.ReLU(), nn.Linear(96, 10),
    )


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=40_000)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "digits.onnx")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    with Pool(2) as pool:
        made = pool.map(_make, [(i, args.seed) for i in range(args.samples)], chunksize=256)
    sx, sy = np.stack([m[0] for m in made]), np.array([m[1] for m in made])
    hx, hy, vx, vy = handwriting(args.seed)
    reps = max(1, int(0.25 * len(sy) / len(hy)))  # handwriting is a quarter of what is seen
    x, y = np.concatenate([sx] + [hx] * reps), np.concatenate([sy] + [hy] * reps)
    print(f"{len(sy)} synthetic, {len(hy)}x{reps} handwriting, {len(vy)} handwriting held out"
          f" ({time.time() - t0:.0f} s)", flush=True)
    model = network()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = args.epochs * (len(y) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(len(y))
        for b in range(len(y) // 128):
            idx = order[b * 128:(b + 1) * 128]
            xb = torch.from_numpy(augment(x[idx], rng).astype(np.float32))[:, None]
            loss = loss_fn(model(xb), torch.from_numpy(y[idx]).long())
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            acc = (model(torch.from_numpy(vx.astype(np.float32))[:, None]).argmax(1).numpy() == vy).mean()
        print(f"epoch {epoch + 1}: handwriting held out {acc:.1%} ({time.time() - t0:.0f} s)", flush=True)
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, SIDE, SIDE), str(args.out), input_names=["crop"],
                      output_names=["scores"], dynamic_axes={"crop": {0: "n"}, "scores": {0: "n"}},
                      opset_version=13, dynamo=False)
    net = cv2.dnn.readNetFromONNX(str(args.out))
    probe = torch.rand(4, 1, SIDE, SIDE)
    net.setInput(probe.numpy())
    with torch.no_grad():
        if not np.allclose(net.forward(), model(probe).numpy(), atol=1e-3):
            raise SystemExit("OpenCV dnn disagrees with torch on the exported digit model")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
