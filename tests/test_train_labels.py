"""devtools/train_labels.py's synthetic label crops: a label redrawn as a face that is not
installed (reshape) stays inside the room its cell gives it, and really changes its shape."""

import random
from importlib import resources

import numpy as np
import pytest
from PIL import Image, ImageDraw

from devtools.synth import find_font
from devtools.train_labels import draw_runs, reshape


def drawn(text: str = "48+", size: int = 60) -> np.ndarray:
    font = find_font("DejaVuSans.ttf")
    if font is None:
        pytest.skip("DejaVu Sans missing (run scripts/setup.sh)")
    layer = Image.new("L", (300, 200), 0)
    draw_runs(ImageDraw.Draw(layer), [(text, font, size)], 20, 30, 200, 120, 255, 0.0)  # type: ignore[arg-type]
    return np.asarray(layer)


def ink_box(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask > 127)
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


@pytest.mark.parametrize("seed", range(40))
def test_a_reshaped_label_stays_in_its_room(seed):
    mask = drawn()
    x0, y0, x1, y1 = ink_box(mask)
    out = reshape(mask, random.Random(seed), (20, 30), (200, 120), cap=float(y1 - y0))
    ox0, oy0, ox1, oy1 = ink_box(out)
    assert ox0 >= 20 - 2 and ox1 <= 20 + 200 + 2, (ox0, ox1)  # within the room across (a pixel or two of weight)
    assert abs(oy0 - y0) <= 8 and abs(oy1 - y1) <= 8  # the label keeps its line: same top and foot, but weight


def test_reshaping_changes_width_slant_and_weight():
    mask = drawn()
    x0, y0, x1, y1 = ink_box(mask)
    widths, inks = set(), set()
    for seed in range(30):
        out = reshape(mask, random.Random(seed), (20, 30), (200, 120), cap=float(y1 - y0))
        ox0, _, ox1, _ = ink_box(out)
        widths.add(round((ox1 - ox0) / (x1 - x0), 1))
        inks.add(round(float((out > 127).sum()) / float((mask > 127).sum()), 1))
    assert min(widths) <= 0.85 and max(widths) >= 1.15  # condensed and extended (or slanted) faces
    assert min(inks) <= 0.8 and max(inks) >= 1.2  # lighter and heavier faces


@pytest.mark.parametrize("kind", ["dense", "separable"])
def test_each_network_gives_the_readers_shape_and_opencv_runs_it_as_torch_does(kind, tmp_path):
    """Both kinds of label network map a crop to 15 class scores for each of 22 columns, and their
    ONNX export runs in OpenCV's dnn (grouped convolutions included) with torch's numbers."""
    torch = pytest.importorskip("torch")
    from devtools.train_labels import export, network
    from kkvision.vision.labels import ALPHABET, CROP_H, CROP_W

    torch.manual_seed(0)
    model = network(kind)
    assert model(torch.zeros(2, 1, CROP_H, CROP_W)).shape == (2, len(ALPHABET) + 1, 1, CROP_W // 4)
    export(model, tmp_path / "net.onnx")  # raises SystemExit when OpenCV's numbers differ from torch's
    assert (tmp_path / "net.onnx").stat().st_size < 1_000_000


def test_an_unknown_network_is_refused():
    pytest.importorskip("torch")
    from devtools.train_labels import network

    with pytest.raises(ValueError, match="separable"):
        network("resnet")


def test_the_teacher_runs_the_shipped_model_as_kkvision_does():
    """--teacher's scores are the reader's own: the shipped label model's through OpenCV, and its best
    text of a crop is what kkvision's label stage decodes from them."""
    from devtools.train_labels import Teacher
    from kkvision.vision import labels, nets

    rng = np.random.default_rng(0)
    crops = (rng.random((3, labels.CROP_H, labels.CROP_W)) < 0.05).astype(np.uint8) * 255
    with resources.as_file(resources.files("kkvision.models").joinpath(labels.MODEL)) as path:
        teacher = Teacher(path)
    want = nets.scores(labels.MODEL, list(crops.astype(np.float32) / 255.0))
    got = teacher.scores(crops.astype(np.float32) / 255.0)
    assert got.shape == (3, len(labels.ALPHABET) + 1, labels.CROP_W // 4)
    assert np.allclose(got, want.reshape(got.shape), atol=1e-5)
    assert teacher.reads(crops) == [labels.decode(p, keep=1)[0][0] for p in labels.probabilities(
        list(crops.astype(np.float32) / 255.0))]


def test_a_cleaned_answer_leaves_the_label_and_lines_it_crossed():
    """--cleaned: the answer's ink is taken out as the content stage takes it out (grown, painted over by contents.fill),
    but where it crossed the label or a line, their ink stays (the content stage keeps it too)."""
    from devtools.train_labels import _cleaned

    before = np.full((100, 100, 3), 240, np.uint8)
    before[:, 48:52] = 20  # a cell line
    before[10:20, 10:30] = 30  # a label's bar
    hand = np.zeros((100, 100), np.uint8)
    hand[15:90, 20:24] = 255  # an answer's stroke through the label's bar, down the cell
    hand[60:64, 20:80] = 255  # and across the line
    after = before.copy()
    after[hand > 0] = 60
    out = _cleaned(before, after, hand, 100.0, 240, (50.0, 0.0))  # the cell's top left: the line at 50 is its left
    assert out[70:90, 20:24].mean() > 200  # the stroke below the label is gone: paper again
    assert out[60:64, 30:45].mean() > 200
    assert out[10:20, 10:19].mean() < 60 and out[15:20, 20:24].mean() < 100  # the label stays, where crossed too
    assert out[61:63, 48:52].mean() < 100  # the line runs on where the stroke crossed it
    light = before.copy()
    light[hand > 0] = 150  # a light pen: where it crossed the label, its pixel is the pen's
    kept = _cleaned(before, light, hand, 100.0, 240, (50.0, 0.0))
    crossed = _cleaned(before, light, hand, 100.0, 240, (50.0, 0.0), crossed=True)
    assert kept[15:17, 20:24].min() >= 140  # kept: the crossing's pixels are left as they were...
    assert crossed[15:17, 20:24].max() < 110  # crossed: painted over too (from the label round them)
    assert crossed[70:90, 20:24].mean() > 200  # the stroke is gone either way
    assert crossed[10:20, 10:17].mean() < 60  # the rest of the label stays
    assert crossed[61:63, 48:52].mean() < 100  # and the line still runs on (fill paints along it)
