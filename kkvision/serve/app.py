"""The web app: the page (GET /, a form POST / that works without JavaScript,
POST /part for the page's script), the JSON API (POST /api/solve, /api/hint,
/api/check), the page's own assets (/static/), and /api/status.

Every request body is counted as it streams in and refused with 413 past
--max-upload (at once when its Content-Length says so); a picture declaring
more than --max-pixels gets 413 from its header, before a worker sees it;
malformed multipart gets 400.  An upload is kept only for its request: in
memory, or past 1 MB in the anonymous temporary file Starlette spools it to
(unlinked as it is made: no name on disk, closed with the request, also on
errors); nothing the client sends names a file.  Every response carries a strict
Content-Security-Policy (scripts and styles only from /static/, no inline
script) and the usual hardening headers.

The endpoints are this module's functions, reading the pool and the limits from
the app's state (Served); a request that gets no answer from a worker raises,
and the app's exception handlers (HANDLERS) say why, with its status: the API as
JSON, the page as HTML.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..commands import REFUSED_EXITS, verdict
from ..defaults import HINT_CELLS
from ..errors import KkvisionError, UsageError
from ..report import record
from ..sources import MAX_TEXT_BYTES, is_image
from ..vision.picture import declared_size
from ..vocab import parse_cell
from .config import ServeConfig
from .pool import Busy, WorkerPool
from .work import COMMANDS, Answer, Job, parse_label

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_FIELDS = 200  # form fields of one request: a 9x9 has at most 81 cages, each a label field
MAX_FILES = 2  # the page's two file inputs (camera, gallery); one of them filled
UPLOAD_SECONDS = 120.0  # a request's body must arrive within this (20 MB at 2 Mbit/s, a slow phone link: 80 s)
NAME = re.compile(r"[^\w.\- ]+")
FIELD_LABEL = re.compile(r"^label\.(?:(\d{1,3})\.)?([A-Za-z]\d{1,2})$")  # the page's fix form: label.B3, label.2.B3
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self';"
       " form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"geolocation=(), microphone=(), payment=()"),
]


class TooLarge(Exception):
    """The request body passed the upload limit while it streamed in."""


class TooManyPixels(Exception):
    """The picture's header declares more pixels than allowed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MalformedForm(Exception):
    """The form could not be parsed (Starlette's HTTPException for it: malformed multipart, too
    many fields or files; its others, a path not found or a method not allowed, keep their handler)."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code, self.detail = status_code, detail


class UploadTimeout(Exception):
    """The request's body did not arrive within the upload time."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the upload took longer than {seconds:g} s")
        self.seconds = seconds


def limits(app: ASGI, max_upload: int) -> ASGI:
    """Bodies over max_upload refused with 413: at once by Content-Length, else
    when the count passes it while streaming (never read to the end); and the
    security headers on every response."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > max_upload:
            await too_large(scope, max_upload)(scope, receive, sending)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > max_upload:
                    raise TooLarge
            return message

        try:
            await app(scope, counted, sending)
        except TooLarge:
            if not started:
                await too_large(scope, max_upload)(scope, receive, sending)

    return wrapped


def too_large(scope: Scope, max_upload: int) -> Response:
    message = f"the upload is larger than the server's limit ({max_upload / 1e6:g} MB)"
    return _error(scope["path"], 413, record(_command(scope["path"]), "upload", exit_code=3, error=message),
                  {"connection": "close"})


def _command(path: str) -> str:
    return path.rsplit("/", 1)[-1] if path.startswith("/api/") and path.rsplit("/", 1)[-1] in COMMANDS else "solve"


def _error(path: str, status: int, rec: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    """A request-level failure: the API's JSON, or the page with the message."""
    if path.startswith("/api/"):
        return JSONResponse({"records": [rec], "picture": None, "picture_name": None}, status, headers)
    return HTMLResponse(PAGES.get_template("page.html").render(page_context(None, rec["error"])),
                        status, headers)


