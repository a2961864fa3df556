"""The worker processes that read and solve, behind a bounded queue.

Each worker is a process started clean ('spawn': no copy of the server's
threads), warmed once (imports, the label model, OR-Tools) so that a request
pays only its own work, then answers jobs one at a time over a pipe.  The
event loop never blocks: a job is handed to its worker, and waited for, in a
thread of this module's own.

Bounded by construction: at most `workers` jobs run and `queue` wait; one
more is refused at once (Busy: the server answers 503 with Retry-After).  A
job that overruns its deadline has its worker killed and replaced, and gets
the command line's exit-12 record; a worker that dies (killed for memory)
is replaced too.  A request whose client hangs up while it waits is dropped
from the queue; one already running finishes (bounded by the deadline) and
its worker goes back to work: none is left stuck.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection
from typing import Any

from ..errors import KkvisionError, SolverTimeout
from .config import cores as available_cores
from .work import Answer, Job, failure

log = logging.getLogger("kkvision")
START_TIMEOUT = 120.0  # s a fresh worker may take to import and warm up (a cold disk, a busy machine)
STOP_GRACE = 2.0  # s a worker gets to end on SIGTERM before it is killed
WARM_PUZZLE = "# 3\n+ 3 A1 B1\n+ 5 A2 B2\n! 1 A3\n+ 5 B3 C3\n+ 4 C1 C2\n"  # samples/names-3x3.txt
OPENCV_THREADS = 1  # a worker's OpenCV threads at start; each job then gets the cores no other job is running on
SMOOTHING = 0.2  # weight of the latest job in the running mean of job seconds (Retry-After's estimate)


class Busy(Exception):
    """Every worker is busy and the queue is full."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"busy: try again in {retry_after} s")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Stats:
    workers: int
    queue: int
    running: int
    waiting: int
    served: int
    replaced: int  # workers killed (overran the deadline) or found dead, and started anew
    pids: tuple[int, ...]  # the workers' process ids: for this machine's own tools, never shown to clients

    def public(self) -> dict[str, int]:
        """What GET /api/status shows anyone: the counts, without the workers' process ids."""
        return {key: value for key, value in asdict(self).items() if key != "pids"}


