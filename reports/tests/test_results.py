"""Reading the JSON-lines records: what is kept, what is tolerated, what is an error."""
import pytest

from conftest import RUN_FILES, case, fixture_path
from convcheck_report import results


def test_reads_every_record_kind_of_every_fixture(all_runs):
    assert len(all_runs.cases) == 10 + 10 + 3 + 4
    assert len(all_runs.runs) == 4
    assert len(all_runs.summaries) == 4
    assert all_runs.backends() == ["optimized", "onednn", "xnnpack"]
    bench = results.read_files([fixture_path("bench.jsonl")])
    assert len(bench.benches) == 10 and not bench.cases


def test_every_status_appears_in_the_fixtures(all_runs):
    unchecked = results.read_files([fixture_path("real_accuracy_mutants_unchecked.jsonl")])
    assert {c.status for c in all_runs.cases + unchecked.cases} == set(results.STATUSES)


def test_a_case_without_backend_takes_the_backend_of_its_files_run_record(all_runs):
    c = case(all_runs, "xnnpack", "smoke/0004")
    assert c.reproducer == "" and c.error["max_bound_fraction"] == 0.08


def test_unknown_keys_and_record_kinds_are_ignored(all_runs):
    c = case(all_runs, "xnnpack", "smoke/0002")
    assert c.features["dtype"] == "f16"           # "vector_isa" beside it is simply carried
    assert c.bound_fraction() == 0.93             # "future_field" in error does not matter
    assert not any("progress" in w for w in all_runs.warnings)


def test_missing_optional_keys_are_tolerated(all_runs):
    c = case(all_runs, "xnnpack", "smoke/0003")   # no op, seed, mode, features, error, reproducer
    assert (c.op, c.mode, c.features, c.error, c.bound_fraction()) == ("conv", "", {}, None, None)


def test_a_null_bound_fraction_with_mismatches_is_non_finite(all_runs):
    # the runner writes null for a non-finite max_bound_fraction (a NaN output)
    assert case(all_runs, "xnnpack", "smoke/0007").bound_fraction() == float("inf")
    c = case(all_runs, "xnnpack", "smoke/0007")
    c.error["mismatches"] = 0
    assert c.bound_fraction() is None
    assert case(all_runs, "xnnpack", "smoke/0007").shrunk_reproducer.startswith("convcheck run --backend xnnpack")


def test_case_id_falls_back_to_the_descriptor():
    r = results.read_lines(['{"record": "case", "backend": "b", "descriptor": "conv:c=1,o=1,in=3,k=1", '
                            '"status": "passed"}'], "x.jsonl")
    assert r.cases[0].case_id == "conv:c=1,o=1,in=3,k=1"


@pytest.mark.parametrize("line, words", [
    ('{"record": "case", "backend": "b", "case_id": "1"', ["x.jsonl:2", "not valid JSON"]),
    ('[1, 2]', ["x.jsonl:2", "list", "JSON object"]),
    ('{"backend": "b", "case_id": "1", "status": "passed"}', ["x.jsonl:2", "'record'", "missing"]),
    ('{"record": "case", "backend": "b", "case_id": "1", "status": "ok"}',
     ["x.jsonl:2", "'status'", "'ok'", "passed, unchecked, failed, unsupported, crashed, hanged, xfail, xpass"]),
    ('{"record": "case", "backend": "b", "case_id": "1"}', ["x.jsonl:2", "'status'", "None"]),
    ('{"record": "case", "case_id": "1", "status": "passed"}', ["x.jsonl:2", "'backend'", "missing"]),
    ('{"record": "case", "backend": "b", "status": "passed"}', ["x.jsonl:2", "case_id", "descriptor"]),
    ('{"record": "bench", "ms": 1.0}', ["x.jsonl:2", "'backend'"]),
    ('{"record": "case", "backend": "b", "case_id": "1", "status": "passed", "features": {"dtype": ["f32"]}}',
     ["x.jsonl:2", "'dtype'", "single value"]),
    ('{"record": "case", "backend": "b", "case_id": "1", "status": "passed", "features": {"post_ops": "relu"}}',
     ["x.jsonl:2", "'post_ops'", "JSON array"]),
    ('{"record": "case", "backend": "b", "case_id": "1", "status": "passed", "features": {"post_ops": [1]}}',
     ["x.jsonl:2", "'post_ops'", "string"]),
])
def test_bad_lines_are_errors_that_name_file_line_value_and_rule(line, words):
    with pytest.raises(results.ResultsError) as error:
        results.read_lines(["", line], "x.jsonl")
    for word in words:
        assert word in str(error.value)


def test_post_ops_feature_is_a_list_of_names():
    r = results.read_lines(['{"record": "case", "backend": "b", "case_id": "1", "status": "passed", '
                            '"features": {"post_ops": ["relu", "add:per_oc"]}}'], "x.jsonl")
    assert r.cases[0].features["post_ops"] == ["relu", "add:per_oc"]


def test_a_missing_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(results.ResultsError, match="nothing.jsonl: cannot read"):
        results.read_files([str(tmp_path / "nothing.jsonl")])


def test_a_newer_schema_is_read_with_a_warning():
    r = results.read_lines(['{"record": "run", "schema": 2, "backend": "b"}'], "x.jsonl")
    assert r.runs and "schema 2" in r.warnings[0]


def test_a_file_given_twice_counts_its_cases_once_and_says_so():
    r = results.read_files(RUN_FILES[:1] * 2)
    assert len(r.cases) == 10
    assert len(r.warnings) == 10 and "already read" in r.warnings[0]
