"""The Failures section: every case whose result was not the expected one, of every backend and kind, with
its message, its worst output and the reproducer to run (the shrunk one where the runner shrank it).

Fixtures: new_fields_xnnpack.jsonl is written by hand to the schema with "kind" (one case of each kind);
the real_*.jsonl files are unchanged output of today's `convcheck run --json` (no "kind": it is derived).
"""
from conftest import RUN_FILES, fixture_path
from convcheck_report import failures, kinds, render, results

NEW = fixture_path("new_fields_xnnpack.jsonl")
MUTANTS = fixture_path("real_mutants_pad_off_by_one.jsonl")     # --backend mutants --backend-option mutant=pad_off_by_one
SEGFAULT = fixture_path("real_faultzoo_segfault.jsonl")         # --backend faultzoo --backend-option fault=segfault


def listed(result_set, limit=failures.ROWS_PER_GROUP):
    f = failures.failures(result_set.cases, result_set.backends(), limit)
    return f, {(row.case.backend, row.case.case_id): (g.kind, row) for g in f.groups for row in g.rows}


def test_every_kind_of_failure_is_listed_with_its_kind():
    r = results.read_files([NEW])
    f, rows = listed(r)
    assert {kind for kind, _ in rows.values()} == {"crash", "hang", "out_of_memory", "plugin_error", "mismatch",
                                                   "nan", "unwritten", "probe", "xpass"}
    assert f.total == len(rows) == 9
    assert f.kinds == [k for k in kinds.ORDER if k in f.kinds]            # in the report's order
    assert [row.case.case_id for g in f.expected for row in g.rows] == ["smoke/0012"]   # the xfail, apart
    declined = [c for c in r.cases if c.kind in ("declined", "over_memory_limit")]
    assert declined and not [c for c in declined if (c.backend, c.case_id) in rows]


def test_the_shrunk_reproducer_is_the_one_to_run_and_the_own_one_is_kept_beside_it():
    r = results.read_files([MUTANTS])
    _, rows = listed(r)
    failing = [c for c in r.cases if c.status == "failed"]
    assert len(rows) == len(failing) == 47
    for c in failing:
        row = rows[(c.backend, c.case_id)][1]
        assert c.shrunk_reproducer and row.reproducer == c.shrunk_reproducer and row.shrunk
        assert row.original == c.reproducer


def test_without_a_shrunk_reproducer_the_cases_own_is_shown():
    _, rows = listed(results.read_files([NEW]))
    kind, row = rows[("xnnpack", "smoke/0006")]
    assert kind == "hang" and not row.shrunk and row.reproducer == row.case.reproducer


def test_a_crash_only_run_is_a_list_of_crashes_with_shrunk_reproducers():
    _, rows = listed(results.read_files([SEGFAULT]))
    assert {k for k, _ in rows.values()} == {"crash"} and len(rows) == 2
    for _, row in rows.values():
        assert row.reproducer.endswith("--case 'conv:n=1,c=1,o=1,g=1,in=1,k=1,s=1,d=1,pb=0,pe=0,bias=0,dt=f32,"
                                       "data=ncx,wei=oix' --seed 7 --mode bound")
        assert row.case.reason == "SIGSEGV in execute: at address 0x0"


def test_kinds_are_derived_for_files_that_do_not_have_them():
    r = results.read_files([MUTANTS])
    by_mode = {}
    for c in r.cases:
        assert c.kind_derived
        by_mode.setdefault((c.status, c.mode), set()).add(c.kind)
    assert by_mode[("failed", "exact")] == {"mismatch"} and by_mode[("failed", "probe")] == {"probe"}
    assert by_mode[("unsupported", "bound")] == {"declined"} and by_mode[("passed", "bound")] == {""}
    r = results.read_files(RUN_FILES)
    assert {c.kind for c in r.cases if c.status == "crashed"} == {"crash"}
    assert {c.kind for c in r.cases if c.status == "hanged"} == {"hang"}
    assert not [c for c in results.read_files([NEW]).cases if c.kind_derived]


