"""Every default is named once, in kkvision/defaults.py: the command line, the server, the library
and the stages take those values, and the help states them."""

import inspect

from kkvision import api, defaults, solver
from kkvision.cli import _parser
from kkvision.pipeline import Options
from kkvision.serve.config import ServeConfig
from kkvision.serve.work import Job


def test_every_front_door_takes_the_same_defaults():
    for command in ("solve", "check", "hint"):
        args = _parser().parse_args([command, "x.png"])
        assert (args.max_pixels, args.time_limit, args.dpi) == (defaults.MAX_PIXELS, defaults.TIME_LIMIT, defaults.DPI)
    assert _parser().parse_args(["hint", "x.png"]).cells == defaults.HINT_CELLS
    serve = _parser().parse_args(["serve"])
    config = ServeConfig()
    assert (serve.host, serve.port, serve.max_pixels, serve.time_limit) == (
        config.host, config.port, config.max_pixels, config.time_limit) == (
        defaults.HOST, defaults.PORT, defaults.MAX_PIXELS, defaults.TIME_LIMIT)
    assert config.max_upload == defaults.MAX_UPLOAD and config.queue_size == defaults.QUEUE_PER_WORKER * config.worker_count
    job = Job("hint", b"", "x")
    assert (job.time_limit, job.max_pixels, job.cells) == (defaults.TIME_LIMIT, defaults.MAX_PIXELS, defaults.HINT_CELLS)
    assert (Options().time_limit, Options().max_pixels) == (defaults.TIME_LIMIT, defaults.MAX_PIXELS)
    assert inspect.signature(solver.solve).parameters["time_limit"].default == defaults.TIME_LIMIT
    for function in (api.solve_image, api.solve_puzzles):
        parameters = inspect.signature(function).parameters
        assert (parameters["time_limit"].default, parameters["max_pixels"].default) == (
            defaults.TIME_LIMIT, defaults.MAX_PIXELS)
