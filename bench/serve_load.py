"""Load on `kkvision serve`: latency, throughput, errors and memory under 1 and 8 clients.

    .venv/bin/python bench/serve_load.py [--requests 300] [--clients 1 8] [--picture PATH]
                                         [--workers N] [--profile]

Starts the server on a free loopback port (127.0.0.1 only), warms it with a few requests, then
for each client count sends --requests POST /api/solve requests of one picture (by default the
9x9 book photo bench/speed.py times, ../shared/real-dev/dlowe/IMG_0658.JPG, else samples/scan-9x9.jpg) from
that many concurrent keep-alive clients, and prints p50/p95 latency, throughput, errors (any reply
but 200 with every record ok), timeouts, and the server's memory (its process and its workers')
before and after.  Bounded: each request has a --timeout, each run stops after --max-seconds, and
the server is stopped at the end.  "Cores the server got": the CPU seconds its process and workers
used per second of the run (on a shared machine, what the other work left it).  --profile: where one request's time goes in a worker (cProfile of
kkvision.serve.work.run in this process, warm).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)
from speed import book_photo  # noqa: E402  (bench/ is the script's folder on sys.path)

WARM = 5  # requests before measuring: the workers' first pictures (buffers, caches) are not counted
START = 180  # s the server may take to start its workers


def form(picture: bytes, name: str) -> tuple[bytes, dict[str, str]]:
    b = "kkvision-bench-boundary"
    body = (f'--{b}\r\nContent-Disposition: form-data; name="picture"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n").encode() + picture + f"\r\n--{b}--\r\n".encode()
    return body, {"content-type": f"multipart/form-data; boundary={b}", "content-length": str(len(body))}


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes have used so far (/proc/PID/stat)."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def family(pid: int) -> list[int]:
    """The process and all its descendants (/proc/PID/task/*/children): the server and its workers, as
    /api/status shows no process ids (workers may be replaced, so asked each time)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            try:
                todo += [int(c) for c in task.read_text().split()]
            except (OSError, ValueError):
                pass
    return out


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            total += int(re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())[1])
        except (OSError, TypeError):
            pass
    return total / 1024


class Run:
    """`count` requests from `clients` threads, each with its own keep-alive connection."""

    def __init__(self, port: int, body: bytes, headers: dict[str, str], count: int, clients: int,
                 timeout: float, max_seconds: float) -> None:
        self.port, self.body, self.headers, self.timeout = port, body, headers, timeout
        self.left, self.lock = count, threading.Lock()
        self.latencies: list[float] = []
        self.worker_seconds: list[float] = []
        self.errors = self.timeouts = 0
        self.stop_at = time.monotonic() + max_seconds
        t0 = time.perf_counter()
        threads = [threading.Thread(target=self.client) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.seconds = time.perf_counter() - t0

    def take(self) -> bool:
        with self.lock:
            if self.left <= 0 or time.monotonic() > self.stop_at:
                return False
            self.left -= 1
            return True

    def client(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        while self.take():
            t0 = time.perf_counter()
            try:
                conn.request("POST", "/api/solve", self.body, self.headers)
                reply = conn.getresponse()
                data = reply.read()
                took = time.perf_counter() - t0
                records = json.loads(data)["records"] if reply.status == 200 else []
                ok = reply.status == 200 and records and all(r["ok"] for r in records) and json.loads(data)["picture"]
                with self.lock:
                    self.latencies.append(took)
                    self.errors += not ok
                    self.worker_seconds += [r["seconds"] for r in records if r.get("seconds") is not None][:1]
            except TimeoutError:
                with self.lock:
                    self.timeouts += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            except (OSError, http.client.HTTPException, ValueError):
                with self.lock:
                    self.errors += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        conn.close()


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def profile(picture: Path) -> None:
    """Where one warm request's time goes in a worker (this process standing in for one)."""
    import cProfile
    import pstats

    from kkvision.serve.pool import warm_up
    from kkvision.serve.work import Job, run

    warm_up()
    job = Job("solve", picture.read_bytes(), picture.name)
    for _ in range(3):
        run(job)
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        run(job)
        times.append(time.perf_counter() - t0)
    print(f"in-process work.run, warm, median of 10: {statistics.median(times) * 1000:.0f} ms")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(10):
        run(job)
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(35)


@saved("serve_load", unless=("--profile",))
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--picture", type=Path)
    ap.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "real-dev")
    ap.add_argument("--workers", type=int, default=0, help="server workers (default: the number of cores)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per request before it counts as a timeout")
    ap.add_argument("--max-seconds", type=float, default=900.0, help="seconds per run at most")
    ap.add_argument("--profile", action="store_true", help="cProfile one warm request's work instead")
    args = ap.parse_args()
    picture = args.picture or book_photo(args.real)
    if args.profile:
        profile(picture)
        return 0
    data = picture.read_bytes()
    body, headers = form(data, picture.name)
    cmd = [sys.executable, "-m", "kkvision", "serve", "--host", "127.0.0.1", "--port", "0"]
    cmd += ["--workers", str(args.workers)] if args.workers else []
    server = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", server.stderr.readline())
        if not m:
            print("the server did not start", file=sys.stderr)
            return 1
        port = int(m[1])
        threading.Thread(target=server.stderr.read, daemon=True).start()

        def status() -> dict:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/api/status")
            return json.loads(conn.getresponse().read())

        deadline = time.monotonic() + START
        while True:
            try:
                stats = status()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        pids = lambda: family(server.pid)  # noqa: E731  (workers may be replaced)
        Run(port, body, headers, WARM, 1, args.timeout, args.max_seconds)
        cores = os.cpu_count()
        print(f"picture: {picture.relative_to(ROOT.parent) if picture.is_relative_to(ROOT.parent) else picture}"
              f" ({len(data) / 1e6:.1f} MB); {stats['workers']} workers, queue {stats['queue']}; {cores} cores;"
              f" load average at start {os.getloadavg()[0]:.1f}; {WARM} warm-up requests not counted")
        print()
        print("| clients | requests | p50 ms | p95 ms | requests/s | x 1 client | errors | timeouts | in worker p50 ms"
              " | cores the server got | server MB start | server MB end | growth |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        single = None
        for clients in args.clients:
            before, cpu = rss_mb(pids()), cpu_seconds(pids())
            run = Run(port, body, headers, args.requests, clients, args.timeout, args.max_seconds)
            after, cores_got = rss_mb(pids()), (cpu_seconds(pids()) - cpu) / run.seconds
            rate = len(run.latencies) / run.seconds
            single = single or rate
            print(f"| {clients} | {len(run.latencies) + run.timeouts} | {pct(run.latencies, 50) * 1000:.0f}"
                  f" | {pct(run.latencies, 95) * 1000:.0f} | {rate:.2f} | {rate / single:.2f} | {run.errors}"
                  f" | {run.timeouts} | {statistics.median(run.worker_seconds) * 1000:.0f} | {cores_got:.2f}"
                  f" | {before:.0f}"
                  f" | {after:.0f} | {(after - before) / before * 100:+.1f}% |", flush=True)
        print(f"\nserver status at the end: {json.dumps(status())}")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