def test_derived_kinds_read_the_runners_reason_for_nan_unwritten_and_plugin_errors():
    assert kinds.derive("failed", "bound", True, "3 of 9 outputs exceed the error bound (...); NaN in 3 outputs "
                        "where the reference is finite") == "nan"
    assert kinds.derive("failed", "exact", True, "2 of 9 outputs differ ...; 2 outputs never written") == "unwritten"
    assert kinds.derive("failed", "bound", False, "xnnpack: setup failed") == "plugin_error"
    assert kinds.derive("failed", "bound", False, "leak: 1048576 bytes of heap not given back") == "leak"
    assert kinds.derive("xfail", "probe", True, "expected: X1 | NaN probe ...") == "probe"


def test_the_worst_output_is_shown_only_where_outputs_were_wrong():
    _, rows = listed(results.read_files([NEW]))
    assert rows[("xnnpack", "smoke/0003")][1].worst == {"index": [0, 1, 0, 5], "got": 11.0, "want": 12.0,
                                                          "bound": 0.0}
    assert rows[("xnnpack", "smoke/0004")][1].worst is None     # probe: the runner names no single output
    assert rows[("xnnpack", "smoke/0009")][1].worst is None     # xpass: every output was right


def test_a_large_group_lists_its_first_rows_and_says_how_many_more():
    f, _ = listed(results.read_files([MUTANTS]), limit=5)
    mismatch = [g for g in f.groups if g.kind == "mismatch"][0]
    assert (len(mismatch.rows), mismatch.omitted) == (5, mismatch.total - 5)
    assert f.total == 47


def test_the_page_opens_with_the_failures_and_their_copyable_reproducers():
    page = render.render(results.read_files([SEGFAULT]), generated="now")
    assert page.index('id="failures"') < page.index('id="summary"') < page.index('id="settings"')
    section = page[page.index('id="failures"'):page.index('id="summary"')]
    assert "2 failures</strong>" in section and "SIGSEGV in execute: at address 0x0" in section
    shrunk = "in=1,k=1,s=1,d=1,pb=0,pe=0,bias=0,dt=f32,data=ncx,wei=oix&#39; --seed 7 --mode bound</code>"
    assert section.count(shrunk) == 2
    assert section.count('<button type="button" class="copy" data-target="failure--') == 2


def test_a_page_without_failures_says_so_and_does_not_call_nothing_a_pass(tmp_path):
    r = results.read_lines(['{"record": "run", "backend": "b"}',
                            '{"record": "case", "case_id": "1", "status": "unsupported", "reason": "no"}',
                            '{"record": "summary", "backend": "b"}'], "x.jsonl")
    assert "No case executed: there is no verdict to give." in render.render(r, generated="now")
    r = results.read_files([fixture_path("real_xnnpack_smoke.jsonl")])
    assert "No failures: each of the 8 executed cases had the expected result" in render.render(r, generated="now")


def test_the_worst_cases_table_says_it_includes_passing_cases_and_points_at_the_failures():
    page = render.render(results.read_files([NEW]), generated="now")
    accuracy = page[page.index('id="accuracy"'):page.index('id="performance"')]
    assert "passing ones included" in accuracy and "This is not the list of failures" in accuracy
    assert "8 of the 9 failures are not in this table" in accuracy


def test_many_warnings_fold_so_that_the_failures_stay_near_the_top():
    r = results.read_files(RUN_FILES[:1] * 2)      # ten "already read" warnings, and the summaries' counts
    page = render.render(r, generated="now")
    shown = page[page.index('id="warnings"'):page.index("<details>")]
    assert len(r.warnings) > 10
    assert shown.count("<li>") == 8 and f"<summary>{len(r.warnings) - 8} more warnings</summary>" in page