PAGES = Environment(loader=PackageLoader("kkvision.serve", "templates"), autoescape=select_autoescape(["html"]),
                    trim_blocks=True, lstrip_blocks=True)


def clean_name(name: str | None, text: bool) -> str:
    """The upload's file name for the records and the picture's download name only (never a path)."""
    if text:
        return "text"
    base = re.split(r"[\\/]", name or "")[-1]
    base = NAME.sub("_", base).strip(" ._")[:80]
    return base or "upload"


@dataclass(frozen=True)
class Served:
    """What the endpoints serve with (the app's state): the limits, the pool of workers, and how
    long a request's body may take to arrive."""

    config: ServeConfig
    pool: WorkerPool
    upload_seconds: float = UPLOAD_SECONDS


def make_app(config: ServeConfig, pool: WorkerPool, upload_seconds: float = UPLOAD_SECONDS) -> ASGI:
    """The ASGI app serving the page and the API with this pool of workers; a body that takes
    longer than upload_seconds to arrive gets 408 (a trickling client holds no worker, nor long)."""
    app = Starlette(routes=ROUTES, exception_handlers=HANDLERS, lifespan=lifespan)
    app.state.served = Served(config, pool, upload_seconds)
    return limits(app, config.max_upload)


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """The workers started (and warmed) before the first request, ended after the last."""
    pool = app.state.served.pool
    await pool.start()
    try:
        yield
    finally:
        pool.close()


def _served(request: Request) -> Served:
    served: Served = request.app.state.served
    return served


async def index(request: Request) -> Response:
    """GET /: the page."""
    return HTMLResponse(PAGES.get_template("page.html").render(page_context(None, None)))


async def api(request: Request) -> Response:
    """POST /api/solve|hint|check: the records and the drawn picture, as JSON."""
    command = request.path_params["command"]
    if command not in COMMANDS:
        return JSONResponse({"error": f"no such command: POST /api/{'|'.join(COMMANDS)}"}, 404)
    _, reply = await answer(request, command)
    body = {"records": list(reply.records), "picture": _data_uri(reply), "picture_name": reply.picture_name}
    return Response(json.dumps(body), reply.status, media_type="application/json",
                    headers={"cache-control": "no-store"})


async def page_post(request: Request) -> Response:
    """POST / and /part: the form posted without JavaScript (the whole page), or by the page's script
    (the results only)."""
    job, reply = await answer(request, None)
    name = "part.html" if request.url.path == "/part" else "page.html"
    return HTMLResponse(PAGES.get_template(name).render(page_context(reply, None, job)), reply.status,
                        headers={"cache-control": "no-store"})


async def status(request: Request) -> Response:
    """GET /api/status: the workers, the queue and the counts (no process ids: anyone may ask)."""
    return JSONResponse(_served(request).pool.stats().public())


async def answer(request: Request, command: str | None) -> tuple[Job, Answer]:
    """The request's job and its Answer from a worker.  Raises what HANDLERS answer: the form
    refused (UsageError, TooManyPixels, TooLarge, MalformedForm), too slow to arrive
    (UploadTimeout), no worker free (Busy), the client gone (ClientDisconnect)."""
    served = _served(request)
    try:
        job = await asyncio.wait_for(read_job(request, command, served.config), served.upload_seconds)
    except asyncio.TimeoutError:  # (not yet the builtin TimeoutError on Python 3.10)
        raise UploadTimeout(served.upload_seconds) from None
    return job, await _while_connected(request, served.pool.run(job, served.config.time_limit))


