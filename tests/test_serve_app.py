"""The web app's endpoints and error handlers with a stand-in for the worker pool (no worker
process starts): /api/status shows counts and no process ids, and each refusal is answered by
the app's exception handlers with its status, on the API as JSON and on the page as HTML."""

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from kkvision.errors import ExitCode  # noqa: E402
from kkvision.serve import app as served  # noqa: E402
from kkvision.serve.config import ServeConfig  # noqa: E402
from kkvision.serve.pool import Busy, Stats  # noqa: E402
from kkvision.serve.work import Answer, Job  # noqa: E402


class Pool:
    """Stands in for WorkerPool: answers every job with `reply`, or refuses it when `busy`."""

    def __init__(self, busy: bool = False) -> None:
        self.busy, self.jobs = busy, []

    async def start(self) -> None:
        pass

    def close(self) -> None:
        pass

    def stats(self) -> Stats:
        return Stats(workers=2, queue=8, running=1, waiting=0, served=7, replaced=1, pids=(4242, 4343))

    async def run(self, job: Job, deadline: float) -> Answer:
        if self.busy:
            raise Busy(3)
        self.jobs.append(job)
        return Answer(200, ({"command": job.command, "index": None, "exit_code": 0, "ok": True},))


def client(pool: Pool) -> TestClient:
    return TestClient(served.make_app(ServeConfig(workers=1, max_upload=100_000), pool))


def test_status_shows_the_counts_and_no_process_ids():
    with client(Pool()) as c:
        body = c.get("/api/status").json()
    assert body == {"workers": 2, "queue": 8, "running": 1, "waiting": 0, "served": 7, "replaced": 1}
    assert "4242" not in str(body)


def test_a_job_reaches_the_pool_with_the_forms_fields():
    pool = Pool()
    with client(pool) as c:
        r = c.post("/api/hint", data={"text": "# 3\n", "cells": "2", "label": "2:B3=12x", "answers": "1.."})
    assert r.status_code == 200 and r.json()["records"][0]["command"] == "hint"
    [job] = pool.jobs
    assert (job.command, job.cells, str(job.labels[0]), job.answers, job.name) == ("hint", 2, "2:B3=12*", "1..", "text")


def test_the_handlers_answer_each_refusal_on_the_api_and_on_the_page():
    with client(Pool(busy=True)) as c:
        r = c.post("/api/solve", data={"text": "# 3\n"})
        assert r.status_code == 503 and r.headers["retry-after"] == "3"
        assert r.json() == {"records": [], "picture": None, "picture_name": None,
                            "error": "the server is busy; try again in 3 s"}
        r = c.post("/", data={"text": "# 3\n"})
        assert r.status_code == 503 and "text/html" in r.headers["content-type"] and "the server is busy" in r.text
        r = c.post("/api/check", data={"text": "# 3\n", "label": "B3 is 12"})  # a label that is none: 400
        [rec] = r.json()["records"]
        assert r.status_code == 400 and rec["command"] == "check" and rec["exit_code"] == ExitCode.USAGE
        assert rec["error"].startswith("label 'B3 is 12': write it as CELL=LABEL")  # the field's name, no --
        r = c.post("/part", data={"text": "# 3\n", "puzzle": "x"})
        assert r.status_code == 400 and "puzzle must be a whole number" in r.text
        r = c.post("/api/solve", content=b'--b\r\nContent-Disposition: form-data; name="picture"; filename="a"\r\nno end',
                   headers={"content-type": "multipart/form-data; boundary=b"})
        assert r.status_code == 400 and r.json()["records"][0]["error"].startswith("malformed form: ")
        assert c.get("/nothing").status_code == 404 and c.get("/nothing").text == "Not Found"  # Starlette's own
        assert c.put("/").status_code == 405


def test_the_endpoints_are_module_functions_and_the_handlers_one_table():
    assert {route.endpoint for route in served.ROUTES if hasattr(route, "endpoint")} == {
        served.index, served.page_post, served.status, served.api}
    assert set(served.HANDLERS) >= {Busy, served.TooLarge, served.TooManyPixels, served.UploadTimeout,
                                    served.MalformedForm}
