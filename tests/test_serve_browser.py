"""The page in a real browser: Chromium from the system's packages (apt package chromium, installed by
scripts/setup.sh; Playwright's own browser download is not used), in a phone's viewport.  Upload
the photo sample, see the answer's digits, tap a label, change it, see the new result; and no
Content-Security-Policy violation or script error on the way.

KKVISION_SCREENSHOT=docs/serve-phone.png keeps a screenshot of the phone's view (README's)."""

import json
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")
from test_serve_live import Server  # noqa: E402  (tests/ is on the path: pytest's rootdir import mode)

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "samples" / "photo-6x6.jpg"
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
PHONE = {"width": 390, "height": 844}  # an iPhone 12-15's viewport, CSS px
NARROW = 360  # the narrowest phones in use


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("serve-tmp"), "--workers", "1")
    yield s
    s.stop()


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt install chromium; scripts/setup.sh installs it)")
def test_a_phone_uploads_a_photo_sees_the_answer_and_corrects_a_label(server):
    solution = json.loads((ROOT / "samples" / "photo-6x6.expected.json").read_text())["solution"]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM)
        try:
            context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
            page = context.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(f"http://127.0.0.1:{server.port}/")
            assert page.locator('input[type=file][capture="environment"]').count() == 1

            page.set_input_files('form#ask input[type=file]:not([capture])', str(PHOTO))
            page.tap("form#ask button.go")
            page.wait_for_selector("table.grid", timeout=60_000)
            digits = page.locator("table.grid td").all_inner_texts()
            assert [int(d) for d in digits] == [d for row in solution for d in row]
            assert page.locator(".results img").evaluate("img => img.naturalWidth") > 0
            assert page.locator("a.download").get_attribute("download") == "photo-6x6.solved.jpg"
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], width  # nothing wider than the phone
            if os.environ.get("KKVISION_SCREENSHOT"):
                page.screenshot(path=os.environ["KKVISION_SCREENSHOT"], full_page=True, scale="css")

            # tap the label of the cage at A1 (13+ in print), say it reads 12+: no solution with it
            spot = page.locator('svg a.label[data-cell="A1"]')
            assert spot.get_attribute("data-label") == "13+"
            spot.tap()
            editor = page.locator("dialog.editor")
            editor.wait_for(state="visible")
            assert editor.locator("input").input_value() == "13+"
            editor.locator("input").fill("12+")
            editor.locator("button[value=go]").tap()
            page.wait_for_selector("article.refused", timeout=60_000)
            assert "No solution as read" in page.inner_text("article h2")
            assert "A1=12+" in page.inner_text("article .message")
            assert page.locator('svg a.label.given[data-cell="A1"]').get_attribute("data-label") == "12+"

            # and back to what it says: solved again, the label shown as given by the user
            page.locator('svg a.label[data-cell="A1"]').tap()
            editor.wait_for(state="visible")
            editor.locator("input").fill("13+")
            editor.locator("button[value=go]").tap()
            page.wait_for_selector("table.grid", timeout=60_000)
            assert [int(d) for d in page.locator("table.grid td").all_inner_texts()] == [d for row in solution
                                                                                         for d in row]
            assert page.locator('svg a.label.given[data-cell="A1"]').count() == 1

            page.set_viewport_size({"width": NARROW, "height": PHONE["height"]})
            assert page.evaluate("document.documentElement.scrollWidth") <= NARROW
            assert problems == []  # no CSP violation, no script error
        finally:
            browser.close()
