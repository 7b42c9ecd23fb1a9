"""Renders the report in headless Chromium, as a person opening it from CI artifacts would: the page
loads, its script runs to the end, every inline chart decodes, nothing is written to the console, and a
screenshot shows a page that is not blank. A page of failing runs shows its banners and failures on the
first screen, and a failure's copy button selects (and copies) its shrunk reproducer.

Skipped (reported as skipped by ctest) only when /usr/bin/chromium is absent. CONVCHECK_CHROMIUM names
another browser binary, to check that skip path.
"""
import html
import os
import re
import subprocess

import matplotlib.image
import pytest

from conftest import RUN_FILES, fixture_path
import make_report

CHROMIUM = os.environ.get("CONVCHECK_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Chromium ({CHROMIUM}) is absent")

# Chromium runs as root here: no sandbox; nothing that reaches the network; a fresh profile per run.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=5000"]


def chromium(tmp_path, page, *extra):
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, done.stderr


def console_messages(stderr):
    """Lines Chromium logs for the page's console (console.* calls, uncaught exceptions)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "report.html"
    assert make_report.main(RUN_FILES + ["--bench", fixture_path("bench.jsonl"), "--compare",
                                         fixture_path("before_onednn.jsonl"), fixture_path("after_onednn.jsonl"),
                                         "-o", str(out)]) == 0
    return out


def test_the_report_loads_runs_its_script_and_logs_nothing(tmp_path, report):
    dom, stderr = chromium(tmp_path, report, "--dump-dom")
    assert console_messages(stderr) == []
    assert "<title>convcheck report [rendered, 3 charts]</title>" in dom
    assert 'data-rendered="ok"' in dom


def test_the_checks_catch_a_script_error_and_a_broken_image(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><head><title>t</title></head><body>'
                    '<img src="data:image/png;base64,AAAA">'
                    '<script>window.addEventListener("load", function () {'
                    ' var bad = [].filter.call(document.images, function (i) { return !i.naturalWidth; });'
                    ' document.body.setAttribute("data-rendered", bad.length ? "broken-images" : "ok"); });'
                    'undefinedFunction();</script></body></html>')
    dom, stderr = chromium(tmp_path, page, "--dump-dom")
    assert any("undefinedFunction" in line for line in console_messages(stderr))
    assert 'data-rendered="broken-images"' in dom


FAILING_RUNS = [fixture_path(n) for n in ("real_faultzoo_hang_killed.jsonl", "fail_fast_mutants.jsonl",
                                           "real_faultzoo_segfault.jsonl", "new_fields_xnnpack.jsonl")]


@pytest.fixture(scope="module")
def failing_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("failing") / "report.html"
    assert make_report.main(FAILING_RUNS + ["-o", str(out)]) == 0
    return out


def with_script(page, target, script):
    """A copy of the page with one more script at its end, run after the page's own on load: it clicks or
    measures as a user would, and writes what it found into attributes of <body> for --dump-dom."""
    target.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", f'<script>window.addEventListener("load", function () {{ {script} }});</script></body>'),
        encoding="utf-8")
    return target


def body_attribute(dom, name):
    return html.unescape(dom.split(f'{name}="', 1)[1].split('"', 1)[0])


def test_a_failures_copy_button_selects_its_shrunk_reproducer(tmp_path, failing_report):
    clicked = with_script(failing_report, tmp_path / "clicked.html", (
        'var button = document.querySelector("#failures button.copy"); button.click();'
        'document.body.setAttribute("data-selection", window.getSelection().toString());'
        'document.body.setAttribute("data-button", button.getAttribute("data-copied"));'))
    dom, stderr = chromium(tmp_path, clicked, "--dump-dom")
    assert console_messages(stderr) == []
    shrunk = ("convcheck run --backend faultzoo --backend-option 'fault=segfault' --case 'conv:n=1,c=1,o=1,g=1,"
              "in=1,k=1,s=1,d=1,pb=0,pe=0,bias=0,dt=f32,data=ncx,wei=oix' --seed 7 --mode bound")
    assert body_attribute(dom, "data-selection") == shrunk
    assert body_attribute(dom, "data-button") in ("yes", "selected")


def test_the_first_screen_of_a_failing_run_shows_its_banners_and_first_failure(tmp_path, failing_report):
    measured = with_script(failing_report, tmp_path / "measured.html", (
        'var row = document.querySelector("#failures tbody.group tr[data-kind]");'
        'document.body.setAttribute("data-first-failure", Math.round(row.getBoundingClientRect().bottom));'
        'document.body.setAttribute("data-window", window.innerHeight);'))
    dom, _ = chromium(tmp_path, measured, "--window-size=1280,1200", "--dump-dom")
    assert 0 < int(body_attribute(dom, "data-first-failure")) <= int(body_attribute(dom, "data-window"))
    shot = tmp_path / "failing.png"
    chromium(tmp_path, failing_report, "--window-size=1280,1200", f"--screenshot={shot}")
    pixels = (matplotlib.image.imread(str(shot))[:, :, :3] * 255).round()

    def share(rgb):
        return (abs(pixels - rgb).max(axis=2) <= 2).mean()
    assert share((0xff, 0xeb, 0xee)) > 0.005      # the incomplete-run banner and the failures verdict
    assert share((0xff, 0xf3, 0xe0)) > 0.002      # the stopped-run banner
    assert share((0x6a, 0x1b, 0x9a)) > 0.0002     # the "crashed" badge of the first failure


def test_a_screenshot_shows_the_page(tmp_path, report):
    shot = tmp_path / "report.png"
    chromium(tmp_path, report, "--window-size=1280,2400", f"--screenshot={shot}")
    pixels = matplotlib.image.imread(str(shot))[:, :, :3]
    assert pixels.shape[:2] == (2400, 1280)
    assert pixels[10, 10].max() < 0.3                 # the dark header band
    ink = (pixels.min(axis=2) < 0.9).mean()
    assert 0.05 < ink < 0.9, f"share of non-white pixels {ink:.3f}: blank or solid page"
    assert len({tuple(p) for p in pixels[::37, ::37].reshape(-1, 3).round(2)}) > 20   # colours: cells, charts
