"""Suite strength: the report shows the kill matrix of `convcheck selftest --json` and the pair coverage of
`convcheck list --suite S --json` (issue 16) when those files are among its inputs, and refuses them when a
field has the wrong type, like any result record.

Fixtures, unchanged output of today's convcheck:
  selftest_smoke_bound.jsonl  convcheck selftest --suite smoke --mode bound --mutant none --mutant bias_dropped
                              --mutant ties_away --mutant cc_bias_dropped --mutant honest_fma --json FILE
                              (bound mode only, so that ties_away is missed and bias_dropped is caught, but not
                              in the exact check meant for it: one row of every verdict)
  design_smoke.jsonl          convcheck list --suite smoke --json
  design_pairwise.jsonl       convcheck list --suite pairwise --json
"""
import json
import re

import pytest

from conftest import RUN_FILES, fixture_path
from convcheck_report import render, results, strength
from convcheck_report.fields import ResultsError

SELFTEST = fixture_path("selftest_smoke_bound.jsonl")
SMOKE = fixture_path("design_smoke.jsonl")
PAIRWISE = fixture_path("design_pairwise.jsonl")


def test_the_kill_matrix_is_read_with_every_mutant_and_its_verdict():
    r = results.read_files([SELFTEST])
    (s,) = r.selftests
    assert (s.suite, s.bugs, s.killed, s.missed) == ("smoke", 3, 2, ["ties_away"])
    verdicts = {m.name: m.verdict for m in s.mutants}
    assert verdicts == {"none": "passes", "bias_dropped": "killed*", "ties_away": "MISSED",
                        "cc_bias_dropped": "killed", "honest_fma": "passes"}
    bias = next(m for m in s.mutants if m.name == "bias_dropped")
    assert bias.caught_in("bound") and not bias.caught_in("exact")
    assert [c for c, _ in s.classes()] == ["baseline", "bias", "rounding", "cc", "honest"]
    assert r.warnings == [] and not r.file_infos[0].incomplete


def test_the_design_is_read_and_its_pair_counts_add_up():
    r = results.read_files([SMOKE, PAIRWISE])
    smoke, pairwise = r.designs
    assert (pairwise.suite, pairwise.covered, pairwise.total, pairwise.missing) == ("pairwise", 320, 320, [])
    assert 0 < smoke.covered < smoke.total == 320 and len(smoke.missing) == smoke.total - smoke.covered
    for d in (smoke, pairwise):
        assert len(d.by_factors) == 36
        assert sum(p.covered for p in d.by_factors) == d.covered
        assert sum(p.total for p in d.by_factors) == d.total
        assert d.factors()[:3] == ["rank", "groups", "dilation"]


def page(paths):
    return render.render(results.read_files(paths), generated="fixed")


def test_the_page_shows_the_kill_matrix_and_the_pair_coverage_beside_the_runs():
    html = page(RUN_FILES + [SELFTEST, SMOKE, PAIRWISE])
    assert '<a href="#strength">Suite strength</a>' in html and '<section id="strength">' in html
    assert 'data-kills="2/3"' in html and "missed: ties_away" in html
    for name, verdict in (("ties_away", "MISSED"), ("bias_dropped", "killed*"), ("honest_fma", "passes")):
        assert f'data-mutant="{name}" data-verdict="{verdict}"' in html
    smoke = results.read_files([SMOKE]).designs[0]
    assert f'data-pairs="{smoke.covered}/{smoke.total}"' in html and 'data-pairs="320/320"' in html
    # the per-attribute table: one cell per two attributes, e.g. rank x groups
    rank_groups = smoke.pair("rank", "groups")
    assert f'title="rank × groups">{rank_groups.covered}/{rank_groups.total}</td>' in html
    assert f"{len(smoke.missing)} pairs no case covers" in html


def test_without_those_files_there_is_no_strength_section():
    html = page(RUN_FILES)
    assert 'id="strength"' not in html and "#strength" not in html


def test_a_cc_only_suite_has_no_design_to_show():
    record = {"record": "design", "suite": "cc", "cases": 20, "conv_descriptors": 0, "distribution": {},
              "pair_coverage": {"covered": 0, "total": 320, "fraction": 0.0, "missing": [], "by_factors": []}}
    r = results.read_lines([json.dumps(record)], "cc.jsonl")
    assert len(r.designs) == 1 and strength.designs_to_show(r.designs) == []


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(mutants="all"), "selftest attribute 'mutants' is 'all': it must be a JSON array"),
    (lambda s: s["mutants"][0].update(failed={"bound": "3"}), "selftest mutant failed attribute 'bound' is '3'"),
    (lambda s: s.update(missed=[1]), "selftest attribute 'missed' holds a value that is not a string"),
    (lambda s: s.update(bugs=-1), "selftest attribute 'bugs' is -1: it must be a whole number"),
])
def test_a_kill_matrix_with_a_wrong_type_is_refused_naming_the_attribute(edit, message):
    record = json.loads(open(SELFTEST, encoding="utf-8").read())
    edit(record)
    with pytest.raises(ResultsError, match=re.escape(message)):
        results.read_lines([json.dumps(record)], "kills.jsonl")


def test_a_design_with_a_wrong_type_is_refused_naming_the_attribute():
    record = json.loads(open(PAIRWISE, encoding="utf-8").read())
    record["pair_coverage"]["by_factors"][0] = {"factors": "rank", "covered": 1, "total": 1}
    with pytest.raises(ResultsError, match="design pair_coverage attribute 'by_factors' holds"):
        results.read_lines([json.dumps(record)], "design.jsonl")
