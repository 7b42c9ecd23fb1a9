"""Tolerance profiles in the report: per backend and profile, agreement with convcheck's verdict, false greens and
false reds, from the case records' "profiles"."""
from convcheck_report.profiles import profile_rows
from convcheck_report.results import Case


def case(status, profiles, case_id, reproducer=""):
    return Case(backend="a", case_id=case_id, op="conv", descriptor="conv:c=1,o=1,in=1,k=1", seed=1, mode="bound",
                status=status, kind="", kind_derived=False, reason="", features={}, error=None, time_ms=0.0,
                implementation="", reproducer=reproducer, shrunk_descriptor="", shrunk_reproducer="", shape_name="",
                source="r.jsonl:1", profiles=profiles)


def test_false_greens_and_false_reds_are_counted_apart():
    cases = [case("passed", {"webnn": True, "nnapi": None}, "c/0"),
             case("failed", {"webnn": True, "nnapi": False}, "c/1", "green"),
             case("passed", {"webnn": False, "nnapi": True}, "c/2", "red"),
             case("xfail", {"webnn": True}, "c/3"),  # no verdict of convcheck's to compare
             case("passed", {}, "c/4")]
    rows = {r.profile: r for r in profile_rows(cases, ["a"])}
    assert (rows["webnn"].judged, rows["webnn"].agree, rows["webnn"].false_green, rows["webnn"].false_red) == (3, 1, 1, 1)
    assert rows["webnn"].first_green == "green" and rows["webnn"].first_red == "red"
    assert (rows["nnapi"].judged, rows["nnapi"].agree) == (2, 2)  # no rule on c/0: not judged
