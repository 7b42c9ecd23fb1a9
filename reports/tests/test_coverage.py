"""Coverage beside every pass rate: executed / declined / total per backend, the top decline reasons with
counts, skipped inputs, and a pass rate that says what it is a fraction of."""
import json
import re

from conftest import fixture_path
from convcheck_report import render, results, summary

NEW = fixture_path("new_fields_xnnpack.jsonl")
XNNPACK = fixture_path("real_xnnpack_smoke.jsonl")      # today's `convcheck run --backend xnnpack --suite smoke`


def only(paths):
    r = results.read_files(paths)
    (s,) = summary.summarize(r)
    return r, s


def test_the_pass_rate_says_it_is_a_fraction_of_the_executed_cases():
    _, s = only([XNNPACK])
    assert s.pass_rate_text() == "100.0 % of 8 executed cases (8 of 69 in the suite; 61 declined)"


def test_decline_reasons_are_counted_from_the_case_records_most_frequent_first():
    _, s = only([XNNPACK])
    cv = s.coverage
    assert (cv.executed, cv.declined, cv.total) == (8, 61, 69)
    assert cv.top_decline_reasons()[:2] == [("the plugin does not claim data format ncx", 30),
                                            ("the plugin does not claim rank 1", 11)]
    assert sum(n for _, n in cv.top_decline_reasons()) == 61
    assert cv.top_decline_reasons(n=2)[-1] == ("3 other reasons", 20)


def test_the_new_summary_fields_are_used_refused_and_skipped_cases_counted():
    r, s = only([NEW])
    cv = s.coverage
    assert (cv.executed, cv.declined, cv.refused, cv.not_run, cv.total) == (12, 8, 1, 0, 21)
    assert cv.decline_reasons == [("xnnpack: NCX data is not supported (NHWC only)", 5),
                                  ("xnnpack: rank 1 is not supported", 2), ("xnnpack: bf16 is not supported", 1)]
    assert (cv.skipped_inputs, cv.min_coverage, cv.below_minimum) == (2, 0.1, False)
    assert s.pass_rate_text() == ("25.0 % of 12 executed cases (12 of 21 in the suite; 8 declined; 1 refused (over "
                                  "the memory limit); 2 inputs skipped)")
    assert r.warnings == []


def test_cases_that_never_started_count_in_the_total_and_a_low_coverage_is_marked():
    _, s = only([fixture_path("fail_fast_mutants.jsonl")])
    assert s.pass_rate_text() == "50.0 % of 2 executed cases (2 of 69 in the suite; 0 declined; 67 not run)"
    assert s.coverage.below_minimum


def test_a_summary_that_disagrees_with_the_case_records_is_a_warning():
    lines = open(NEW, encoding="utf-8").read().splitlines()
    lines[-1] = lines[-1].replace('"executed": 12', '"executed": 13')
    r = results.read_lines(lines, "x.jsonl")
    summary.summarize(r)
    assert [w for w in r.warnings if "say executed 13, the case records give 12" in w]


def test_nothing_executed_has_no_pass_rate_and_says_why():
    r = results.read_lines(['{"record": "run", "backend": "b"}',
                            '{"record": "case", "case_id": "1", "status": "unsupported", "reason": "no"}',
                            '{"record": "summary", "backend": "b"}'], "x")
    (s,) = summary.summarize(r)
    assert s.pass_rate is None
    assert s.pass_rate_text() == "— no case executed (0 of 1 in the suite; 1 declined)"


def test_the_page_shows_coverage_beside_the_pass_rate_and_the_reasons():
    page = render.render(results.read_files([XNNPACK]), generated="now")
    assert re.search(r'<strong>100\.0 %</strong> <span class="of">of 8 executed cases \(8 of 69 in the suite; '
                     r'61 declined\)</span>', page)
    coverage = page[page.index('id="coverage"'):]
    assert re.search(r'<span class="count">30</span> the plugin does not claim data format ncx', coverage)


def test_the_page_lists_skipped_inputs_by_reason():
    page = render.render(results.read_files([NEW]), generated="now")
    skipped = page[page.index('id="skipped"'):page.index('id="settings"')]
    assert "Skipped inputs (2)" in skipped
    assert "post-ops (--attr-post-ops) are not modelled by convcheck" in skipped and "shapes/conv_extra:3" in skipped


def test_the_runners_own_grouping_of_decline_reasons_is_used_when_every_summary_has_one():
    lines = open(NEW, encoding="utf-8").read().splitlines()
    closing = json.loads(lines[-1])
    closing["decline_reasons"] = [{"reason": "xnnpack: layout, rank or dtype", "count": 8}]
    lines[-1] = json.dumps(closing)
    r = results.read_lines(lines, "x.jsonl")
    (s,) = summary.summarize(r)
    assert s.coverage.decline_reasons == [("xnnpack: layout, rank or dtype", 8)]


def test_cases_of_a_pass_the_backend_does_not_claim_stay_declined_but_the_minimum_applies_to_the_others():
    run = {"record": "run", "backend": "opt", "min_coverage": 1.0}
    passed = {"record": "case", "backend": "opt", "case_id": "s/0", "descriptor": "conv:c=1,o=1,in=3,k=1",
              "mode": "bound", "status": "passed", "kind": ""}
    unclaimed = dict(passed, case_id="s/1", status="unsupported", kind="declined", pass_not_claimed=True,
                     descriptor="conv:c=1,o=1,in=3,k=1,dir=bwd_d",
                     reason="the plugin does not claim prop_kind backward_data (1; ...)")
    lines = [json.dumps(x) for x in (run, passed, unclaimed)]
    _, s = only_lines(lines)
    cv = s.coverage
    assert (cv.executed, cv.declined, cv.pass_not_claimed, cv.total) == (1, 1, 1, 2)
    assert (cv.fraction, cv.claimed_fraction, cv.below_minimum) == (0.5, 1.0, False)
    assert "1 declined (1 of a pass the backend does not claim)" in s.pass_rate_text()
    forward_declined = dict(passed, case_id="s/2", status="unsupported", kind="declined", reason="no")
    _, s = only_lines(lines + [json.dumps(forward_declined)])
    assert s.coverage.below_minimum


def only_lines(lines):
    r = results.read_lines(lines, "x.jsonl")
    (s,) = summary.summarize(r)
    return r, s
