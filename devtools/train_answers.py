"""Train the framed-answer reader (models/answers.onnx): which digit is this answer, seen alone?

From the repository root (dev-only: not installed with the package):

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python -m devtools.train_answers            # about 10 minutes on 2 cores

kkvision.vision.framed gives check's second look at an answer read neither
surely right nor surely wrong: the cell's ink that is no label's alone, framed
as MNIST frames a digit (framed.framed: its box scaled to 20 px, centred by its
mass in 28 x 28).  This network reads that crop as one of the digits 1..9.

Training crops: real writers' digits (devtools/hands.py's training split of the
MNIST writers; the 'dev' and 'locked' writers never) and, TYPED of them, the
digit typed in a seen font (never a held-out design) or drawn as kkvision
draws answers; each written as the scenes write them (hands.draw: a pen's cut of the enlarged digit, a hand's lean
and turn) 10..90 px high, then spoiled as a picture and the content stage spoil
it (JUNK of them: a bit of a line at a side or a speck of a label left with it;
CUT_SHARE cut off at a cell's side; blur, faint ink, noise) and framed by
framed.framed itself, so training and reading frame alike.  Validation: the
'dev' writers' digits drawn the same way; the scores are divided by the
temperature that makes the probabilities honest on them (the expected
calibration error, ECE, printed before and after), and the division is part of
the exported model.  Fixed seeds; exports ONNX and checks OpenCV's dnn gives
what torch gives.

The network: two blocks of two 3x3 convolutions (32, 64 channels) with batch
norm, each halving, a 128-wide dense layer with dropout; ~0.45 M parameters.
MNIST by Yann LeCun and Corinna Cortes (CC BY-SA 3.0); writers from QMNIST
(C. Yadav and L. Bottou, 2019).
"""

from __future__ import annotations

import argparse
import random
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from devtools import export, hands
from devtools.train_digits import Scale, calibration_error, fonts, own_font, softmax, temperature
from kkvision.vision import framed

ROOT = Path(__file__).resolve().parents[1]
HEIGHT = (10.0, 90.0)  # px: how high an answer is written in the pictures read (a phone photo's 6x6 to a scan's)
JUNK = 0.3  # crops with a bit of a line or a label's speck left beside the answer by the content stage
CUT_SHARE = 0.1  # crops of an answer cut off (up to CUT of it) at a cell's side
CUT = 0.12
TYPED = 0.15  # digits typed in a seen font or drawn as kkvision draws answers: check reads typed answers too
# --warp SHARE: that share of each batch's crops warped afresh (warp), a hand's own variation (Simard et al.
# 2003's elastic distortions for MNIST); off for the shipped model (see models/README.md: tried, not shipped)
WARP_PX = 1.5  # px at most: a smooth displacement field's largest shift (of a 20 px digit box)
WARP_SMOOTH = 4.0  # px: the field's smoothness (a Gaussian's sigma), as Simard's
WARP_TURN = 8.0  # degrees either way
WARP_SCALE = 0.08  # scaled by up to this either way
WARP_SHIFT = 1.0  # px either way
# --looks SHARE: that share of the real writers' digits drawn in a look of their own (devtools/hands.any_look:
# stretched towards a square, scanned coarse, grey and grainy, in any mix), so the reader learns digits, not
# MNIST's one look (0: none, as the shipped model was trained)
LOOKS = 0.0


def typed(digit: int, height: float, rng: random.Random) -> np.ndarray:
    """A digit typed in a font a typed answer may be in (train_digits.fonts: no held-out design) or drawn as
    kkvision draws answers: ink coverage 0..1, `height` px high."""
    size = max(8, int(height * 1.4))
    canvas = Image.new("L", (3 * size, 3 * size), 0)
    font = ImageFont.truetype(own_font() if rng.random() < 0.2 else rng.choice(fonts()), size)
    ImageDraw.Draw(canvas).text((1.5 * size, 1.5 * size), str(digit), font=font, fill=255, anchor="mm")
    return np.asarray(canvas, np.float32) / 255.0


def example(rng: random.Random, image: np.ndarray, digit: int) -> np.ndarray | None:
    """One real writer's digit (TYPED of them: the digit typed), written, spoiled and framed as framed_crops
    frames an answer (None: framed found no ink)."""
    h = rng.uniform(*HEIGHT)
    d: np.ndarray
    if rng.random() < TYPED:
        d = typed(digit, h, rng)
    else:
        look = hands.look(rng, LOOKS)
        d = hands.draw(image, h, rng, slant=rng.uniform(-0.35, 0.25), turn=rng.uniform(-10, 10), style=look) / 255.0
    d = np.pad(d, int(h * 0.3) + 2)
    if rng.random() < JUNK:
        rows, cols = d.shape
        if rng.random() < 0.5:  # a line's edge along a side of the cell
            x = rng.choice([rng.randint(0, 2), cols - 1 - rng.randint(0, 2)])
            d[:, max(0, x - 1):x + 1] = np.maximum(d[:, max(0, x - 1):x + 1], rng.uniform(0.4, 1.0))
        else:  # a speck of a label
            cv2.circle(d, (rng.randint(0, cols - 1), rng.randint(0, rows - 1)), rng.randint(1, 3), rng.uniform(0.5, 1.0), -1)
    if rng.random() < CUT_SHARE:
        k = int(rng.uniform(0, CUT) * d.shape[0])
        if k:  # at one side: that side turned to the top, cut, turned back
            turn = rng.randint(0, 3)
            d = np.rot90(d, turn).copy()
            d[:k] = 0
            d = np.rot90(d, -turn).copy()
    if rng.random() < 0.6:
        d = cv2.GaussianBlur(d, (0, 0), rng.uniform(0.3, 1.5))
    noise = np.random.default_rng(rng.randint(0, 10**6)).normal(0, rng.uniform(0, 0.08), d.shape)
    faint = d * rng.uniform(0.5, 1.0) + noise
    return framed.framed(np.clip(faint / max(0.3, float(faint.max())), 0, 1).astype(np.float32))


