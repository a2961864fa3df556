"""Shipped models, installed as the package `kkvision.models` (see pyproject.toml).

labels.onnx  the cage-label reader, made by train_labels.py (kkvision.vision.labels runs it)
glyphs.npz   the older nearest-neighbour glyph model, made by train_glyphs.py
"""
