"""Banners for runs that did not finish: a results file without its closing summary record (a killed run)
and a summary that says cases did not run (--fail-fast, an interruption)."""
from conftest import RUN_FILES, fixture_path
from convcheck_report import completeness, render, results, summary

KILLED = fixture_path("real_faultzoo_hang_killed.jsonl")  # `convcheck run --backend faultzoo ... fault=endless_loop`, kill -9
KILLED_NEW = fixture_path("killed_mutants.jsonl")         # the same cut, written by hand with "cases_total"
FAIL_FAST = fixture_path("fail_fast_mutants.jsonl")


def test_a_file_without_its_summary_record_is_an_incomplete_run():
    r = results.read_files([KILLED])
    (b,) = completeness.banners(r)
    assert (b.kind, b.file) == ("incomplete", KILLED)
    assert "has no closing summary record" in b.text and "holds 5 case records;" in b.text
    (s,) = summary.summarize(r)
    assert s.pass_rate_text().endswith("(5 of the 5 cases recorded before the run was cut off; the suite's size "
                                       "is unknown; 0 declined)")


def test_the_suite_size_of_the_run_record_says_how_many_were_never_reached():
    r = results.read_files([KILLED_NEW])
    (b,) = completeness.banners(r)
    assert "holds 3 case records of the 69 cases in the suite" in b.text
    (s,) = summary.summarize(r)
    assert s.pass_rate_text() == ("100.0 % of 3 executed cases (3 of 69 in the suite; 0 declined; 66 never reached: "
                                  "the run was cut off)")


def test_a_summary_with_cases_not_run_is_a_stopped_run():
    (b,) = completeness.banners(results.read_files([FAIL_FAST]))
    assert b.kind == "stopped" and b.backend == "mutants" and "did not run 67 cases" in b.text


def test_complete_runs_have_no_banner():
    assert completeness.banners(results.read_files(RUN_FILES + [fixture_path("new_fields_xnnpack.jsonl")])) == []
    assert completeness.banners(results.read_files([fixture_path("bench.jsonl")])) == []   # no run: not a run file


def test_the_banner_is_at_the_top_of_the_page():
    page = render.render(results.read_files([KILLED, FAIL_FAST]), generated="now")
    first = page.index('data-banner="incomplete"')
    assert first < page.index('data-banner="stopped"') < page.index('id="failures"')
    assert "<strong>Incomplete run</strong>" in page and "<strong>Stopped run</strong>" in page


def test_a_summary_speaks_only_for_the_cases_of_its_own_file():
    # the killed run's 5 hangs have no summary; the segfault run's summary counts its 2 crashes only
    r = results.read_files([KILLED, fixture_path("real_faultzoo_segfault.jsonl")])
    summary.summarize(r)
    assert not [w for w in r.warnings if "differ from the case records" in w or "the summary records say" in w]