async def read_job(request: Request, command: str | None, config: ServeConfig) -> Job:
    """The request's form as a Job (the command: the API's path, or the page's field)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in ("multipart/form-data", "application/x-www-form-urlencoded"):
        raise UsageError("send a form: multipart/form-data with a picture (or a text) field, or"
                         " application/x-www-form-urlencoded with a text field")
    try:
        async with request.form(max_files=MAX_FILES, max_fields=MAX_FIELDS, max_part_size=MAX_TEXT_BYTES) as form:
            return await _job(form, command, config)
    except HTTPException as exc:  # Starlette's: malformed multipart, too many fields or files
        raise MalformedForm(exc.status_code, exc.detail) from None


async def _job(form: FormData, command: str | None, config: ServeConfig) -> Job:
    command = command or str(form.get("command") or "solve")
    files = [f for f in form.getlist("picture") if isinstance(f, UploadFile) and (f.size or f.filename)]
    text = str(form.get("text") or "").strip()
    if len(files) > 1 or (files and text):
        raise UsageError("send one picture or one puzzle text")
    if not files and not text:
        raise UsageError("send a picture (field picture) or a puzzle text (field text)")
    data = await files[0].read() if files else text.encode("utf-8")
    name = clean_name(files[0].filename if files else None, not files)
    if files and is_image(Path(name), data):  # the header's declared size, before any worker decodes it
        width, height = declared_size(Path(name), data)
        if width * height > config.max_pixels:
            raise TooManyPixels(f"{name}: image too large ({width * height / 1e6:.0f} MP; the server's limit"
                                f" is {config.max_pixels / 1e6:g} MP)")
    labels = [parse_label(str(v), "label") for v in form.getlist("label") if str(v).strip()]
    for key, value in form.multi_items():  # the page's fix form: one field per label, empty when unchanged
        m = FIELD_LABEL.match(key)
        if m and str(value).strip():
            labels.append(parse_label(f"{m[1] + ':' if m[1] else ''}{m[2]}={value}", "label"))
    answers = str(form.get("answers") or "").strip() or None
    cells = _int(form, "cells", HINT_CELLS)
    return Job(command, data, name, tuple(labels), _int(form, "puzzle", None), HINT_CELLS if cells is None else cells,
               answers, config.time_limit, config.max_pixels)


# What a request that gets no Answer is told: each exception the endpoints raise, answered in one place.

async def _refused(request: Request, exc: KkvisionError) -> Response:
    """A form that is no job (a label, a number, no picture; not a picture): 400, its exit code."""
    return _upload_error(request, 400, exc.exit_code, exc.message)


async def _too_many_pixels(request: Request, exc: TooManyPixels) -> Response:
    return _upload_error(request, 413, 3, exc.message)


async def _too_large(request: Request, exc: TooLarge) -> Response:
    """Counted past the limit while streaming (limits): the rest is never read."""
    return too_large(request.scope, _served(request).config.max_upload)


async def _malformed(request: Request, exc: MalformedForm) -> Response:
    return _upload_error(request, exc.status_code, 3, f"malformed form: {exc.detail}")


async def _too_slow(request: Request, exc: UploadTimeout) -> Response:
    return _upload_error(request, 408, 3, f"the upload took longer than {exc.seconds:g} s; send it again on a"
                         " faster link", {"connection": "close"})


async def _busy(request: Request, exc: Busy) -> Response:
    """No puzzle was looked at: no record, only the reason and when to come back."""
    message, headers = f"the server is busy; try again in {exc.retry_after} s", {"retry-after": str(exc.retry_after)}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"records": [], "picture": None, "picture_name": None, "error": message}, 503, headers)
    return HTMLResponse(PAGES.get_template("page.html").render(page_context(None, message)), 503, headers)


async def _gone(request: Request, exc: ClientDisconnect) -> Response:
    return Response(status_code=499)  # nobody reads it


def _upload_error(request: Request, status: int, code: int, message: str,
                  headers: dict[str, str] | None = None) -> Response:
    path = request.url.path
    return _error(path, status, record(_command(path), "upload", exit_code=code, error=message), headers)


HANDLERS: dict[Any, Callable[[Request, Any], Awaitable[Response]]] = {
    KkvisionError: _refused, TooManyPixels: _too_many_pixels, TooLarge: _too_large, MalformedForm: _malformed,
    UploadTimeout: _too_slow, Busy: _busy, ClientDisconnect: _gone,
}
ROUTES = [
    Route("/", index, methods=["GET"]),
    Route("/", page_post, methods=["POST"]),
    Route("/part", page_post, methods=["POST"]),
    Route("/api/status", status, methods=["GET"]),
    Route("/api/{command}", api, methods=["POST"]),
    Mount("/static", StaticFiles(packages=[("kkvision.serve", "static")]), name="static"),
]


def _int(form: FormData, key: str, default: int | None) -> int | None:
    value = str(form.get(key) or "").strip()
    if not value:
        return default
    if not value.isdigit() or len(value) > 4:
        raise UsageError(f"{key} must be a whole number, not {value[:20]!r}")
    return int(value)


async def _while_connected(request: Request, work: Awaitable[Answer]) -> Answer:
    """The work's answer; ClientDisconnect (and the work dropped) when the client hangs up first."""
    job = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnect(request))
    done, _ = await asyncio.wait({job, gone}, return_when=asyncio.FIRST_COMPLETED)
    if job in done:
        gone.cancel()
        return job.result()
    job.cancel()
    raise ClientDisconnect


