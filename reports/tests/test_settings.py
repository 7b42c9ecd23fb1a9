"""The Settings section: every key that defines a run, in a fixed order, and what the file does not say."""
from conftest import fixture_path
from convcheck_report import results, settings


def shown(result_set, backend):
    return {s.key: s for s in settings.backend_settings(result_set, backend).settings}


def test_shards_settings_are_joined_and_unknown_keys_shown_too(all_runs):
    s = shown(all_runs, "xnnpack")
    assert s["shard"].value == "0/2 / 1/2"
    assert s["backend_version"].value == "0.0~git20221221"
    assert s["ci_job"].value == "conformance-xnnpack-0"   # a key the schema does not name is shown too
    assert not [w for w in all_runs.warnings if "differ" in w]


def test_the_defining_keys_come_first_and_absent_ones_say_not_recorded(all_runs):
    listed = settings.backend_settings(all_runs, "onednn").settings
    keys = [s.key for s in listed]
    assert keys[:3] == ["backend_path", "backend", "backend_version"]
    assert "record" not in keys and "_source" not in keys
    options = [s for s in listed if s.key == "backend_options"][0]
    assert (options.recorded, options.value) == (False, "")      # today's runner does not write it


def test_a_run_record_of_the_new_schema_shows_every_setting():
    r = results.read_files([fixture_path("new_fields_xnnpack.jsonl")])
    s = shown(r, "xnnpack")
    assert all(x.recorded for k, x in s.items() if k in dict(settings.DEFINING))
    assert s["backend_options"].value == "threads_hint=1, layout=auto"
    assert s["mode_filter"].value == "all modes"
    assert s["suite_checksum"].value == "sha256:5be0c1d2e3f4"
    assert s["timeout_s"].value == "60 s"
    assert s["memory_limit_bytes"].value == "4294967296 bytes (4.0 GiB)"
    assert s["min_coverage"].value.startswith("0.1 (10.0 %")
    assert s["expectations_path"].value == "conformance/data/backends.json"


def test_shards_that_differ_in_a_defining_key_are_a_warning():
    lines = ['{"record": "run", "backend": "b", "seed": 1, "shard": "0/2"}',
             '{"record": "run", "backend": "b", "seed": 2, "shard": "1/2"}']
    r = results.read_lines(lines, "x.jsonl")
    assert shown(r, "b")["seed"].value == "1 / 2"
    assert [w for w in r.warnings if "'seed'" in w and "not shards of one run" in w]


def test_runs_of_different_suites_are_not_shards_and_not_a_warning():
    # the main job: smoke, then invalid, on one backend (their suites, checksums and case counts differ)
    lines = ['{"record": "run", "backend": "b", "suite": "smoke", "suite_checksum": "sha256:1", "cases_total": 106}',
             '{"record": "run", "backend": "b", "suite": "invalid", "suite_checksum": "sha256:2", "cases_total": 22}',
             '{"record": "run", "backend": "b", "suite": "smoke", "suite_checksum": "sha256:1", "cases_total": 106,'
             ' "seed": 3, "shard": "1/2"}',
             '{"record": "run", "backend": "b", "suite": "smoke", "suite_checksum": "sha256:1", "cases_total": 106,'
             ' "seed": 4, "shard": "0/2"}']
    r = results.read_lines(lines, "x.jsonl")
    assert shown(r, "b")["suite"].value == "smoke / invalid"
    warnings = [w for w in r.warnings if "not shards of one run" in w]
    # the two smoke shards disagree on the seed; nothing else is a warning
    assert len(warnings) == 1 and "'seed'" in warnings[0] and "of suite smoke" in warnings[0]
