"""Shipped models, installed as the package `kkvision.models` (see pyproject.toml).

labels.onnx  the cage-label reader, made by train_labels.py (kkvision.vision.labels runs it);
             README.md here says what data it saw
digits.onnx  the cell-digit reader for `check` without an answers file, made by train_digits.py
"""
