"""Train the cage-label reader shipped as models/labels.onnx.

From the repository root (dev-only: not installed with the package):

    .venv/bin/pip install -e '.[train]'          # PyTorch (CPU) and onnx
    .venv/bin/python -m devtools.train_labels --real ../shared/real-dev     # the shipped model

What it learns: kkvision.vision.labels reads a fixed crop of the top of each
cell (labels.label_crop) with a small convolutional network and CTC decoding.
This script makes those crops the way the runtime does, from synthetic cell
neighbourhoods ("scenes") drawn under heavy augmentation:
  - text: a target with or without an operator (+, - − –, × x X *, ÷ /), or
    none (an empty cell reads as ''), in 100+ fonts (every installed family
    but the URW ones, which devtools.synth.HELDOUT_FONTS keeps unseen), cap
    height 12..34% of the cell, placed near the top-left corner;
  - the cell: paper tint, highlighted cells, thin lines solid, grey, dotted
    or absent, thick cage borders on any side, a neighbour's label just right
    of the cell, pencil marks and a written answer below the label;
  - the picture: 24..170 px cells at the source (labels 4..55 px high), then
    resampled to the 900 px grid square as the grid stage does; blur, noise,
    JPEG 25..95, low contrast, uneven light, show-through of the page's back,
    small rotation and shear, and the cell box off by up to 5% of a side;
  - with --real, label crops cut from the pictures of a folder of real
    pictures with .truth.json (half of them, chosen by a hash of the file
    name; the other half is held out and scored), oversampled with jitter.
The network: 5 conv layers reduce the 40x88 crop to 22 columns; a 1-D
convolution mixes neighbouring columns; a 1x1 convolution gives the 15 class
scores (blank + ALPHABET) per column.  ~0.2 M parameters, < 1 MB as ONNX.
Fixed seeds throughout (data, split, initialisation, batches; CPU, 2 threads).
On a 2-core machine the default run takes about 35 minutes (3 to make the
crops, 5 per epoch).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import time
from functools import lru_cache
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from kkvision.vision.labels import (
    ALPHABET,
    CROP_H,
    CROP_W,
    decode,
    label_crop,
)

ROOT = Path(__file__).resolve().parents[1]  # the repository root: the model goes to its models/ folder
SQUARE = 900  # kkvision.vision.grid.SIDE: the grid square the runtime crops from
HELDOUT_FAMILIES = ("Nimbus", "URW", "C059", "P052")  # devtools.synth.HELDOUT_FONTS' families, never trained on
NOT_TEXT_FONTS = ("StandardSymbols", "D050000L", "Z003", "DejaVuMathTeXGyre", "Hairline", "Thin")
OPERATOR_GLYPHS = {"+": ["+"], "-": ["-", "−", "–"], "*": ["×", "x", "X", "*"], "/": ["÷", "/"]}


@lru_cache(maxsize=2)
def fonts(heldout: bool) -> list[str]:
    found = sorted(str(p) for d in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")) if d.exists()
                   for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))
    found = [f for f in found if not any(bad in Path(f).name for bad in NOT_TEXT_FONTS)]
    return [f for f in found if any(h in Path(f).name for h in HELDOUT_FAMILIES) == heldout]


@lru_cache(maxsize=4096)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@lru_cache(maxsize=4096)
def _has(path: str, ch: str) -> bool:
    font = _font(path, 40)
    missing = font.getmask("\uffff").getbbox()
    box = font.getmask(ch).getbbox()
    return box is not None and (missing is None or box != missing or ch in "-")


def random_text(rng: random.Random) -> tuple[str, str]:
    """(what is printed, what the network should read)."""
    u = rng.random()
    if u < 0.18:  # a single cell's digit, or a hidden-operator target
        target = rng.randint(1, 9) if rng.random() < 0.8 else rng.randint(10, 99)
        return str(target), str(target)
    if u < 0.28:  # any digits, so no number is favoured
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 5))).lstrip("0") or "7"
        op = rng.choice("+-*/") if rng.random() < 0.7 else ""
    else:
        op = rng.choice("++--**//")
        if op == "+":
            target = rng.randint(3, 45)
        elif op == "-":
            target = rng.randint(1, 8)
        elif op == "/":
            target = rng.randint(2, 9)
        else:
            target = int(round(math.exp(rng.uniform(math.log(2), math.log(400000)))))
        digits = str(target)
    shown = rng.choice(OPERATOR_GLYPHS[op]) if op else ""
    space = " " if op and rng.random() < 0.12 else ""
    return digits + space + shown, digits + op


def _ink(rng: random.Random, paper: int) -> tuple[int, int, int]:
    kind = rng.random()
    dark = rng.randint(0, min(110, paper - 60))
    if kind < 0.55:
        return (dark, dark, dark)
    if kind < 0.75:  # app blue / purple
        return (rng.randint(20, 90), rng.randint(20, 90), rng.randint(140, 230))
    if kind < 0.85:
        return (rng.randint(110, 190), rng.randint(0, 40), rng.randint(0, 40))
    return tuple(rng.randint(0, 120) for _ in range(3))  # type: ignore[return-value]


def scene(rng: random.Random, font_paths: list[str], text: str | None = None) -> tuple[np.ndarray, str]:
    """One label crop (CROP_H x CROP_W darkness) and the text it shows."""
    s = int(math.exp(rng.uniform(math.log(24), math.log(170))))  # cell side at the source, px
    # only the part of the 3x3 cells around the target that a crop can see
    # is drawn: the target cell's top-left corner is at (0.3 s, 0.3 s)
    pad = int(-0.7 * s)
    paper = rng.randint(175, 255) if rng.random() < 0.5 else 255
    tint = np.array([paper - rng.randint(0, 25) if rng.random() < 0.3 else paper for _ in range(3)])
    img = Image.new("RGB", (int(1.7 * s), int(1.2 * s)), tuple(int(v) for v in tint))
    d = ImageDraw.Draw(img)
    x0 = y0 = pad + s  # the target cell is the middle one of 3x3
    if rng.random() < 0.1:  # highlighted cell
        hl = rng.choice([(255, 255, 150), (200, 225, 255), (225, 225, 225), (210, 250, 210), (255, 220, 200)])
        d.rectangle([x0, y0, x0 + s, y0 + s], fill=hl)
    # thin cell lines, then thick cage borders over some edges
    thin_kind = rng.random()
    thin_w = max(1, round(s * rng.uniform(0.005, 0.025)))
    thin_col = rng.randint(0, 90) if thin_kind < 0.5 else rng.randint(90, 225)
    dotted = rng.random() < 0.15
    thick_w = max(thin_w + 1, round(s * rng.uniform(0.03, 0.1)))
    thick_col = rng.randint(0, 70)
    for k in range(4):
        for j in range(3):
            for vertical in (True, False):
                if vertical:
                    a, b = (pad + k * s, pad + j * s), (pad + k * s, pad + (j + 1) * s)
                else:
                    a, b = (pad + j * s, pad + k * s), (pad + (j + 1) * s, pad + k * s)
                thick = rng.random() < 0.35
                if thick:
                    w, col = thick_w, thick_col
                elif thin_kind < 0.08:
                    continue  # no thin lines at all
                else:
                    w, col = thin_w, thin_col
                if dotted and not thick:
                    n = max(2, int(s / max(3, 3 * w)))
                    for t in range(n):
                        f0, f1 = t / n, (t + 0.5) / n
                        d.line([(a[0] + (b[0] - a[0]) * f0, a[1] + (b[1] - a[1]) * f0),
                                (a[0] + (b[0] - a[0]) * f1, a[1] + (b[1] - a[1]) * f1)], fill=(col,) * 3, width=w)
                else:
                    d.line([a, b], fill=(col,) * 3, width=w)
    # the label of the cell, or none
    shown, truth = random_text(rng) if text is None else (text, text)
    if text is None and rng.random() < 0.22:
        shown, truth = "", ""
    fpath = rng.choice(font_paths)
    ink = _ink(rng, paper)
    cap = rng.uniform(0.12, 0.34) * s
    fsize = max(5, int(cap / 0.72))
    font = _font(fpath, fsize)
    shown = "".join(ch if _has(fpath, ch) else {"−": "-", "–": "-", "×": "x", "÷": "/"}.get(ch, ch) for ch in shown)
    margin_x = rng.uniform(0.02, 0.12) * s + thick_w / 2
    margin_y = rng.uniform(0.02, 0.1) * s + thick_w / 2
    label_bottom = y0 + margin_y
    if shown:
        box = d.textbbox((0, 0), shown, font=font)
        room = 0.97 * s - margin_x  # printed labels fit inside their cell
        if box[2] - box[0] > room:
            fsize = max(5, int(fsize * room / (box[2] - box[0])))
            font = _font(fpath, fsize)
            box = d.textbbox((0, 0), shown, font=font)
        tx, ty = x0 + margin_x - box[0], y0 + margin_y - box[1]
        d.text((tx, ty), shown, font=font, fill=ink)
        label_bottom = ty + box[3]
    if rng.random() < 0.35:  # the right neighbour's label
        other, _ = random_text(rng)
        d.text((x0 + s + rng.uniform(0.02, 0.12) * s + thick_w / 2, y0 + margin_y), other, font=font, fill=ink)
    if rng.random() < 0.12:  # pencil marks under the label
        pf = _font(fpath, max(4, int(rng.uniform(0.1, 0.17) * s / 0.72)))
        col = rng.choice([(130, 0, 0), (90, 90, 90), (0, 0, 0), (40, 40, 160)])
        py = label_bottom + rng.uniform(0.03, 0.1) * s
        digits = rng.sample("123456789", rng.randint(2, 8))
        per_row = rng.randint(2, 5)
        for i in range(0, len(digits), per_row):
            d.text((x0 + margin_x, py), " ".join(digits[i:i + per_row]), font=pf, fill=col)
            py += 0.2 * s
    if rng.random() < 0.12:  # an answer written in the cell
        af = _font(rng.choice(font_paths), max(6, int(rng.uniform(0.35, 0.6) * s / 0.72)))
        digit = str(rng.randint(1, 9))
        box = d.textbbox((0, 0), digit, font=af)
        d.text((x0 + s / 2 - (box[0] + box[2]) / 2, y0 + 0.58 * s - (box[1] + box[3]) / 2), digit, font=af,
               fill=_ink(rng, paper))
    arr = np.asarray(img).astype(np.float32)
    arr = _degrade(arr, rng, fsize * 0.72)
    gray = cv2.cvtColor(np.clip(arr, 0, 255).astype(np.uint8), cv2.COLOR_RGB2GRAY)
    # to the grid square's scale, as the grid stage's warp does, and crop there
    n = rng.randint(3, 9)
    scale = (SQUARE / n) / s
    gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    S = s * scale
    jitter = [rng.uniform(-0.05, 0.05) * S for _ in range(4)]
    box = (x0 * scale + jitter[0], y0 * scale + jitter[1], (x0 + s) * scale + jitter[2], (y0 + s) * scale + jitter[3])
    return label_crop(gray, box), truth


def _degrade(arr: np.ndarray, rng: random.Random, cap: float) -> np.ndarray:
    """The picture's faults, scaled to the label's cap height `cap` (px) so
    that the text stays legible to a person: the network learns what a
    person can read, not noise."""
    h, w = arr.shape[:2]
    if rng.random() < 0.6:  # small rotation / shear / bow left by the grid stage
        ang, shear = rng.uniform(-2.5, 2.5), rng.uniform(-0.04, 0.04)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), ang, 1.0)
        m[0, 1] += shear
        arr = cv2.warpAffine(arr, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.2:  # show-through: the page's back, mirrored, faint
        back = cv2.flip(arr, 1)
        back = cv2.GaussianBlur(back, (0, 0), 1.0 + rng.random() * 2)
        a = rng.uniform(0.05, 0.2)
        arr = (1 - a) * arr + a * np.minimum(arr, back)
    if rng.random() < 0.5:  # uneven light
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        g = 1 - rng.uniform(0, 0.35) * ((xx * rng.uniform(-1, 1) + yy * rng.uniform(-1, 1)) / max(h, w) + 0.5)
        arr = arr * g[..., None]
    if rng.random() < 0.35:  # low contrast: ink lifted towards the paper
        lift = rng.uniform(0.2, 0.6)
        top = float(arr.max())
        arr = top - (top - arr) * (1 - lift)
    sigma = rng.choice([0, 0, 0.04, 0.06, 0.08, 0.1, 0.13]) * cap
    if sigma:
        arr = cv2.GaussianBlur(arr, (0, 0), sigma)
    if rng.random() < 0.7:
        arr = arr + np.random.default_rng(rng.randint(0, 2 ** 31)).normal(0, rng.uniform(2, 14), arr.shape)
    arr = np.clip(arr, 0, 255)
    if rng.random() < 0.6:
        ok, enc = cv2.imencode(".jpg", arr.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(25, 95)])
        arr = cv2.imdecode(enc, cv2.IMREAD_UNCHANGED).astype(np.float32)
    return arr


def _make(args: tuple[int, int, bool]) -> tuple[np.ndarray, str]:
    index, seed, heldout = args
    rng = random.Random(seed * 1_000_003 + index)
    return scene(rng, fonts(heldout))


def synthetic(count: int, seed: int, heldout: bool, jobs: int) -> tuple[np.ndarray, list[str]]:
    with Pool(jobs) as pool:
        out = pool.map(_make, [(i, seed, heldout) for i in range(count)], chunksize=256)
    return (np.stack([(c * 255).astype(np.uint8) for c, _ in out]), [t for _, t in out])


# --- real crops -----------------------------------------------------------------------------------


def real_split(path: Path) -> str:
    return "train" if hashlib.sha1(path.name.encode()).digest()[0] % 2 == 0 else "heldout"


def real_crops(folder: Path) -> dict[str, tuple[list[np.ndarray], list[str]]]:
    """Label crops (and empty cells) from real pictures whose grid and cages the
    pipeline finds as the truth has them; split by real_split."""
    from kkvision.vision import decode as decode_image
    from kkvision.vision.cages import find_cages
    from kkvision.vision.grid import find_grid

    out: dict[str, tuple[list[np.ndarray], list[str]]] = {"train": ([], []), "heldout": ([], [])}
    for truth_path in sorted(folder.rglob("*.truth.json")):
        truth = json.loads(truth_path.read_text())
        if "clues" not in truth.get("known", ()):
            continue
        pic = truth_path.with_name(truth_path.name[: -len(".truth.json")])
        try:
            image = decode_image(pic, pic.read_bytes())
            geom, square = find_grid(image)
            layout, _ = find_cages(square, geom)
        except Exception:  # noqa: BLE001 - a picture the grid stage cannot read teaches nothing
            continue
        cages = {frozenset(map(tuple, c["cells"])): c for c in truth["cages"]}
        if geom.size != truth["size"] or {frozenset(c) for c in layout.cages} != set(cages):
            continue
        crops, texts = out[real_split(pic)]
        anchors = set()
        for cage in cages.values():
            cell = min(map(tuple, cage["cells"]))
            anchors.add(cell)
            op = "" if cage["op"] in ("=", "?") else cage["op"]
            crops.append(label_crop(square, geom.cell_box(*cell)))
            texts.append(f"{cage['target']}{op}")
        for r in range(geom.size):
            for c in range(geom.size):
                if (r, c) not in anchors and (r * 7 + c) % 3 == 0:
                    crops.append(label_crop(square, geom.cell_box(r, c)))
                    texts.append("")
    return out


# --- the network ----------------------------------------------------------------------------------


def network():  # type: ignore[no-untyped-def]
    import torch.nn as nn

    def block(cin: int, cout: int) -> list:  # type: ignore[type-arg]
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    classes = len(ALPHABET) + 1
    return nn.Sequential(
        *block(1, 24), nn.MaxPool2d(2),            # 20 x 44
        *block(24, 48), nn.MaxPool2d(2),           # 10 x 22
        *block(48, 64), *block(64, 64), nn.MaxPool2d((2, 1)),  # 5 x 22
        *block(64, 96),
        nn.Conv2d(96, 96, (5, 1), bias=False), nn.BatchNorm2d(96), nn.ReLU(inplace=True),  # 1 x 22
        nn.Dropout(0.1),
        nn.Conv2d(96, 96, (1, 3), padding=(0, 1)), nn.ReLU(inplace=True),
        nn.Conv2d(96, classes, 1),
    )


def encode(texts: list[str]) -> tuple[list[int], list[int]]:
    flat, lengths = [], []
    for t in texts:
        flat += [ALPHABET.index(ch) + 1 for ch in t]
        lengths.append(len(t))
    return flat, lengths


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Cheap per-epoch variation of stored crops: shift by a pixel or two, contrast."""
    out = np.empty_like(batch)
    for i, crop in enumerate(batch):
        dx, dy = rng.integers(-2, 3), rng.integers(-1, 2)
        out[i] = np.roll(np.roll(crop, dy, axis=0), dx, axis=1)
    gain = rng.uniform(0.75, 1.15, size=(len(batch), 1, 1)).astype(np.float32)
    return np.clip(out * gain, 0, 1)


