"""Bench records: GFLOP/s and the ratio to the optimized implementation."""
import pytest

from conftest import fixture_path
from convcheck_report import performance, results


def perf(lines=None):
    r = results.read_lines(lines, "b.jsonl") if lines else results.read_files([fixture_path("bench.jsonl")])
    warnings = []
    return performance.performance(r.benches, warnings), warnings


def test_shapes_and_series_in_order_of_appearance():
    p, warnings = perf()
    assert p.shapes == ["resnet50/res2a_branch2b", "resnet50/res2b_branch2a", "mobilenet/conv_dw_1",
                        "cc/32to32_64x64_s2over3"]
    assert p.series == ["optimized", "onednn", "xnnpack"]
    assert warnings == []
    assert p.get("resnet50/res2a_branch2b", "onednn").gflops == 95.1
    assert p.get("cc/32to32_64x64_s2over3", "onednn") is None
    assert p.values("ratio")["onednn"] == [1.89, 1.69, 0.75, None]


def test_a_missing_ratio_is_optimized_ms_over_ms():
    p, _ = perf()
    assert p.get("mobilenet/conv_dw_1", "xnnpack").ratio == pytest.approx(0.41 / 0.2)


def test_one_backend_at_several_thread_counts_is_several_series():
    p, _ = perf(['{"record": "bench", "backend": "b", "shape_name": "s", "threads": 1, "ms": 2.0}',
                 '{"record": "bench", "backend": "b", "shape_name": "s", "threads": 2, "ms": 1.0}'])
    assert p.series == ["b (1 thread)", "b (2 threads)"]


def test_a_shape_without_name_is_named_by_its_descriptor_and_a_repeat_keeps_the_later_record():
    p, warnings = perf(['{"record": "bench", "backend": "b", "descriptor": "conv:c=1,o=1,in=3,k=1", "ms": 2.0}',
                        '{"record": "bench", "backend": "b", "descriptor": "conv:c=1,o=1,in=3,k=1", "ms": 1.0}'])
    assert p.shapes == ["conv:c=1,o=1,in=3,k=1"]
    assert p.get("conv:c=1,o=1,in=3,k=1", "b").ms == 1.0
    assert "already measured at b.jsonl:1" in warnings[0]


def test_chart_colours_follow_the_backend_and_keep_thread_counts_apart():
    from convcheck_report import charts
    colours = charts.series_colours(["a", "b"], ["a", "b (1 thread)", "b (2 threads)"])
    assert colours["a"] != colours["b"]
    assert colours["b (1 thread)"] == colours["b"]
    assert colours["b (2 threads)"] != colours["b (1 thread)"]


def test_rows_of_one_shape_in_series_order():
    p, _ = perf()
    assert [r.series for r in p.rows_for("cc/32to32_64x64_s2over3")] == ["optimized"]
    assert [r.series for r in p.rows_for("mobilenet/conv_dw_1")] == ["optimized", "onednn", "xnnpack"]
