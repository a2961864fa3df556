"""Train the cell-content network (models/contents.onnx): which ink of a cell is no label's?

From the repository root (dev-only: not installed with the package):

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python -m devtools.train_contents

kkvision.vision.contents takes a player's answers, pencil marks and a site's
placeholders out of the cells before labels and borders are read.  This
network says where that ink is: for each pixel of a whole cell seen at
contents.SIDE x SIDE (contents.crops), the probability that its ink is no
label's.  Training cells are devtools/train_digits.py's synthetic cells
(cell_picture: grid lines, a label or none, pencil marks, placeholders and
answers typed, drawn as kkvision draws them, written by real writers of
devtools/hands.py's training split at any size up to the whole cell, by
stroke synthesis or in hand-like fonts; uneven light, show-through, blur,
noise, JPEG), drawn with the answer, the pencil marks and the placeholder as
a layer of their own: the target is where that layer has ink (OTHER of
coverage).  Validation: cells written by the 'dev' writers, never trained on:
the share of the written ink taken out, and of the rest of the ink (labels,
lines) taken out by mistake, at contents.INK.

The network: a small U-Net (two halvings, 12/24/48 channels, ~50 k
parameters), one output channel of scores.  Fixed seeds; exports ONNX and
checks OpenCV's dnn gives what torch gives.  MNIST digits: Yann LeCun and
Corinna Cortes (CC BY-SA 3.0); writers: QMNIST (C. Yadav and L. Bottou, 2019).
"""

from __future__ import annotations

import argparse
import random
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from devtools import export, hands
from devtools.train_digits import REAL_SHARE, cell_picture
from kkvision.vision import contents, digits

ROOT = Path(__file__).resolve().parents[1]
OTHER = 0.3  # of the layer's coverage: a pixel at least this covered by written ink is written ink
INK_LEVEL = 0.25  # of the crop's darkness: a pixel this dark is ink (to measure what was taken out)
WIDTH = 12  # channels of the U-Net's first level (then twice, four times): --width
# where an answer crosses a label, its pixels are the answer's (taken out) rather than the label's (left):
# --label-crossed.  Left (the shipped model), the network leaves an answer's ink beside a label too: dark
# blobs by the labels of hand-big pages, read as operators and digits ('6/' for '6', '21x' for '20x').
# Taken, fewer blobs, but the verdicts did not gain (models/README.md: tried at stop 58)
LABEL_CROSSED = False
# of the real writers' answers, the share written big and high, over the label's row as players write big
# answers (train_digits.HIGH_SIZE): --high.  Seen rarely, the top of such an answer's stroke beside a label was
# taken for the label's (the network's probability near 0 there), read as an operator or a digit
HIGH = 0.0
# the loss's weight on the pixels of a label's or a line's ink (the target's 0 where the crop is ink), against
# 1 elsewhere: --keep; a label's ink taken out with an answer written over it is a label misread
KEEP = 1.0


def example(rng: random.Random, split: str, label_crossed: bool = LABEL_CROSSED, high: float = HIGH
            ) -> tuple[np.ndarray, np.ndarray]:
    """One cell's crop (uint8 darkness) and its target (1 where the ink is no label's; with `label_crossed`,
    where an answer crosses the label too); `high` of the real writers' answers big and high."""
    picture, _, box, other = cell_picture(rng, split, REAL_SHARE, layers=True, label_crossed=label_crossed,
                                          high=high)
    assert other is not None
    x = contents.crops(picture, [box])[0]
    layer = digits.cell_area(other.astype(np.float32), box, (0.0, 0.0, 1.0, 1.0), contents.SIDE) / 255.0
    return (x * 255).astype(np.uint8), ((layer >= OTHER) & (x >= INK_LEVEL / 2)).astype(np.uint8)


def _make(args: tuple[int, int, str, bool, float]) -> tuple[np.ndarray, np.ndarray]:
    i, seed, split, crossed, high = args
    return example(random.Random(seed * 1_000_003 + i), split, crossed, high)


