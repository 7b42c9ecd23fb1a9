"""The feature matrix and the per-feature case tables its cells link to."""
from conftest import case
from convcheck_report import features


def test_values_come_from_the_features_object(all_runs):
    v = features.feature_values(case(all_runs, "optimized", "smoke/0006"))
    assert v == {"dialect": "onnx", "padding": "same_upper", "groups": "no", "depthwise": "no",
                 "dilation": "no", "strided": "yes", "rank": "2", "layout": "nxc/oix", "dtype": "f16",
                 "bias": "no", "cc": "no", "memory_strided": "no", "post_ops": ("none",)}
    cc = features.feature_values(case(all_runs, "optimized", "smoke/0008"))
    assert (cc["cc"], cc["layout"]) == ("yes", "ncx")   # "filter_format": null: a CC layer has no weights tensor


def test_values_missing_from_features_are_read_from_the_descriptor(all_runs):
    # no "features" at all: conv:n=1,c=8,o=8,g=8,in=9x9,k=3x3,d=2x2,pb=2x2,pe=2x2,bias=1,dt=bf16,data=nxc,wei=xio
    v = features.feature_values(case(all_runs, "xnnpack", "smoke/0003"))
    assert v == {"dialect": "canonical", "padding": "symmetric", "groups": "yes", "depthwise": "yes",
                 "dilation": "yes", "strided": "no", "rank": "2", "layout": "nxc/xio", "dtype": "bf16",
                 "bias": "yes", "cc": "no", "memory_strided": "no", "post_ops": ("none",)}
    # only "dtype" given: conv:n=1,c=2,o=3,g=1,in=12,k=3,s=1,d=3,pb=0,pe=0,...
    v = features.feature_values(case(all_runs, "xnnpack", "smoke/0006"))
    assert (v["rank"], v["dilation"], v["padding"], v["groups"], v["layout"]) == ("1", "yes", "none", "no",
                                                                                 "nxc/oix")


def test_a_cc_descriptor_without_features_is_read_as_a_cc_layer(all_runs):
    c = case(all_runs, "onednn", "smoke/0009")
    c.features = {}
    v = features.feature_values(c)
    assert (v["cc"], v["layout"], v["rank"], v["padding"], v["groups"], v["dtype"]) == ("yes", "ncx", "2", "none",
                                                                                        "no", "f32")


def test_descriptor_padding_kinds():
    class Case:
        features, op = {}, "conv"

        def __init__(self, descriptor):
            self.descriptor = descriptor

    def padding(text):
        return features.feature_values(Case(text))["padding"]

    assert padding("conv:c=1,o=1,in=9x9,k=3,pb=1,pe=1") == "symmetric"
    assert padding("conv:c=1,o=1,in=9x9,k=3,pb=0x1,pe=1x1") == "asymmetric"
    assert padding("conv:c=1,o=1,in=9x9,k=3,pb=0,pe=-1") == "negative"
    assert padding("conv:c=1,o=1,in=9x9,k=3") == "none"
    assert padding("not a descriptor") == "unknown"


def cells(all_runs):
    backends = ["optimized", "onednn", "xnnpack"]
    matrix = features.build_matrix(all_runs.cases, backends)
    return {(row.feature, row.value, b): cell for row in matrix for b, cell in zip(backends, row.cells)}


def test_a_cell_takes_the_most_severe_status_of_the_cases_that_ran(all_runs):
    c = cells(all_runs)
    assert c[("dtype", "bf16", "onednn")].state == "crashed"
    assert c[("dtype", "f16", "onednn")].state == "failed"
    assert c[("dialect", "tf", "onednn")].state == "hanged"
    assert c[("dialect", "tf", "optimized")].state == "xpass"
    assert c[("dialect", "onnx", "optimized")].state == "xfail"
    assert c[("cc", "yes", "optimized")].state == "passed"


def test_declined_and_empty_cells(all_runs):
    c = cells(all_runs)
    cc = c[("cc", "yes", "onednn")]
    assert (cc.state, cc.ran, cc.counts["unsupported"], cc.partial) == ("unsupported", 0, 2, False)
    assert c[("rank", "3", "xnnpack")].state == "empty"
    f32 = c[("dtype", "f32", "onednn")]
    assert f32.partial and (f32.good, f32.ran) == (3, 4) and f32.state == "hanged"