def accuracy(model, crops: np.ndarray, texts: list[str]) -> float:  # type: ignore[no-untyped-def]
    import torch

    model.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(crops), 512):
            x = torch.from_numpy(crops[i:i + 512].astype(np.float32) / 255.0)[:, None]
            probs = torch.softmax(model(x)[:, :, 0, :], dim=1).permute(0, 2, 1).numpy()
            for p, t in zip(probs, texts[i:i + 512]):
                right += decode(p, keep=1)[0][0] == t
    model.train()
    return right / max(1, len(texts))


def train(args: argparse.Namespace) -> None:
    import torch
    import torch.nn as nn

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.jobs)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    x, y = synthetic(args.samples, args.seed, False, args.jobs)
    vx, vy = synthetic(args.val, args.seed + 1, True, args.jobs)  # fonts never trained on
    print(f"synthetic crops: {len(y)} train, {len(vy)} held-out fonts ({time.time() - t0:.0f} s)", flush=True)
    real = {"train": ([], []), "heldout": ([], [])}
    if args.real:
        real = real_crops(args.real)
        print(f"real crops: {len(real['train'][1])} train, {len(real['heldout'][1])} held out", flush=True)
        if real["train"][1]:
            rx = np.stack([(c * 255).astype(np.uint8) for c in real["train"][0]])
            reps = max(1, int(args.real_share * len(y) / len(rx)))
            x = np.concatenate([x] + [rx] * reps)
            y = y + real["train"][1] * reps
    hx = np.stack([(c * 255).astype(np.uint8) for c in real["heldout"][0]]) if real["heldout"][1] else None
    model = network()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * (len(y) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    step = 0
    for epoch in range(args.epochs):
        order = rng.permutation(len(y))
        total = 0.0
        for b in range(len(y) // args.batch):
            idx = order[b * args.batch:(b + 1) * args.batch]
            batch = augment(x[idx].astype(np.float32) / 255.0, rng)
            texts = [y[i] for i in idx]
            logits = model(torch.from_numpy(batch)[:, None])[:, :, 0, :]  # N, C, T
            logp = logits.log_softmax(1).permute(2, 0, 1)  # T, N, C
            flat, lengths = encode(texts)
            loss = ctc(logp, torch.tensor(flat, dtype=torch.long), torch.full((len(idx),), logp.shape[0], dtype=torch.long),
                       torch.tensor(lengths, dtype=torch.long))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total += float(loss.detach())
        msg = f"epoch {epoch + 1}/{args.epochs}: loss {total / max(1, len(y) // args.batch):.4f}"
        msg += f", held-out fonts {accuracy(model, vx, vy):.1%}"
        if hx is not None:
            msg += f", real held-out {accuracy(model, hx, real['heldout'][1]):.1%}"
        print(f"{msg} ({time.time() - t0:.0f} s)", flush=True)
    export(model, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) in {time.time() - t0:.0f} s", flush=True)


def export(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    model.eval()
    dummy = torch.zeros(1, 1, CROP_H, CROP_W)
    torch.onnx.export(model, dummy, str(path), input_names=["crop"], output_names=["scores"],
                      dynamic_axes={"crop": {0: "n"}, "scores": {0: "n"}}, opset_version=13, dynamo=False)
    net = cv2.dnn.readNetFromONNX(str(path))  # the runtime's reader must give what torch gives
    probe = torch.rand(3, 1, CROP_H, CROP_W)
    net.setInput(probe.numpy())
    with torch.no_grad():
        want = model(probe).numpy()
    got = net.forward()
    if not np.allclose(got, want, atol=1e-3):
        raise SystemExit(f"OpenCV dnn disagrees with torch on the exported model: max diff {np.abs(got - want).max()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=150_000, help="synthetic training crops")
    ap.add_argument("--val", type=int, default=3000, help="synthetic crops in held-out fonts, to measure")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--real", type=Path, help="folder of real pictures with .truth.json (half used to train)")
    ap.add_argument("--real-share", type=float, default=0.05, help="share of training crops that are real")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "labels.onnx")
    ap.add_argument("--preview", type=Path, help="write a sheet of synthetic crops here and stop")
    args = ap.parse_args()
    if args.preview:
        x, y = synthetic(96, args.seed, False, args.jobs)
        rows = [np.concatenate(list(x[i:i + 8]), axis=1) for i in range(0, 96, 8)]
        cv2.imwrite(str(args.preview), 255 - np.concatenate(rows, axis=0))
        print(" ".join(repr(t) for t in y))
        return
    train(args)


if __name__ == "__main__":
    main()
