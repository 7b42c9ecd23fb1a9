"""Error as a fraction of the bound, worst cases, border vs interior."""
import pytest

from conftest import case
from convcheck_report import accuracy


def by_key(distributions):
    return {(d.backend, d.dtype): d for d in distributions}


def test_histograms_are_summed_per_backend_and_dtype(all_runs):
    d = by_key(accuracy.distributions(all_runs.cases))
    f16 = d[("onednn", "f16")]   # smoke/0002 (failed) + smoke/0006 (passed)
    assert f16.cases == 2
    assert f16.histogram == [250, 68, 44, 32, 20, 10, 5, 2, 1, 0, 32]
    assert (f16.outputs, f16.over_bound, f16.worst, f16.median) == (464, 32, 14.0, pytest.approx(7.2))
    assert sum(f16.fractions()) == pytest.approx(1.0)


def test_only_bound_mode_cases_enter_the_distribution(all_runs):
    d = by_key(accuracy.distributions(all_runs.cases))
    # optimized f32: smoke/0001, 0005, 0007, 0008 are bound mode; 0004 (exact), 0009/0010 (probe) are not
    assert d[("optimized", "f32")].cases == 4
    # xnnpack f32: smoke/0005 is exact mode and failed: not a bound fraction; 0007 has NaN outputs
    assert d[("xnnpack", "f32")].cases == 4
    assert d[("xnnpack", "f32")].worst == float("inf") and d[("xnnpack", "f32")].over_bound == 3
    assert ("onednn", "bf16") not in d     # crashed: no error record


def test_a_malformed_histogram_is_left_out_not_guessed(all_runs):
    c = case(all_runs, "onednn", "smoke/0001")
    c.error["bound_fraction_histogram"] = [1, 2, 3]
    assert accuracy.histogram(c) is None
    assert by_key(accuracy.distributions(all_runs.cases))[("onednn", "f32")].outputs == 0


def test_worst_cases_are_sorted_by_bound_fraction(all_runs):
    worst = accuracy.worst_cases(all_runs.cases, n=4)
    assert [(c.backend, c.case_id, c.bound_fraction()) for c in worst] == [
        ("xnnpack", "smoke/0007", float("inf")), ("onednn", "smoke/0002", 14.0), ("optimized", "smoke/0005", 3.2),
        ("optimized", "smoke/0006", 1.8)]


def test_error_locations_of_failing_cases(all_runs):
    rows, totals = accuracy.error_locations(all_runs.cases)
    assert sorted((r.case.backend, r.case.case_id) for r in rows) == [
        ("onednn", "smoke/0002"), ("optimized", "smoke/0005"), ("optimized", "smoke/0006"),
        ("xnnpack", "smoke/0005"), ("xnnpack", "smoke/0007")]
    t = {x.backend: x for x in totals}
    assert (t["onednn"].border, t["onednn"].interior) == (2, 30)
    assert t["onednn"].border_share() == pytest.approx(2 / 32)
    assert (t["optimized"].cases, t["optimized"].border, t["optimized"].interior) == (2, 16, 0)
    assert (t["xnnpack"].cases, t["xnnpack"].border, t["xnnpack"].border_share()) == (2, 10, 1.0)


def test_reproducer_is_the_records_own_or_built_from_the_schema_fields(all_runs):
    c = case(all_runs, "optimized", "smoke/0005")
    assert accuracy.default_reproducer(c) == c.reproducer
    c = case(all_runs, "xnnpack", "smoke/0003")
    assert accuracy.default_reproducer(c) == ("convcheck run --backend xnnpack --case 'conv:n=1,c=8,o=8,g=8,"
                                              "in=9x9,k=3x3,d=2x2,pb=2x2,pe=2x2,bias=1,dt=bf16,data=nxc,wei=xio'")
