"""The requantization rule each backend follows, from its quantized cases' "requantization_fit"."""
from convcheck_report.quantized import observed_rules
from convcheck_report.results import Case


def case(backend, fit, case_id="q/0"):
    return Case(backend=backend, case_id=case_id, op="conv_quantized", descriptor="qconv:c=1,o=1,in=1,k=1", seed=1,
                mode="exact", status="passed", kind="", kind_derived=False, reason="", features={}, error=None,
                time_ms=0.0, implementation="", reproducer="", shrunk_descriptor="", shrunk_reproducer="",
                shape_name="", source="r.jsonl:1", requantization_fit=fit)


def test_the_rules_every_case_fits_in_the_references_order():
    cases = [case("a", ["nearest_even_f32_with_zero_point", "nearest_even_f32", "single_rounding"], "q/0"),
             case("a", ["nearest_even_f32", "nearest_even_f32_with_zero_point"], "q/1"),
             case("a", ["nearest_even_f32_with_zero_point"], "q/2"),
             case("b", ["nearest_even_f32"]), case("c", []), case("d", None)]
    rows = {r.backend: r for r in observed_rules(cases, ["a", "b", "c", "d"])}
    assert rows["a"].cases == 3 and rows["a"].rules == ["nearest_even_f32_with_zero_point"]
    assert rows["b"].rules == ["nearest_even_f32"]
    assert rows["c"].cases == 1 and rows["c"].rules == []  # follows none of the four
    assert "d" not in rows  # no quantized case with a recorded fit