def test_a_probe_only_failure_is_on_the_page_under_failures():
    # the probe-mode cases of the real mutants run: no bound fraction, no located outputs
    lines = [line for line in open(MUTANTS, encoding="utf-8").read().splitlines()
             if '"record":"case"' not in line or '"mode":"probe"' in line]
    r = results.read_lines(lines, "probe_only.jsonl")
    page = render.render(r, generated="now")
    section = page[page.index('id="failures"'):page.index('id="summary"')]
    probes = [c for c in r.cases if c.status == "failed"]
    assert probes and all(c.kind == "probe" for c in probes)
    assert f"{len(probes)} failures</strong>" in section
    assert all(c.shrunk_reproducer.replace("'", "&#39;") in section for c in probes)
    assert "No failing case with located mismatching outputs (the" in page


def test_an_accepted_invalid_case_is_listed_under_its_kind_with_the_rule_and_its_reproducer():
    # unchanged output of: convcheck run --backend mutants --backend-option mutant=invalid_accepted --suite invalid
    r = results.read_files([fixture_path("real_mutants_invalid_accepted.jsonl")])
    f, rows = listed(r)
    accepted = [row for kind, row in rows.values() if kind == "accepted_invalid"]
    assert len(accepted) == 9 and "crash" in f.kinds and "out_of_memory" in f.kinds
    group = next(g for g in f.groups if g.kind == "accepted_invalid")
    assert group.description == kinds.DESCRIPTIONS["accepted_invalid"]
    row = next(row for row in accepted if row.case.case_id == "invalid/0004")
    assert "accepted an invalid case: in_channels (c) = 3: must be divisible by groups = 2" in row.case.reason
    assert row.reproducer.endswith("--mode invalid") and not row.shrunk
    html = render.render(r, generated="now")
    assert "accepted_invalid" in html and "must be divisible by groups = 2" in html


def _with_judged_by(tmp_path):
    """new_fields_xnnpack.jsonl with its mismatch judged by a declared whole-tensor bound that would have to
    grow 3.25x, as `convcheck run` writes it (docs/results-schema.md, error.judged_by / bound_growth_needed)."""
    import json
    lines = []
    with open(NEW) as f:
        for line in f:
            record = json.loads(line)
            if record.get("kind") == "mismatch" and isinstance(record.get("error"), dict):
                record["error"]["judged_by"] = "whole_tensor"
                record["error"]["bound_growth_needed"] = 3.25
            lines.append(json.dumps(record))
    path = tmp_path / "judged.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return results.read_files([str(path)])


def test_a_failure_names_the_bound_that_judged_it_and_how_far_it_would_have_to_grow(tmp_path):
    r = _with_judged_by(tmp_path)
    _, rows = listed(r)
    mismatch = [row for kind, row in rows.values() if kind == "mismatch"]
    assert mismatch and all(row.judged_by == "whole_tensor" and row.growth == 3.25 for row in mismatch)
    page = render.render(r)
    assert "judged by whole_tensor · the bound ×3.25 would pass" in page
    from convcheck_report import accuracy
    counts = {(j.backend, j.judged_by): (j.cases, j.failed) for j in accuracy.judged_by_counts(r.cases)}
    assert counts[("xnnpack", "whole_tensor")] == (len(mismatch), len(mismatch))
    assert 'id="judged-by"' in page


def test_a_judged_by_that_is_not_text_is_refused(tmp_path):
    import json
    import pytest
    record = json.loads(open(NEW).readlines()[3])
    record["error"]["judged_by"] = 7
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(results.ResultsError, match="judged_by"):
        results.read_files([str(path)])


def test_every_kind_of_the_schema_has_a_description():
    # docs/results-schema.md's table of kinds is what a writer may put in "kind"; a kind the report does not
    # know would be listed last, without saying what went wrong.
    import os
    import re
    from conftest import REPORTS
    with open(os.path.join(os.path.dirname(REPORTS), "docs", "results-schema.md"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("### `kind`"):]
    table = table[:table.index("\n#", 1)]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.M))
    assert documented and documented == set(kinds.DESCRIPTIONS), documented ^ set(kinds.DESCRIPTIONS)
