"""Per-backend counts, pass rate, settings, and the warnings about incomplete or inconsistent input."""
import pytest

from conftest import RUN_FILES, fixture_path
from convcheck_report import results, summary


def by_backend(result_set):
    return {s.backend: s for s in summary.summarize(result_set)}


def test_counts_per_backend_come_from_the_case_records(all_runs):
    s = by_backend(all_runs)
    assert s["onednn"].counts == {"passed": 4, "unchecked": 0, "failed": 1, "unsupported": 3, "crashed": 1,
                                  "hanged": 1, "xfail": 0, "xpass": 0}
    assert s["optimized"].counts == {"passed": 7, "unchecked": 0, "failed": 1, "unsupported": 0, "crashed": 0,
                                     "hanged": 0, "xfail": 1, "xpass": 1}
    assert (s["xnnpack"].total, s["xnnpack"].ran) == (7, 6)
    assert (s["xnnpack"].coverage.declined, s["xnnpack"].coverage.not_run) == (1, 0)


def test_pass_rate_counts_expected_results_among_the_cases_that_ran(all_runs):
    s = by_backend(all_runs)
    assert s["onednn"].pass_rate == pytest.approx(4 / 7)       # 3 unsupported are not in the denominator
    assert s["optimized"].pass_rate == pytest.approx(8 / 10)   # the xfail counts, the xpass does not
    assert summary.pass_rate(0, 0) is None


def test_shards_are_merged(all_runs):
    s = by_backend(all_runs)["xnnpack"]
    assert s.seconds == pytest.approx(0.3)
    assert s.exit_codes == [0, 1]
    assert not [w for w in all_runs.warnings if "shard" in w]


def test_a_missing_shard_is_a_warning():
    r = results.read_files([fixture_path("run_xnnpack_shard0.jsonl")])
    summary.summarize(r)
    assert any("shard(s) 1/2 missing" in w for w in r.warnings)


def test_summary_counts_that_disagree_with_the_cases_are_a_warning(all_runs):
    all_runs.cases = [c for c in all_runs.cases if c.case_id != "smoke/0002" or c.backend != "onednn"]
    summary.summarize(all_runs)
    assert [w for w in all_runs.warnings if "'onednn'" in w and "failed 1 vs 0" in w]


def test_fixtures_summary_records_agree_with_their_cases(all_runs):
    summary.summarize(all_runs)
    assert all_runs.warnings == []


def test_a_backend_only_in_bench_records_has_no_summary_row():
    r = results.read_files(RUN_FILES[:1] + [fixture_path("bench.jsonl")])
    assert [s.backend for s in summary.summarize(r)] == ["optimized"]
