"""A trained network written as ONNX for kkvision.vision.nets, checked to run the same in OpenCV's dnn (dev-only)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def onnx(model, path: Path, height: int, width: int, what: str) -> None:  # type: ignore[no-untyped-def]
    """Export `model` (torch, eval mode) for crops of height x width, any batch; raise SystemExit when
    OpenCV's dnn, which runs it for one picture, disagrees with torch."""
    import torch

    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, height, width), str(path), input_names=["crop"],
                      output_names=["scores"], dynamic_axes={"crop": {0: "n"}, "scores": {0: "n"}},
                      opset_version=13, dynamo=False)
    net = cv2.dnn.readNetFromONNX(str(path))
    probe = torch.rand(4, 1, height, width)
    net.setInput(probe.numpy())
    with torch.no_grad():
        want = model(probe).numpy()
    got = net.forward()
    if not np.allclose(got, want, atol=1e-3):
        raise SystemExit(f"OpenCV dnn disagrees with torch on the exported {what}: max diff {np.abs(got - want).max()}")
