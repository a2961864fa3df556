"""Everything `kkvision serve` bounds, in one frozen object (no web imports here:
the command line builds it before anything heavy is loaded)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..defaults import HOST, MAX_PIXELS, MAX_TIME_LIMIT, MAX_UPLOAD, PORT, QUEUE_PER_WORKER, TIME_LIMIT
from ..errors import UsageError

MAX_WORKERS = 64  # --workers beyond this is surely a typo (each worker holds ~200 MB)
MAX_QUEUE = 1000
SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)b?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ServeConfig:
    host: str = HOST
    port: int = PORT  # 0: any free port (said on stderr)
    workers: int = 0  # worker processes; 0: one per core
    queue: int = -1  # requests waiting beyond those being solved; -1: QUEUE_PER_WORKER per worker
    max_upload: int = MAX_UPLOAD  # bytes
    max_pixels: int = MAX_PIXELS
    time_limit: float = TIME_LIMIT  # seconds one request may take in its worker

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise UsageError(f"--port must be 0..65535, not {self.port}")
        if not 0 <= self.workers <= MAX_WORKERS:
            raise UsageError(f"--workers must be 1..{MAX_WORKERS} (0: one per core), not {self.workers}")
        if not -1 <= self.queue <= MAX_QUEUE:
            raise UsageError(f"--queue must be 0..{MAX_QUEUE}, not {self.queue}")
        if self.max_upload < 1000:
            raise UsageError(f"--max-upload must be at least 1000 bytes (1KB), not {self.max_upload}")
        if self.max_pixels <= 0:
            raise UsageError("--max-pixels must be a positive number of pixels")
        if not 0 < self.time_limit <= MAX_TIME_LIMIT:  # also refuses nan
            raise UsageError(f"--time-limit must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds,"
                             f" not {self.time_limit:g}")

    @property
    def worker_count(self) -> int:
        return self.workers or cores()

    @property
    def queue_size(self) -> int:
        return QUEUE_PER_WORKER * self.worker_count if self.queue < 0 else self.queue


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def parse_size(text: str) -> int:
    """'20MB', '20M', '500k', '1000000' -> bytes (decimal units, as disks count)."""
    m = SIZE.match(text)
    if not m:
        raise UsageError(f"--max-upload {text!r}: write a size such as 20MB, 500KB or 1000000")
    return int(float(m[1]) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m[2].lower()])