def examples(pool, count: int, seed: int, split: str, crossed: bool = LABEL_CROSSED,  # type: ignore[no-untyped-def]
             high: float = HIGH) -> tuple[np.ndarray, np.ndarray]:
    made = pool.map(_make, [(i, seed, split, crossed, high) for i in range(count)], chunksize=256)
    return np.stack([m[0] for m in made]), np.stack([m[1] for m in made])


def network(width: int = WIDTH):  # type: ignore[no-untyped-def]
    import torch
    import torch.nn as nn

    def block(cin: int, cout: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())

    class UNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            w = width
            self.down1, self.down2, self.bottom = block(1, w), block(w, 2 * w), block(2 * w, 4 * w)
            self.up2, self.up1 = block(4 * w + 2 * w, 2 * w), block(2 * w + w, w)
            self.pool, self.grow = nn.MaxPool2d(2), nn.Upsample(scale_factor=2, mode="nearest")
            self.head = nn.Conv2d(w, 1, 1)

        def forward(self, x):  # type: ignore[no-untyped-def]
            a = self.down1(x)
            b = self.down2(self.pool(a))
            c = self.bottom(self.pool(b))
            b = self.up2(torch.cat([self.grow(c), b], 1))
            return self.head(self.up1(torch.cat([self.grow(b), a], 1)))

    return UNet()


def measure(probs: np.ndarray, x: np.ndarray, y: np.ndarray) -> str:
    """What share of the written ink is taken out, and of the other ink (labels, lines) by mistake."""
    ink = x >= INK_LEVEL * 255
    out = probs >= contents.INK
    written, rest = ink & (y == 1), ink & (y == 0)
    return (f"written ink taken out {(out & written).sum() / max(1, written.sum()):.1%},"
            f" other ink taken out {(out & rest).sum() / max(1, rest.sum()):.2%}")


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=40_000)
    ap.add_argument("--val", type=int, default=3000, help="validation cells written by the 'dev' writers")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--width", type=int, default=WIDTH, help="channels of the first level (then 2x, 4x)")
    ap.add_argument("--label-crossed", action=argparse.BooleanOptionalAction, default=LABEL_CROSSED,
                    help="an answer's pixels where it crosses a label are the answer's (taken out)")
    ap.add_argument("--high", type=float, default=HIGH, help="share of real answers written big and high")
    ap.add_argument("--keep", type=float, default=KEEP,
                    help="loss weight of the labels' and lines' ink (the network must leave it)")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / contents.MODEL)
    args = ap.parse_args()
    if not hands.available():
        raise SystemExit(f"train_contents: the real hands are not in {hands.FOLDER} (devtools/hands.py)")
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    with Pool(2) as pool:
        x, y = examples(pool, args.samples, args.seed, "train", args.label_crossed, args.high)
        vx, vy = examples(pool, args.val, args.seed + 1, "dev", args.label_crossed, args.high)
    print(f"{len(x)} training cells, {len(vx)} validation cells by held-out writers; written ink"
          f" {y.mean():.1%} of the pixels ({time.time() - t0:.0f} s)", flush=True)
    model = network(args.width)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 64
    steps = args.epochs * (len(x) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")

    def probs_of(xs: np.ndarray) -> np.ndarray:
        model.eval()
        with torch.no_grad():
            return np.concatenate([torch.sigmoid(model(torch.from_numpy(xs[i:i + 512].astype(np.float32) / 255)[:, None]))
                                   [:, 0].numpy() for i in range(0, len(xs), 512)])

    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(len(x))
        for b in range(len(x) // batch):
            idx = order[b * batch:(b + 1) * batch]
            xb = torch.from_numpy(x[idx].astype(np.float32) / 255)[:, None]
            yb = torch.from_numpy(y[idx].astype(np.float32))[:, None]
            weight = 1.0 + (args.keep - 1.0) * ((xb >= INK_LEVEL) & (yb == 0)).float()
            loss = (loss_fn(model(xb), yb) * weight).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch + 1}: {measure(probs_of(vx), vx, vy)} ({time.time() - t0:.0f} s)", flush=True)
    export.onnx(model, args.out, contents.SIDE, contents.SIDE, "content model")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
