"""End-to-end speed and memory of the command line, as a user meets them.

    .venv/bin/python bench/speed.py [--runs 5] [--real ../shared/real-dev] [--skip-batch]

Per picture: `kkvision solve PICTURE` run as its own process (interpreter start,
imports, reading, solving, the answer picture written beside a copy of the
input in its format), the median wall time of --runs runs, its ratio to
`kkvision --version` timed the same way in the same run, and the process's peak
resident memory (from the kernel's accounting of the finished child).  Python's
cache of compiled modules is on, as on a user's machine (one warm-up run fills it):
  6x6 photo         samples/photo-6x6.jpg
  9x9 book photo    BOOK_PHOTO of --real, else samples/scan-9x9.jpg
  3.5 MP screenshot an app screenshot scene (devtools/scenes.py, 1242x2688 PNG)
  20 MP photo       samples/photo-6x6.jpg enlarged to 20 million pixels, JPEG
Batch: `kkvision solve FOLDER --output-dir OUT` over every picture of --real with
--jobs 1 and --jobs 2 (answer pictures written), and --jobs 2 --no-image, in
pictures per second; the peak resident memory of its largest process (the
kernel reports the most of the parent and every worker it waited for).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KK = [sys.executable, "-m", "kkvision"]
# The 9x9 book photo timed since the first round (and by serve_load.py): named, not "the first 9x9 that
# solves", since IMG_0656 before it is now answered too, after its labels are read by both models and
# weighed at length (~2.8 s): an outlier, in the batch with the rest, not the typical book photo.
BOOK_PHOTO = "dlowe/IMG_0658.JPG"
# as a user's machine runs it: Python caches compiled modules (a sandbox may turn that off)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
PICTURES = (".png", ".jpg", ".jpeg")


def timed(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """One whole process: (wall seconds, peak resident MB of it or its largest child, exit code)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024, proc.returncode  # ru_maxrss is in KB on Linux


def median_run(args: list[str], cwd: Path, runs: int, before: list[Path] | None = None) -> tuple[float, float, int]:
    times, peaks, code = [], [], 0
    for _ in range(runs):
        for path in before or ():  # the answer picture of the last run taken away: each run writes one
            path.unlink(missing_ok=True)
        seconds, peak, code = timed(args, cwd)
        times.append(seconds)
        peaks.append(peak)
    return statistics.median(times), max(peaks), code


def book_photo(real: Path | None) -> Path:
    """The 9x9 book photo every round has been timed on (BOOK_PHOTO), else the 9x9 scan sample."""
    return real / BOOK_PHOTO if real and (real / BOOK_PHOTO).is_file() else ROOT / "samples" / "scan-9x9.jpg"


def pictures(work: Path, real: Path | None) -> list[tuple[str, Path]]:
    import cv2

    from devtools.scenes import scene

    out = [("6x6 photo", ROOT / "samples" / "photo-6x6.jpg")]
    out.append(("9x9 book photo", book_photo(real)))
    sc = scene("app", 0, theme="classic-light", device="phone", ads=False)
    shot = work / "screenshot.png"
    shot.write_bytes(sc.data)
    out.append((f"{sc.image.shape[1] * sc.image.shape[0] / 1e6:.1f} MP screenshot", shot))
    small = cv2.imread(str(ROOT / "samples" / "photo-6x6.jpg"))
    k = (20e6 / (small.shape[0] * small.shape[1])) ** 0.5  # 20 million pixels, the photo's own shape
    big = cv2.resize(small, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    photo = work / "photo-20mp.jpg"
    cv2.imwrite(str(photo), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    out.append(("20 MP photo", photo))
    return out


@saved("speed")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "real-dev")
    ap.add_argument("--skip-batch", action="store_true")
    args = ap.parse_args()
    real = args.real if args.real.is_dir() else None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        timed([*KK, "solve", "--no-image", str(ROOT / "samples" / "photo-6x6.jpg")], ROOT)  # compiled modules cached
        version, version_mb, _ = median_run([*KK, "--version"], ROOT, args.runs)
        print(f"{args.runs} runs each, median; {os.cpu_count()} cores; `kkvision --version`: {version:.2f} s,"
              f" {version_mb:.0f} MB\n")
        print("| picture | pixels | exit | s (median) | x --version | peak MB |")
        print("|---|---|---|---|---|---|")
        for name, src in pictures(work, real):
            import cv2

            copy = work / f"in-{src.name}"
            shutil.copy(src, copy)
            h, w = cv2.imread(str(copy), cv2.IMREAD_REDUCED_GRAYSCALE_2).shape[:2]
            ext = ".jpg" if copy.suffix.lower() in (".jpg", ".jpeg") else ".png"
            answer = work / f"{copy.stem}.solved{ext}"
            seconds, peak, code = median_run([*KK, "solve", str(copy)], work, args.runs, [answer])
            print(f"| {name} | {2 * w}x{2 * h} | {code} | {seconds:.2f} | {seconds / version:.1f} | {peak:.0f} |",
                  flush=True)
        if args.skip_batch or real is None:
            return
        files = [p for p in sorted(real.rglob("*")) if p.suffix.lower() in PICTURES]
        folder = work / "batch"
        folder.mkdir()
        for i, p in enumerate(files):
            shutil.copy(p, folder / f"{i:03d}-{p.name}")
        print(f"\n| batch of {len(files)} real-dev pictures | pictures/s | s | peak MB (largest process) |")
        print("|---|---|---|---|")
        for jobs, extra in ((1, []), (2, []), (2, ["--no-image"])):
            out = work / f"out-{jobs}-{len(extra)}"
            cmd = [*KK, "solve", str(folder), "--jobs", str(jobs), "-q", *(extra or ["--output-dir", str(out)])]
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
            _, _, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - t0
            what = f"--jobs {jobs}" + (" --no-image" if extra else ", answer pictures written")
            print(f"| {what} | {len(files) / seconds:.1f} | {seconds:.1f} | {usage.ru_maxrss / 1024:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
