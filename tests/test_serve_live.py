"""`kkvision serve` as a user runs it (a process, uvicorn, a loopback port), driven over raw
sockets where a client misbehaves: a 300 MB upload refused within a second without the server's
memory growing, clients that hang up mid-upload or mid-solve leave no worker stuck and no file
behind, and a full queue answers 503 with Retry-After."""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "samples" / "photo-6x6.jpg"
START = 120  # s the server may take to start and warm its workers on a busy machine


class Server:
    """A `kkvision serve` process on a free loopback port."""

    def __init__(self, tmp: Path, *args: str) -> None:
        self.tmp = tmp
        env = {**os.environ, "TMPDIR": str(tmp)}  # any temporary file it made would show here
        self.proc = subprocess.Popen([sys.executable, "-m", "kkvision", "serve", "--port", "0", *args],
                                     cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line + self.proc.stderr.read()
        self.port = int(m[1])
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # never let its pipe fill
        deadline = time.monotonic() + START
        while time.monotonic() < deadline:
            try:
                self.status()
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError("the server did not start")

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
                timeout: float = 60) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request(method, path, body, headers or {})
        return conn.getresponse()

    def status(self) -> dict:
        return json.loads(self.request("GET", "/api/status", timeout=5).read())

    def rss_mb(self) -> float:
        """The server process's resident memory (its workers are processes of their own)."""
        text = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", text)[1]) / 1024

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def form(picture: bytes, name: str = "photo.jpg", **fields: str) -> tuple[bytes, dict]:
    """A multipart body with the picture and fields, and its headers."""
    b = "kkvision-test-boundary"
    parts = [f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()]
    parts.append(f'--{b}\r\nContent-Disposition: form-data; name="picture"; filename="{name}"\r\n'
                 "Content-Type: image/jpeg\r\n\r\n".encode() + picture + b"\r\n")
    body = b"".join(parts) + f"--{b}--\r\n".encode()
    return body, {"content-type": f"multipart/form-data; boundary={b}", "content-length": str(len(body))}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("serve-tmp"), "--workers", "1", "--queue", "1")
    yield s
    s.stop()
    assert s.proc.returncode == 130, s.proc.returncode  # interrupted, as any command on Ctrl-C


@pytest.fixture(scope="module")
def slow_photo() -> bytes:
    """The photo sample at 3x (18 MP, a few MB): a job long enough to catch others waiting behind it."""
    image = cv2.imread(str(PHOTO))
    big = cv2.resize(image, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)
    return cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def wait_for(check, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def stream(port: int, head: bytes, chunks, seconds: float = 30) -> tuple[str, float]:
    """Send the head and then the chunks (while the server lets us), read the status line:
    it and the seconds it took."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
    t0 = time.perf_counter()
    sock.sendall(head)

    def send() -> None:
        try:
            for chunk in chunks:
                sock.sendall(chunk)
        except OSError:  # the server answered and closed: it reads no more
            pass

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    data = b""
    while b"\r\n" not in data:
        got = sock.recv(4096)
        if not got:
            break
        data += got
    took = time.perf_counter() - t0
    sock.close()
    sender.join(10)
    return data.split(b"\r\n")[0].decode(), took


def test_300_mb_upload_gets_413_within_a_second_without_memory_growing(server):
    before = server.rss_mb()
    mb = b"\0" * 1_000_000
    head = (b"POST /api/solve HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            b"Content-Length: 300000000\r\n\r\n")
    line, took = stream(server.port, head, (mb for _ in range(300)))  # at once: the length says it all
    assert line.startswith("HTTP/1.1 413") and took < 1.0, (line, took)
    # the same without a Content-Length (chunked): counted as it streams, refused past 20 MB
    head = (b"POST /api/solve HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    start = b'--b\r\nContent-Disposition: form-data; name="picture"; filename="x.jpg"\r\n\r\n'
    chunks = [b"%x\r\n%s\r\n" % (len(start), start)] + [b"f4240\r\n" + mb + b"\r\n"] * 300
    line, took = stream(server.port, head, iter(chunks))
    assert line.startswith("HTTP/1.1 413") and took < 1.0, (line, took)
    assert server.rss_mb() - before < 25, (before, server.rss_mb())  # never the 300 MB, nor the 20 read
    assert list(server.tmp.iterdir()) == []
    assert server.request("GET", "/").status == 200


def test_clients_that_hang_up_leave_no_worker_stuck_and_no_file(server, slow_photo):
    served = server.status()["served"]
    body, headers = form(PHOTO.read_bytes())
    # mid-upload: half the body, then gone
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(f"POST /api/solve HTTP/1.1\r\nHost: x\r\nContent-Type: {headers['content-type']}\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body[: len(body) // 2])
    time.sleep(0.2)
    sock.close()
    # mid-solve: the whole request, then gone before the answer
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(f"POST /api/solve HTTP/1.1\r\nHost: x\r\nContent-Type: {headers['content-type']}\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    wait_for(lambda: server.status()["running"] == 1)
    sock.close()
    wait_for(lambda: server.status()["running"] == 0)
    stats = server.status()
    assert stats["served"] == served + 1 and stats["waiting"] == 0 and stats["replaced"] == 0
    # waiting in the queue: dropped when its client leaves, never run
    slow_body, slow_headers = form(slow_photo)
    result: dict = {}
    first = threading.Thread(target=lambda: result.update(
        r=server.request("POST", "/api/solve", slow_body, slow_headers).read()))
    first.start()
    wait_for(lambda: server.status()["running"] == 1)
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(f"POST /api/solve HTTP/1.1\r\nHost: x\r\nContent-Type: {headers['content-type']}\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    wait_for(lambda: server.status()["waiting"] == 1, 10)
    sock.close()
    wait_for(lambda: server.status()["waiting"] == 0, 10)
    first.join(60)
    assert json.loads(result["r"])["records"][0]["ok"]
    wait_for(lambda: server.status()["running"] == 0)
    assert server.status()["served"] == served + 2  # the one that left the queue never ran
    assert list(server.tmp.iterdir()) == []
    r = server.request("POST", "/api/solve", body, headers)
    assert r.status == 200 and json.loads(r.read())["records"][0]["ok"]


def test_a_full_queue_gets_503_with_retry_after(server, slow_photo):
    slow_body, slow_headers = form(slow_photo)
    threads = [threading.Thread(target=lambda: server.request("POST", "/api/solve", slow_body, slow_headers).read())
               for _ in range(2)]
    threads[0].start()
    wait_for(lambda: server.status()["running"] == 1)
    threads[1].start()
    wait_for(lambda: server.status()["waiting"] == 1)
    body, headers = form(PHOTO.read_bytes())
    r = server.request("POST", "/api/solve", body, headers)
    assert r.status == 503 and int(r.getheader("retry-after")) >= 1
    body = json.loads(r.read())
    assert body["records"] == [] and "busy" in body["error"]
    for t in threads:
        t.join(60)
    wait_for(lambda: server.status()["running"] == 0)


def test_a_port_in_use_is_refused_with_exit_2(server):
    out = subprocess.run([sys.executable, "-m", "kkvision", "serve", "--port", str(server.port)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "cannot listen on 127.0.0.1" in out.stderr and "Traceback" not in out.stderr
