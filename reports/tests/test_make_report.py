"""The command: one self-contained page from the fixtures, its path printed; bad input exits 2."""
import base64
import html.parser
import os
import re
import subprocess
import sys

import pytest

from conftest import FIXTURES, REPORTS, RUN_FILES, fixture_path

sys.path.insert(0, REPORTS)
import make_report  # noqa: E402

BENCH = fixture_path("bench.jsonl")
BEFORE, AFTER = fixture_path("before_onednn.jsonl"), fixture_path("after_onednn.jsonl")


class Page(html.parser.HTMLParser):
    """Collects ids, links, image sources, script sources and stylesheet links of a page."""

    def __init__(self, text):
        super().__init__()
        self.ids, self.hrefs, self.images, self.external = [], [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if "href" in a:
            self.hrefs.append(a["href"])
        if tag == "img":
            self.images.append(a.get("src", ""))
        for key in ("src", "href", "data", "srcset"):
            if key in a and not (a[key] or "").startswith(("#", "data:")):
                self.external.append(f"<{tag} {key}={a[key]}>")
        if tag == "link":
            self.external.append(f"<link {a}>")


@pytest.fixture(scope="module")
def full_page(tmp_path_factory):
    """The page of every fixture, written by the command as a user runs it (which prints the path)."""
    out = tmp_path_factory.mktemp("report") / "sub" / "report.html"
    done = subprocess.run(["/usr/bin/python3", os.path.join(REPORTS, "make_report.py"), *RUN_FILES,
                           "--bench", BENCH, "--compare", BEFORE, AFTER, "-o", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=FIXTURES)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{out}\n"
    return out.read_text(encoding="utf-8")


def test_the_page_needs_nothing_outside_itself(full_page):
    page = Page(full_page)
    assert page.external == []
    assert not re.search(r"url\(|@import|https?://", full_page)


def test_charts_are_inline_pngs(full_page):
    images = Page(full_page).images
    assert len(images) == 3   # accuracy, GFLOP/s, ratio
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_link_in_the_page_has_its_target_and_ids_are_unique(full_page):
    page = Page(full_page)
    assert len(page.ids) == len(set(page.ids))
    targets = [h[1:] for h in page.hrefs if h.startswith("#")]
    assert targets and not [t for t in targets if t not in page.ids]


def test_the_page_shows_every_section_and_the_fixtures_facts(full_page):
    for section in ("summary", "matrix", "accuracy", "worst-cases", "error-locations", "performance",
                    "comparison", "newly-failing", "newly-passing", "cases"):
        assert f'id="{section}"' in full_page
    assert re.search(r'data-backend="onednn">.*?57\.1 %', full_page, re.S)     # 4 / 7
    assert "resnet50/res2a_branch2b" in full_page and "95.1" in full_page
    assert "onednn: cmp/05" in full_page and "SIGABRT" in full_page
    for status in ("passed", "failed", "unsupported", "crashed", "hanged", "xfail", "xpass"):
        assert f'class="badge s-{status}"' in full_page


def test_without_bench_or_compare_those_sections_say_so(tmp_path):
    out = tmp_path / "r.html"
    assert make_report.main(RUN_FILES[:1] + ["-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "No bench records given" in text and 'id="comparison"' not in text
    assert len(Page(text).images) == 1


def test_compare_alone_reports_the_after_run(tmp_path):
    out = tmp_path / "r.html"
    assert make_report.main(["--compare", BEFORE, AFTER, "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "7 cases on 1 backend" in text and 'id="newly-failing"' in text


def test_an_empty_file_and_bench_records_alone_make_a_page(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    out = tmp_path / "r.html"
    assert make_report.main([str(empty), "--bench", BENCH, "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "No case records in the input" in text
    assert "empty.jsonl: the file holds no run, case, bench or summary record" in text
    assert "mobilenet/conv_dw_1" in text and len(Page(text).images) == 2


def test_bad_input_exits_2_naming_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"record": "run", "backend": "b"}\n{"record": "case", "case_id": "1", "status": "odd"}\n')
    assert make_report.main([str(bad), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2" in err and "'odd'" in err
    assert not (tmp_path / "r.html").exists()


def test_no_input_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as e:
        make_report.main(["-o", str(tmp_path / "r.html")])
    assert e.value.code == 2