async def _disconnect(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _data_uri(answer: Answer) -> str | None:
    if answer.picture is None:
        return None
    return f"data:{answer.picture_type};base64," + base64.b64encode(answer.picture).decode("ascii")


HEADLINES = {0: "Solved", 11: "Some answers are wrong", 15: "No wrong answer found, but not every cell could be judged",
             2: "Cannot do that", 3: "Not a picture or a puzzle text kkvision can read", 4: "No puzzle grid found",
             5: "A label could not be read", 6: "Not a valid puzzle", 7: "No solution as read",
             8: "More than one solution as read", 12: "Out of time", 13: "Unsure of some labels"}


def page_context(answer: Answer | None, error: str | None, job: Job | None = None) -> dict[str, Any]:
    """What the templates show: the picture with its views, and a card per puzzle."""
    if answer is None:
        return {"answer": None, "error": error, "puzzles": [], "picture": None}
    views = {v.index: v for v in answer.views}
    puzzles = []
    for rec in answer.records:
        view = views.get(rec["index"])
        code = rec["exit_code"]
        card: dict[str, Any] = {"n": rec["index"], "rec": rec, "view": view, "code": code,
                                "headline": ("Hints" if rec["command"] == "hint" and code == 0
                                             else "Checked: all right" if rec["command"] == "check" and code == 0
                                             else HEADLINES.get(code, "Failed")),
                                "refused": code in REFUSED_EXITS}  # a label given can settle it
        if rec["command"] == "check" and rec["ok"] or code in (11, 15):
            card["verdict"] = _verdict(rec)
        if view is not None:
            ask = set(view.ask)
            card["spots"] = sorted(view.labels, key=lambda s: (s.cell not in ask, s.how == "sure"))
            card["ask"] = [s for s in view.labels if s.cell in ask]
            card["prefix"] = f"label.{rec['index']}." if rec["index"] is not None else "label."
        puzzles.append(card)
    return {"answer": answer, "error": error, "puzzles": puzzles, "picture": _data_uri(answer),
            "several": len(answer.records) > 1, "job": job}


def _verdict(rec: dict[str, Any]) -> str:
    """check's verdict in the command line's words, the wrong cells named (the page shows no ! marks)."""
    def cells(key: str) -> list[tuple[int, int]]:
        return [(r, c) for r, c in rec[key] or []]

    left_open = {cell for name in rec.get("undetermined") or [] if (cell := parse_cell(name)) is not None}
    return verdict(cells("wrong"), cells("blank"), cells("unsure"), named=True, left_open=left_open)