def _make(args: tuple[str, int, int]) -> tuple[np.ndarray, np.ndarray]:
    split, count, seed = args
    images, labels, _ = hands.digits(split)
    answers = labels > 0  # 0 is no answer
    images, labels = images[answers], labels[answers]
    rng = random.Random(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    while len(xs) < count:
        i = rng.randrange(len(images))
        x = example(rng, images[i], int(labels[i]))
        if x is not None:
            xs.append(x)
            ys.append(int(labels[i]) - 1)
    return np.stack(xs), np.asarray(ys)


def warp(x: np.ndarray, share: float, rng: np.random.Generator) -> np.ndarray:
    """`share` of the crops `x` (N x FRAME x FRAME) turned, scaled and shifted a little and bent by a smooth
    random displacement field (at most WARP_PX): a copy."""
    out = x.copy()
    side = framed.FRAME
    grid = np.mgrid[0:side, 0:side][::-1].astype(np.float32)  # x, y of each pixel
    for i in np.flatnonzero(rng.random(len(x)) < share):
        field = rng.uniform(-1, 1, (2, side, side)).astype(np.float32)
        field = np.stack([cv2.GaussianBlur(f, (0, 0), WARP_SMOOTH) for f in field])
        field *= rng.uniform(0, WARP_PX) / max(1e-6, float(np.abs(field).max()))
        m = cv2.getRotationMatrix2D((side / 2, side / 2), rng.uniform(-WARP_TURN, WARP_TURN),
                                    1 + rng.uniform(-WARP_SCALE, WARP_SCALE))
        m[:, 2] += rng.uniform(-WARP_SHIFT, WARP_SHIFT, 2)
        turned = cv2.warpAffine(x[i], m, (side, side))
        out[i] = cv2.remap(turned, grid[0] + field[0], grid[1] + field[1], cv2.INTER_LINEAR)
    return out


def network():  # type: ignore[no-untyped-def]
    import torch.nn as nn

    def block(cin: int, cout: int) -> list:  # type: ignore[type-arg]
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]

    side = framed.FRAME // 4
    return nn.Sequential(*block(1, 32), *block(32, 64), nn.Flatten(), nn.Dropout(0.3),
                         nn.Linear(64 * side * side, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 9))


def _use_looks(share: float) -> None:
    global LOOKS  # read by example() here and in the pool's (forked) workers
    LOOKS = share


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=80_000)
    ap.add_argument("--val", type=int, default=4000, help="validation digits by the 'dev' writers")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--warp", type=float, default=0.0, help="share of each batch warped afresh (0: none, as shipped)")
    ap.add_argument("--looks", type=float, default=LOOKS,
                    help="share of the real writers' digits drawn in a look of their own (0: none, as shipped)")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / framed.MODEL)
    args = ap.parse_args()
    _use_looks(args.looks)
    if not hands.available():
        raise SystemExit(f"train_answers: the real hands are not in {hands.FOLDER} (devtools/hands.py)")
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    half = args.samples // 2
    with Pool(2) as pool:
        made = pool.map(_make, [("train", half, args.seed), ("train", args.samples - half, args.seed + 1),
                                ("dev", args.val, args.seed + 2)])
    x, y = np.concatenate([made[0][0], made[1][0]]), np.concatenate([made[0][1], made[1][1]])
    vx, vy = made[2]
    print(f"{len(x)} training digits, {len(vx)} by held-out writers ({time.time() - t0:.0f} s)", flush=True)
    model = network()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    batch = 128
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=args.epochs * (len(x) // batch))

    def logits_of(xs: np.ndarray) -> np.ndarray:
        model.eval()
        with torch.no_grad():
            return np.concatenate([model(torch.from_numpy(xs[i:i + 1024])[:, None]).numpy()
                                   for i in range(0, len(xs), 1024)])

    def report(t: float = 1.0) -> str:
        p = softmax(logits_of(vx) / t)
        sure = p.max(1) >= 0.9
        return (f"held-out writers {(p.argmax(1) == vy).mean():.2%} (sure {sure.mean():.0%}, of those right"
                f" {(p.argmax(1) == vy)[sure].mean():.2%}; ECE {calibration_error(p, vy):.4f})")

    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(len(x))
        for b in range(len(x) // batch):
            idx = order[b * batch:(b + 1) * batch]
            xb = warp(x[idx], args.warp, rng) if args.warp > 0 else x[idx]
            loss = torch.nn.functional.cross_entropy(model(torch.from_numpy(xb)[:, None]),
                                                     torch.from_numpy(y[idx]).long())
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch + 1}: {report()} ({time.time() - t0:.0f} s)", flush=True)
    t = temperature(logits_of(vx), vy)
    print(f"temperature {t:.3f} (fitted on the held-out writers' digits); after it: {report(t)}", flush=True)
    export.onnx(torch.nn.Sequential(model, Scale(1.0 / t)).eval(), args.out, framed.FRAME, framed.FRAME,
                "framed-answer model", features=True)  # its 'features' too: answers.in_one_hand compares answers by them
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
