"""The model files a benchmark scores in place of the shipped ones (e.g. one just trained): the
command-line options that name them and the swap, once for every bench script, so that the main
process and a process pool's workers swap in the same files the same way.

    from _models import add_model_options, chosen, use_models

    add_model_options(ap, "PATH", label="read labels with this model file")  # --label-model PATH
    args = ap.parse_args()
    use_models(chosen(args))                                     # in this process
    ProcessPoolExecutor(jobs, initializer=use_models,            # in each worker, on one OpenCV thread
                        initargs=(chosen(args), True))

Glossary:
  kind    which model an option names: digit, label, second_label, contents or answer (MODELS), the
          option being --KIND-model (--second-label-model)
  models  a bench's model options as parsed, by kind: a path, or None for the shipped model
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from kkvision.vision import contents, digits, framed, labels, nets

# kind: the shipped model its option replaces (nets.use_model's name), in the order the options are added
MODELS = {"digit": digits.MODEL, "label": labels.MODEL, "second_label": labels.SECOND_MODEL,
          "contents": contents.MODEL, "answer": framed.MODEL}
Models = dict[str, Path | None]  # kind: the path given (None: the shipped model)


def add_model_options(ap: argparse.ArgumentParser, metavar: str | None = None, **helps: str | None) -> None:
    """--KIND-model for each kind named (`label="its help"`; None: no help text), in MODELS' order:
    a bench takes only the models it reads, each option with the help it has always had."""
    unknown = sorted(set(helps) - set(MODELS))
    if unknown:
        raise ValueError(f"no model option for {', '.join(unknown)} (kinds: {', '.join(MODELS)})")
    for kind in MODELS:
        if kind in helps:
            ap.add_argument(f"--{kind.replace('_', '-')}-model", type=Path, metavar=metavar, help=helps[kind])


def chosen(args: argparse.Namespace, ap: argparse.ArgumentParser | None = None) -> Models:
    """The model paths parsed, by kind, for the model options this bench has; with its parser, a path
    that is no file is a usage error now (before any work), not a worker's failure later."""
    models = {kind: getattr(args, f"{kind}_model") for kind in MODELS if hasattr(args, f"{kind}_model")}
    for path in models.values():
        if ap is not None and path is not None and not path.is_file():
            ap.error(f"no model file {path}")
    return models


def use_models(models: Models, one_thread: bool = False) -> None:
    """Later reads in this process run the model files given in place of the shipped ones (None: the
    shipped one, left as it is).  Also a process pool's initializer (its arguments pickle), each worker
    then swapping what the main process did; one_thread sets OpenCV to one thread first, as a bench
    whose workers share the cores asks."""
    if one_thread:
        cv2.setNumThreads(1)
    for kind, path in models.items():
        if path is not None:
            nets.use_model(MODELS[kind], path)
