"""Unchecked cases (docs/accuracy.md, vacuous bounds): a case the accuracy contract could not check is read,
counted, listed and rendered as "unchecked", never as passed.

Fixture: real_accuracy_mutants_unchecked.jsonl is unchanged output of `convcheck run --backend accuracy_mutants
--backend-option mutant=zeros --case 'conv:n=1,c=256,o=2,g=1,in=3x3,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f16,
data=ncx,wei=oix' --mode bound --json ...`: all zeros, f16 accumulation declared, 2,304 terms (exit code 1).
"""
from conftest import fixture_path
from convcheck_report import failures, render, results, statuses, summary

UNCHECKED = fixture_path("real_accuracy_mutants_unchecked.jsonl")


def test_the_case_is_read_as_unchecked_with_its_kind():
    r = results.read_files([UNCHECKED])
    [c] = r.cases
    assert (c.status, c.kind, c.kind_derived) == ("unchecked", "vacuous_bound", False)
    assert c.error["judged_by"] == "unchecked"
    assert c.reason.startswith("unchecked, not counted as passed: ")
    assert not r.warnings


def test_an_unchecked_case_is_neither_a_pass_nor_a_failure():
    assert "unchecked" in statuses.STATUSES and "unchecked" not in statuses.GOOD | statuses.BAD
    r = results.read_files([UNCHECKED])
    [s] = summary.summarize(r)
    assert s.counts["unchecked"] == 1 and s.counts["passed"] == 0
    assert (s.good, s.pass_rate) == (0, 0.0)
    assert s.exit_codes == [1]
    f = failures.failures(r.cases, r.backends())
    assert f.total == 0 and f.unchecked_total == 1
    assert [(g.kind, g.total) for g in f.unchecked] == [("vacuous_bound", 1)]


def test_the_page_lists_the_unchecked_case_and_does_not_call_the_run_clean():
    page = render.render(results.read_files([UNCHECKED]), generated="now")
    section = page[page.index('id="failures"'):page.index('id="summary"')]
    assert "No failures: each of" not in section
    assert "Unchecked (1)" in section and "1 case unchecked</strong>" in section
    assert "--allow-unchecked" in section and "unchecked, not counted as passed" in section