def test_every_cell_counts_each_case_once_per_feature(all_runs):
    c = cells(all_runs)
    for key, _, _ in features.FEATURES:
        for backend, n in (("optimized", 10), ("onednn", 10), ("xnnpack", 7)):
            assert sum(cell.total for (f, _, b), cell in c.items() if f == key and b == backend) == n


def test_matrix_rows_are_grouped_by_feature_in_a_stable_order(all_runs):
    matrix = features.build_matrix(all_runs.cases, ["onednn"])
    dialects = [r.value for r in matrix if r.feature == "dialect"]
    assert dialects == ["canonical", "onnx", "tf", "cntk", "xnnpack"]
    first = [r for r in matrix if r.first_of_feature]
    assert [r.feature for r in first] == [k for k, _, _ in features.FEATURES]
    assert first[0].feature_rows == 5


def test_anchors_are_valid_ids_and_distinct():
    a, b = features.anchor("layout", "ncx/oix", "b"), features.anchor("layout", "ncx_oix", "b")
    assert a != b
    assert all(ch.isalnum() or ch in "-_" for ch in a + b)


def test_every_cell_links_to_a_case_group_of_the_same_cases(all_runs):
    backends = ["optimized", "onednn", "xnnpack"]
    groups = {g.anchor: g for t in features.build_case_tables(all_runs.cases, backends, limit=100)
              for g in t.groups}
    for (feature, value, backend), cell in cells(all_runs).items():
        if cell.state == "empty":
            assert cell.anchor not in groups
        else:
            assert len(groups[cell.anchor].cases) == cell.total


def test_case_groups_list_failures_first_and_cap_the_passed_ones(all_runs):
    tables = features.build_case_tables(all_runs.cases, ["optimized"], limit=2)
    f32 = next(t for t in tables if t.feature == "dtype" and t.value == "f32")
    group = f32.groups[0]
    assert [c.status for c in group.cases] == ["failed", "xpass", "passed", "passed"]
    assert group.omitted_passed == 3   # 5 passed f32 cases, 2 shown
    tables = features.build_case_tables(all_runs.cases, ["optimized"], limit=0, other_limit=1)
    ungrouped = next(t for t in tables if t.feature == "groups" and t.value == "no").groups[0]
    assert [c.status for c in ungrouped.cases] == ["failed"]   # of failed, xpass, xfail: the most severe
    assert (ungrouped.omitted_other, ungrouped.omitted_passed) == (2, 5)


class _Case:
    op, backend, status = "conv", "onednn", "passed"

    def __init__(self, descriptor, features=None, backend="onednn", status="passed"):
        self.descriptor, self.features, self.backend, self.status = descriptor, features or {}, backend, status
        self.case_id = descriptor

    def bound_fraction(self):
        return None


def test_post_ops_are_named_by_what_they_compute():
    v = features.feature_values(_Case("conv:c=4,o=8,in=7x7,k=3,po=relu+clip:-2:40+add:per_oc+mul:per_tensor:s8"))
    assert v["post_ops"] == ("relu", "clip", "add:per_oc", "mul:per_tensor:s8")
    # the runner's features win over the descriptor
    v = features.feature_values(_Case("conv:c=4,o=8,in=7x7,k=3,po=relu", {"post_ops": ["gelu_erf", "sum"]}))
    assert v["post_ops"] == ("gelu_erf", "sum")
    assert features.feature_values(_Case("conv:c=4,o=8,in=7x7,k=3"))["post_ops"] == ("none",)


def test_a_chain_counts_under_each_of_its_ops():
    cases = [_Case("conv:c=4,o=8,in=7x7,k=3,po=relu+sum"),
             _Case("conv:c=4,o=8,in=7x7,k=3,po=relu", status="failed"),
             _Case("conv:c=4,o=8,in=7x7,k=3", backend="xnnpack", status="unsupported")]
    matrix = features.build_matrix(cases, ["onednn", "xnnpack"])
    rows = {row.value: row.cells for row in matrix if row.feature == "post_ops"}
    assert list(rows) == ["none", "relu", "sum"]
    assert (rows["relu"][0].ran, rows["relu"][0].good, rows["relu"][0].state) == (2, 1, "failed")
    assert (rows["sum"][0].ran, rows["sum"][0].good) == (1, 1)
    assert rows["none"][1].state == "unsupported"
    tables = {t.value: t for t in features.build_case_tables(cases, ["onednn", "xnnpack"]) if t.feature == "post_ops"}
    assert len(tables["relu"].groups[0].cases) == 2
