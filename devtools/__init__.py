"""Dev-only tools, never installed with the package (pyproject.toml lists only kkvision's packages).

synth.py         synthetic puzzle pictures in many styles, for tests, benchmarks, samples and training
scenes.py        domain-randomised scenes (apps, web pages, print, filled-in, photos, turned, dim) with
                 their truth, for bench/scenes.py (drawing: scene_board.py, furniture and optics: scene_parts.py)
generate.py      the puzzle generator: random puzzles with a known (optionally unique) solution
train_labels.py  trains the cage-label reader, models/labels.onnx
                 (`python -m devtools.train_labels`, from the repository root)
train_digits.py  trains the cell-digit reader, models/digits.onnx
                 (`python -m devtools.train_digits`, from the repository root)

Import them from the repository root (`import devtools.synth`); pytest puts the
root on the path (pythonpath in pyproject.toml), the bench/ and samples/ scripts
put it there themselves.
"""
