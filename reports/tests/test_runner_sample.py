"""fixtures/runner_sample_xnnpack.jsonl is real output of `convcheck run --backend xnnpack --suite smoke
--json` (2026-11-22), cut down to five cases with the summary counts made to match: it keeps the reader in
step with what the runner actually writes (key order, null dialect, shape names, probe-mode errors)."""
from conftest import fixture_path
from convcheck_report import accuracy, features, results, settings, summary

SAMPLE = fixture_path("runner_sample_xnnpack.jsonl")


def test_the_runners_output_reads_without_warnings():
    r = results.read_files([SAMPLE])
    (s,) = summary.summarize(r)
    assert r.warnings == []
    assert (s.backend, s.total, s.counts["xfail"], s.pass_rate) == ("xnnpack", 5, 1, 1.0)
    assert all(c.shape_name for c in r.cases)
    shown = {x.key: x.value for x in settings.backend_settings(r, "xnnpack").settings}
    assert shown["backend_version"] == "unknown"


def test_a_probe_mode_failure_is_neither_a_worst_case_nor_located():
    r = results.read_files([SAMPLE])
    (probe,) = [c for c in r.cases if c.status == "xfail"]
    assert probe.mode == "probe" and probe.error["mismatches"] > 0
    assert probe not in accuracy.worst_cases(r.cases)
    assert accuracy.error_locations(r.cases) == ([], [])


def test_its_features_fill_the_matrix():
    r = results.read_files([SAMPLE])
    for c in r.cases:
        assert "unknown" not in features.feature_values(c).values()
