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
    assert "empty.jsonl: the file holds no run, case, bench, summary, selftest or design record" in text
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


def run_command(*arguments):
    """The command as a user runs it: (exit code, stdout, stderr)."""
    done = subprocess.run(["/usr/bin/python3", os.path.join(REPORTS, "make_report.py"), *arguments],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


BAD_INPUTS = {
    # name: (bytes of the file, words its one-line message must hold)
    "binary": (open("/bin/true", "rb").read()[:4096], ["binary file", "NUL byte"]),
    "latin1": ('{"record": "run", "backend": "caf\u00e9"}\n'.encode("latin-1"), ["not UTF-8", "0xe9", "offset 33"]),
    "garbage": (b"PK\x03\x04 this is a zip, or something\n", ["x.jsonl:1", "not valid JSON"]),
    "pretty_printed": (b'{\n  "record": "run"\n}\n', ["x.jsonl:1", "not valid JSON"]),
    "other_json_lines": (b'{"name": "conv", "shape": [1, 2]}\n', ["x.jsonl:1", "'record' is missing"]),
    "no_result_record": (b'{"record": "event"}\n{"record": "event"}\n', ["none of its 2 records is a result record"]),
    "nan_token": (b'{"record": "summary", "backend": "b", "seconds": NaN}\n', ["x.jsonl:1", "NaN is not JSON"]),
    "wrong_type": (b'{"record": "summary", "backend": "b", "counts": [1, 2]}\n',
                   ["x.jsonl:1", "summary attribute 'counts'", "[1, 2]", "JSON object"]),
    "worst_not_object": (b'{"record": "case", "backend": "b", "case_id": "1", "status": "failed", '
                         b'"error": {"worst": [1]}}\n', ["x.jsonl:1", "'worst'", "JSON object"]),
    "reason_not_text": (b'{"record": "case", "backend": "b", "case_id": "1", "status": "failed", "reason": {}}\n',
                        ["x.jsonl:1", "'reason'", "string"]),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_every_bad_input_is_one_line_naming_the_file_and_exit_2(tmp_path, name):
    data, words = BAD_INPUTS[name]
    bad = tmp_path / "x.jsonl"
    bad.write_bytes(data)
    code, out, err = run_command(str(bad), "-o", str(tmp_path / "r.html"))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"make_report.py: error: {bad}"), err
    for word in words:
        assert word in err
    assert not (tmp_path / "r.html").exists()


def test_a_missing_file_a_folder_and_a_real_json_file_that_is_not_results_exit_2(tmp_path):
    backends_json = os.path.join(REPORTS, "..", "conformance", "data", "backends.json")
    for path, words in ((tmp_path / "none.jsonl", "cannot read the result file: No such file"),
                        (tmp_path, "cannot read the result file: Is a directory"),
                        (backends_json, "not valid JSON")):
        code, _, err = run_command(str(path), "-o", str(tmp_path / "r.html"))
        assert code == 2 and err.count("\n") == 1 and words in err and str(path) in err, err


def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    outputs = [(tmp_path, "Is a directory"), (a_file / "r.html", "is not a folder"), ("/proc/report.html", "")]
    if os.geteuid() != 0:   # root writes into a read-only folder
        outputs.append((locked / "r.html", "Permission denied"))
    small = tmp_path / "small.jsonl"      # no bound-mode case: no chart, a quick page
    small.write_text('{"record": "run", "backend": "b"}\n{"record": "case", "case_id": "1", "status": "passed"}\n'
                     '{"record": "summary", "backend": "b"}\n')
    for output, words in outputs:
        code, out, err = run_command(str(small), "-o", str(output))
        assert (code, out) == (2, ""), err
        assert err.count("\n") == 1 and f"{output}: cannot write the report" in err and words in err, err


def test_the_output_may_not_be_one_of_the_inputs(tmp_path):
    results_file = tmp_path / "run.jsonl"
    results_file.write_bytes(open(RUN_FILES[0], "rb").read())
    code, _, err = run_command(str(results_file), "-o", str(results_file))
    assert code == 2 and "the output is also an input" in err
    assert results_file.read_bytes() == open(RUN_FILES[0], "rb").read()


def test_mangled_records_never_end_in_a_traceback(monkeypatch):
    """Each of a few hundred copies of the fixture lines with one value replaced by a value of another type
    either makes a page or is refused with one line naming the file: never a traceback. (The charts are
    stubbed: they take a second each, and only validated numbers reach them.)"""
    import json
    import random
    from convcheck_report import charts, render, results
    monkeypatch.setattr(charts, "accuracy_chart", lambda *a: None)
    rng = random.Random(15)
    lines = open(fixture_path("new_fields_xnnpack.jsonl"), encoding="utf-8").read().splitlines()
    strange = [None, True, -1, 2 ** 70, 0.5, "", "x", [], [1, "a"], {}, {"a": [None]}, "0/1000000000000"]
    outcomes = {"page": 0, "refused": 0}
    for _ in range(150):
        mangled = [json.loads(line) for line in lines]
        record = rng.choice(mangled)
        target, key = record, rng.choice(sorted(record))
        while isinstance(target[key], dict) and target[key] and rng.random() < 0.7:
            target, key = target[key], rng.choice(sorted(target[key]))
        target[key] = rng.choice(strange)
        try:
            r = results.read_lines([json.dumps(m) for m in mangled], "m.jsonl")
        except results.ResultsError as e:
            assert str(e).startswith("m.jsonl") and "\n" not in str(e)
            outcomes["refused"] += 1
            continue
        render.render(r, generated="now")
        outcomes["page"] += 1
    assert outcomes["page"] > 30 and outcomes["refused"] > 30, outcomes
