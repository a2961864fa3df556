"""Shipped models, installed as the package `kkvision.models` (see pyproject.toml): the model
files and README.md only, no code but this file.

labels.onnx  the cage-label reader, made by devtools/train_labels.py (kkvision.vision.labels runs it);
             README.md here says what data it saw
digits.onnx  the cell-digit reader for `check` without an answers file, made by devtools/train_digits.py

The training scripts are dev-only (devtools/, never installed); run them from the repository root
(`python -m devtools.train_labels`, `python -m devtools.train_digits`) and they write their model here.
"""