def _worker_main(conn: Connection) -> None:
    """A worker process: warm up, say ready, then answer jobs until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle; it ends the workers
    import cv2

    from . import work

    warm_up()
    conn.send("ready")
    while True:
        try:
            job, threads = conn.recv()
        except (EOFError, OSError):
            return
        if threads != cv2.getNumThreads():
            cv2.setNumThreads(threads)  # the network's forward pass and the warps spread over the idle cores
        try:
            answer = work.run(job)
        except Exception as exc:  # a bug: one request fails, the worker goes on
            log.exception("internal error")
            answer = failure(job.command, job.name, KkvisionError(f"internal error: {type(exc).__name__}: {exc}"))
        try:
            conn.send(answer)
        except (BrokenPipeError, OSError):
            return


def warm_up() -> None:
    """What every request would otherwise pay once: the vision's and the solver's imports, the models loaded."""
    import cv2
    import numpy as np

    cv2.setNumThreads(OPENCV_THREADS)

    from .. import render  # noqa: F401  (OpenCV, Pillow, the fonts' module)
    from ..pipeline import Options, solve_text
    from ..vision import contents, framed, labels, nets, read  # noqa: F401  (read: the vision's modules)
    from ..vision.digits import SIDE, read_digits

    solve_text(WARM_PUZZLE, Options(fmt="names"))  # OR-Tools imported
    nets.use_runtime()  # a worker runs the networks for every request: onnxruntime's quicker passes (nets.py)
    for threads in sorted({OPENCV_THREADS, available_cores()}):  # a job runs on one core or on all of them
        cv2.setNumThreads(threads)  # onnxruntime's sessions are made for a thread count (nets.py)
        # each model loaded and run once on a whole batch: the runtime's memory is then what a request needs
        read_digits([np.zeros((SIDE, SIDE), np.float32)] * nets.BATCH)
        contents.ink_probability([np.zeros((contents.SIDE, contents.SIDE), np.float32)] * nets.BATCH)
        framed.read_framed([np.zeros((framed.FRAME, framed.FRAME), np.float32)] * nets.BATCH)  # check's
        nets.scores(labels.MODEL, [np.zeros((labels.CROP_H, labels.CROP_W), np.float32)] * nets.BATCH)
    cv2.setNumThreads(OPENCV_THREADS)


class _Worker:
    """One worker process and its pipe; used by one thread at a time."""

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx
        self._start()

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self.process = self._ctx.Process(target=_worker_main, args=(child,), daemon=True, name="kkvision-worker")
        self.process.start()
        child.close()
        self.conn: Connection = parent
        try:
            ready = parent.poll(START_TIMEOUT) and parent.recv() == "ready"
        except (EOFError, OSError):  # it died while starting
            ready = False
        if not ready:
            self.stop()
            raise RuntimeError("a kkvision worker did not start (run kkvision solve on a picture to see why)")

    def call(self, job: Job, deadline: float, threads: int = OPENCV_THREADS) -> tuple[Answer, bool]:
        """The job's answer (its OpenCV work on `threads` threads), and whether the worker had to be
        replaced (overran, or died)."""
        try:
            self.conn.send((job, threads))
            if self.conn.poll(deadline):
                return self.conn.recv(), False
            answer = failure(job.command, job.name, SolverTimeout(
                f"no answer within the time limit ({deadline:g} s); try a sharper or closer picture"), deadline)
        except (EOFError, OSError):  # the worker died (killed for memory?): this job fails, a new one starts
            answer = failure(job.command, job.name, KkvisionError("internal error: the worker stopped"))
        self.stop()
        self._start()
        return answer, True

    def stop(self) -> None:
        self.conn.close()
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(STOP_GRACE)
            if self.process.is_alive():
                self.process.kill()
        self.process.join(STOP_GRACE)


class WorkerPool:
    """`workers` warm processes and at most `queue` jobs waiting for them.  A job runs its OpenCV
    work on the `cores` that no other job is running on (one client: the network's forward pass on
    every core; as many jobs as cores: one each, as a worker per core already fills them)."""

    def __init__(self, workers: int, queue: int, cores: int | None = None) -> None:
        self.workers, self.queue = workers, queue
        self.cores = cores or available_cores()
        self._ctx = multiprocessing.get_context("spawn")
        self._idle: asyncio.Queue[_Worker] | None = None
        self._all: list[_Worker] = []
        self._threads = ThreadPoolExecutor(workers, thread_name_prefix="kkvision-pool")
        self.running = self.waiting = self.served = self.replaced = 0
        self._mean = 1.0  # s per job, running mean

    async def start(self) -> None:
        """Every worker started and warmed (in parallel, off the event loop)."""
        loop = asyncio.get_running_loop()
        self._idle = asyncio.Queue()
        started = await asyncio.gather(*(loop.run_in_executor(self._threads, _Worker, self._ctx)
                                         for _ in range(self.workers)))
        for worker in started:
            self._all.append(worker)
            self._idle.put_nowait(worker)

    def stats(self) -> Stats:
        return Stats(self.workers, self.queue, self.running, self.waiting, self.served, self.replaced,
                     tuple(w.process.pid or 0 for w in self._all))

    async def run(self, job: Job, deadline: float) -> Answer:
        """The job's answer from the next free worker; Busy when the queue is full."""
        if self._idle is None:
            raise RuntimeError("the pool is not started")
        if self.running + self.waiting >= self.workers + self.queue:
            raise Busy(max(1, math.ceil(self._mean * (self.waiting + 1) / self.workers)))
        self.waiting += 1
        try:
            worker = await self._idle.get()  # cancelled here (the client left): nothing was taken
        finally:
            self.waiting -= 1
        self.running += 1
        threads = max(1, self.cores // self.running)  # the cores the other running jobs leave this one
        t0 = time.perf_counter()
        future = asyncio.get_running_loop().run_in_executor(self._threads, worker.call, job, deadline, threads)

        def done(f: asyncio.Future[tuple[Answer, bool]]) -> None:
            """The worker back to work when its job ends, whether or not anyone still waits for it."""
            self.running -= 1
            self.served += 1
            self.replaced += bool(not f.cancelled() and f.exception() is None and f.result()[1])
            self._mean += SMOOTHING * (time.perf_counter() - t0 - self._mean)
            assert self._idle is not None
            self._idle.put_nowait(worker)

        future.add_done_callback(done)
        answer, _ = await asyncio.shield(future)  # a client that leaves does not stop the worker mid-job
        return answer

    def close(self) -> None:
        """Every worker ended."""
        for worker in self._all:
            worker.stop()
        self._all.clear()
        self._threads.shutdown(wait=False, cancel_futures=True)
