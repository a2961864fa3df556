"""run(config): the listening socket bound (refused at once when it cannot be),
the worker pool started and warmed, then uvicorn serving the app until Ctrl-C
or SIGTERM, when the workers are ended too."""

from __future__ import annotations

import logging
import socket
import sys

from ..errors import MissingDependency, UsageError
from .config import ServeConfig

log = logging.getLogger("kkvision")
KEEP_ALIVE = 5  # s an idle connection is kept open (uvicorn's default)
MAX_CONNECTIONS = 200  # open connections at most (uvicorn answers 503 past it): a backstop, the queue bounds work


def run(config: ServeConfig, verbose: bool = False) -> int:
    """Serve until interrupted (Ctrl-C: the command line's exit 130, as for any command)."""
    try:
        import uvicorn

        from .app import make_app
        from .pool import WorkerPool
    except ImportError as exc:
        raise MissingDependency(f"kkvision serve needs {exc.name}: pip install 'kkvision[serve]'") from None
    sock = listen(config.host, config.port)
    host, port = sock.getsockname()[:2]
    pool = WorkerPool(config.worker_count, config.queue_size)
    app = make_app(config, pool)
    workers = f"{config.worker_count} worker{'s' if config.worker_count > 1 else ''}"
    print(f"kkvision: serving on http://{_url_host(host)}:{port}/ ({workers}, queue {config.queue_size});"
          " Ctrl-C to stop", file=sys.stderr, flush=True)
    for address in phone_addresses(host):
        print(f"kkvision: on a phone on the same network open http://{address}:{port}/", file=sys.stderr, flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="info" if verbose else "warning", access_log=verbose,
                                           timeout_keep_alive=KEEP_ALIVE, limit_concurrency=MAX_CONNECTIONS,
                                           lifespan="on", http="h11", ws="none"))
    try:
        server.run(sockets=[sock])
    finally:
        pool.close()
        sock.close()
    return 0


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port and listening; UsageError naming the trouble when it cannot be."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"--host {host}: not an address of this machine ({exc.strerror})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror}); name another with --port") from None
    sock.set_inheritable(True)
    return sock


def phone_addresses(host: str) -> list[str]:
    """This machine's address on its local network, when the server listens beyond loopback."""
    if host not in ("0.0.0.0", "::", ""):
        return []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # picks the outgoing interface; sends nothing
        address = probe.getsockname()[0]
    except OSError:
        return []
    finally:
        probe.close()
    return [] if address.startswith("127.") else [address]


def _url_host(host: str) -> str:
    """How this machine reaches the address listened on (every address: through loopback)."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    return f"[{host}]" if ":" in host else host
