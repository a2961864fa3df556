"""A trained network written as ONNX for kkvision.vision.nets, checked to run the same in OpenCV's dnn (dev-only).

    .venv/bin/python -m devtools.export features MODEL.onnx   # give a shipped model its 'features' output

A model may carry a second output, 'features': what its last layer reads (the scores are that layer's
output), for a reader that compares crops with each other rather than with its classes
(models/answers.onnx: answers.in_one_hand compares a page's answers with its hand's).  with_features
adds it to an exported file without touching its weights, so a model trained before it gains it as is.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

FEATURES = "features"


def onnx(model, path: Path, height: int, width: int, what: str, features: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Export `model` (torch, eval mode) for crops of height x width, any batch (and, with `features`,
    its 'features' output: with_features); raise SystemExit when OpenCV's dnn, which runs it for one
    picture, disagrees with torch."""
    import torch

    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, height, width), str(path), input_names=["crop"],
                      output_names=["scores"], dynamic_axes={"crop": {0: "n"}, "scores": {0: "n"}},
                      opset_version=13, dynamo=False)
    if features:
        with_features(path)
    net = cv2.dnn.readNetFromONNX(str(path))
    probe = torch.rand(4, 1, height, width)
    net.setInput(probe.numpy())
    with torch.no_grad():
        want = model(probe).numpy()
    got = net.forward()
    if not np.allclose(got, want, atol=1e-3):
        raise SystemExit(f"OpenCV dnn disagrees with torch on the exported {what}: max diff {np.abs(got - want).max()}")


def with_features(path: Path) -> None:
    """Give the ONNX model at `path` a second output, FEATURES: the input of its last fully connected
    layer (Gemm), (n, width); its scores and weights as they were.  Checked to run in OpenCV's dnn and
    onnxruntime alike."""
    import onnx as onnx_lib

    model = onnx_lib.load(str(path))
    graph = model.graph
    if any(out.name == FEATURES for out in graph.output):
        return
    head = [node for node in graph.node if node.op_type == "Gemm"][-1]
    weights = {init.name: init for init in graph.initializer}[head.input[1]]
    width = weights.dims[1] if any(a.name == "transB" and a.i == 1 for a in head.attribute) else weights.dims[0]
    graph.node.append(onnx_lib.helper.make_node("Identity", [head.input[0]], [FEATURES]))
    graph.output.append(onnx_lib.helper.make_tensor_value_info(FEATURES, onnx_lib.TensorProto.FLOAT, ["n", width]))
    onnx_lib.checker.check_model(model)
    onnx_lib.save(model, str(path))
    net = cv2.dnn.readNetFromONNX(str(path))
    shape = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim[1:]]
    probe = np.random.default_rng(0).random((3, *shape)).astype(np.float32)
    net.setInput(probe)
    got = net.forward(FEATURES)
    if got.shape != (3, width):
        raise SystemExit(f"OpenCV dnn gives {path}'s features as {got.shape}, not (3, {width})")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "features":
        raise SystemExit("usage: python -m devtools.export features MODEL.onnx")
    with_features(Path(sys.argv[2]))
    print(f"{sys.argv[2]}: output '{FEATURES}' added")
