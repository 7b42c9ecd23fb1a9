"""Two runs compared: newly failing, newly passing."""
from conftest import fixture_path
from convcheck_report import results
from convcheck_report.compare import compare


def keys(changes):
    return [c.key for c in changes]


def test_before_and_after_of_one_backend():
    before = results.read_files([fixture_path("before_onednn.jsonl")])
    after = results.read_files([fixture_path("after_onednn.jsonl")])
    c = compare(before, after)
    assert not c.across_backends
    assert keys(c.newly_failing) == ["onednn: cmp/01", "onednn: cmp/05"]     # passed -> failed, -> crashed
    assert keys(c.newly_passing) == ["onednn: cmp/02", "onednn: cmp/04"]     # failed -> passed, unsupported ->
    assert keys(c.other_changes) == ["onednn: cmp/06"]                       # failed -> xfail
    assert keys(c.only_before) == ["onednn: cmp/07"] and keys(c.only_after) == ["onednn: cmp/08"]
    assert c.unchanged == 1
    assert c.counts_before["failed"] == 2 and c.counts_after["crashed"] == 1


def test_two_backends_on_the_same_suite_are_matched_by_case_id():
    optimized = results.read_files([fixture_path("run_optimized.jsonl")])
    onednn = results.read_files([fixture_path("run_onednn.jsonl")])
    c = compare(optimized, onednn)
    assert c.across_backends and c.before_label.endswith("(optimized)")
    # passed -> failed, passed -> crashed; xpass -> hanged was already bad, so it is another change
    assert keys(c.newly_failing) == ["smoke/0002", "smoke/0003"]
    assert keys(c.newly_passing) == ["smoke/0006"]                           # xfail -> passed
    assert keys(c.other_changes) == ["smoke/0005", "smoke/0007", "smoke/0008", "smoke/0009"]
    assert c.unchanged == 3 and not c.only_before and not c.only_after


def test_a_run_compared_with_itself_has_no_change():
    run = results.read_files([fixture_path("run_onednn.jsonl")])
    c = compare(run, run)
    assert (c.newly_failing, c.newly_passing, c.other_changes, c.unchanged) == ([], [], [], 10)
