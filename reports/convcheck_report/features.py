"""The feature matrix (backend x feature value, each cell coloured by status) and the per-feature case
tables its cells link to.

A case's features come from its "features" object (docs/results-schema.md). Where a writer left one out,
it is read from the canonical descriptor string (README: `conv:n=1,c=64,o=64,g=1,in=56x56,k=3x3,...`), and
where neither says, the value is "unknown".
"""
from dataclasses import dataclass, field

from .statuses import GOOD, STATUSES, severity_rank

# (key, title, preferred order of values: listed values first, then any other in sorted order)
FEATURES = [
    ("dialect", "Dialect", ["canonical", "onnx", "tf", "openvino", "onednn", "pytorch", "cntk", "xnnpack"]),
    ("padding", "Padding mode", ["none", "symmetric", "asymmetric", "negative"]),
    ("groups", "Groups (g > 1)", ["no", "yes"]),
    ("depthwise", "Depthwise (g = c)", ["no", "yes"]),
    ("dilation", "Dilation (d > 1)", ["no", "yes"]),
    ("strided", "Strides (s > 1)", ["no", "yes"]),
    ("rank", "Spatial rank", ["1", "2", "3"]),
    ("layout", "Layout (data/weights)", ["ncx/oix", "ncx/xio", "nxc/oix", "nxc/xio", "ncx/oxi", "nxc/oxi", "ncx"]),
    ("memory_strided", "Memory strides (non-dense)", ["no", "yes"]),
    ("dtype", "Data type", ["f32", "f16", "bf16"]),
    ("bias", "Bias", ["no", "yes"]),
    ("cc", "Continuous conv (CC)", ["no", "yes"]),
    ("post_ops", "Fused post-op (each op)", ["none"]),
]
# A case belongs to one value of every feature except these, where it belongs to each value it has (a chain
# relu+sum counts under "relu" and under "sum").
MULTI_VALUED = {"post_ops"}
BINARY_POST_OPS = {"add", "mul", "max", "min", "sub", "div", "prelu"}
FEATURE_TITLES = {key: title for key, title, _ in FEATURES}

# A per-feature case table lists, per backend, at most PASSED_ROWS_LIMIT passed cases and at most
# OTHER_ROWS_LIMIT others (most severe first): a large run has thousands of cases, each appears once per
# feature, and eleven copies of them all would make a page too big to open.
PASSED_ROWS_LIMIT = 20
OTHER_ROWS_LIMIT = 100


def parse_descriptor(text):
    """The key=value pairs of a canonical descriptor string, e.g. "conv:n=1,c=16,in=8x8" -> {"n": "1", ...}.
    Returns {} for text that is not in that form."""
    if ":" not in text:
        return {}
    body = text.split(":", 1)[1]
    pairs = {}
    for item in body.split(","):
        if "=" in item:
            key, value = item.split("=", 1)
            pairs[key.strip()] = value.strip()
    return pairs


def _ints(text):
    try:
        return [int(v) for v in text.split("x")]
    except ValueError:
        return None


def _from_descriptor(case):
    """Feature values read from the descriptor string, for the keys the case's "features" lacks."""
    d = parse_descriptor(case.descriptor)
    if not d:
        return {}
    if case.descriptor.startswith("cc:"):
        # A CC layer: NCHW data, no weights tensor, no padding, dilation or stride attributes.
        spatial = _ints(d.get("in", ""))
        out = {"dtype": d.get("dt", "f32"), "layout": "ncx", "bias": d.get("bias", "0") not in ("0", "false"),
               "memory_strided": False,
               "groups": False, "depthwise": False, "dilation": False, "strided": False, "padding": "none"}
        if spatial:
            out["rank"] = len(spatial)
        return out
    out = {"dtype": d.get("dt", "f32"), "layout": f"{d.get('data', 'ncx')}/{d.get('wei', 'oix')}",
           "bias": d.get("bias", "0") not in ("0", "false", "no"),
           "memory_strided": any(key in d for key in ("ss", "ws", "ds")),
           "post_ops": post_op_names(d.get("po", ""))}
    spatial = _ints(d["in"]) if "in" in d else None
    if spatial:
        out["rank"] = len(spatial)
    groups = int(d.get("g", "1")) if d.get("g", "1").isdigit() else None
    if groups is not None:
        out["groups"] = groups > 1
        if d.get("c", "").isdigit():
            out["depthwise"] = groups > 1 and groups == int(d["c"])
    for key, feature in (("d", "dilation"), ("s", "strided")):
        values = _ints(d.get(key, "1"))
        if values is not None:
            out[feature] = any(v > 1 for v in values)
    begin, end = _ints(d.get("pb", "0")), _ints(d.get("pe", "0"))
    if begin is not None and end is not None:
        n = max(len(begin), len(end))
        begin, end = (begin * n if len(begin) == 1 else begin), (end * n if len(end) == 1 else end)
        if any(v < 0 for v in begin + end):
            out["padding"] = "negative"
        elif not any(begin + end):
            out["padding"] = "none"
        else:
            out["padding"] = "symmetric" if begin == end else "asymmetric"
    return out


def post_op_names(chain):
    """The ops of a `po=` chain by what each computes, parameters left out (docs/results-schema.md):
    "relu+clip:0:6+add:per_oc" -> ["relu", "clip", "add:per_oc"]."""
    names = []
    for op in chain.split("+") if chain else []:
        name = op.split(":")[0]
        names.append(op if name in BINARY_POST_OPS else name)
    return names


def _word(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def feature_values(case):
    """{feature key: value as shown} for one case."""
    f = case.features
    derived = _from_descriptor(case)
    values = {}
    for key, _, _ in FEATURES:
        if key == "layout":
            if "data_format" in f or "filter_format" in f:
                # a CC case has no weights tensor: the runner writes "filter_format": null
                data, filters = f.get("data_format") or "ncx", f.get("filter_format")
                value = f"{data}/{filters}" if filters else data
            else:
                value = derived.get("layout")
        elif key == "dialect":
            value = f.get("dialect") or "canonical"
        elif key == "cc":
            value = f.get("cc", case.op == "cc" or case.descriptor.startswith("cc:"))
        elif key in MULTI_VALUED:
            names = f.get(key, derived.get(key)) or []
            values[key] = tuple(dict.fromkeys(str(n).lower() for n in names)) or ("none",)
            continue
        else:
            value = f.get(key, derived.get(key))
        values[key] = "unknown" if value is None else _word(value).lower()
    return values


def anchor(*parts, prefix="cases"):
    """An HTML id made of `parts`, injective: letters and digits are kept, every other character is
    written as _<hex>_."""
    def slug(text):
        return "".join(ch if ch.isascii() and ch.isalnum() else f"_{ord(ch):x}_" for ch in str(text))
    return prefix + "--" + "--".join(slug(p) for p in parts)


@dataclass
class Cell:
    counts: dict          # status -> n
    state: str            # a status name (the most severe among the cases that ran), "unsupported" or "empty"
    partial: bool         # some cases ran and some were declined
    good: int             # passed + xfail
    ran: int
    anchor: str

    @property
    def total(self):
        return sum(self.counts.values())

    def title(self):
        return ", ".join(f"{n} {s}" for s, n in self.counts.items() if n) or "no cases"


@dataclass
class MatrixRow:
    feature: str
    title: str
    value: str
    cells: list           # Cell per backend, in the matrix's backend order
    first_of_feature: bool = False
    feature_rows: int = 1


def cell_state(counts):
    ran = {s: n for s, n in counts.items() if s != "unsupported" and n}
    if ran:
        return min(ran, key=severity_rank)
    return "unsupported" if counts.get("unsupported") else "empty"


def has_value(values, key, value):
    """Whether a case whose feature values are `values` belongs to `value` of feature `key`."""
    return value in values[key] if key in MULTI_VALUED else values[key] == value


def all_values(per_case, key):
    return {x for _, v in per_case for x in (v[key] if key in MULTI_VALUED else [v[key]])}


def _ordered(values, preferred):
    return [v for v in preferred if v in values] + sorted(v for v in values if v not in preferred)


def build_matrix(cases, backends):
    """Rows of (feature, value) with one Cell per backend."""
    per_case = [(c, feature_values(c)) for c in cases]
    rows = []
    for key, title, preferred in FEATURES:
        values = _ordered(all_values(per_case, key), preferred)
        first = len(rows)
        for value in values:
            cells = []
            for backend in backends:
                counts = {s: 0 for s in STATUSES}
                for c, v in per_case:
                    if c.backend == backend and has_value(v, key, value):
                        counts[c.status] += 1
                ran = sum(counts.values()) - counts["unsupported"]
                cells.append(Cell(counts=counts, state=cell_state(counts),
                                  partial=ran > 0 and counts["unsupported"] > 0,
                                  good=sum(counts[s] for s in GOOD), ran=ran, anchor=anchor(key, value, backend)))
            rows.append(MatrixRow(feature=key, title=title, value=value, cells=cells))
        if len(rows) > first:
            rows[first].first_of_feature = True
            rows[first].feature_rows = len(rows) - first
    return rows


@dataclass
class CaseGroup:
    backend: str
    anchor: str
    cases: list
    omitted_passed: int
    omitted_other: int


@dataclass
class CaseTable:
    feature: str
    title: str
    value: str
    anchor: str
    groups: list = field(default_factory=list)


def sort_cases(cases):
    return sorted(cases, key=lambda c: (severity_rank(c.status), -(c.bound_fraction() or 0.0), c.case_id))


def build_case_tables(cases, backends, limit=PASSED_ROWS_LIMIT, other_limit=OTHER_ROWS_LIMIT):
    """One table per (feature, value), one group of rows per backend, each group with its own anchor."""
    per_case = [(c, feature_values(c)) for c in cases]
    tables = []
    for key, title, preferred in FEATURES:
        for value in _ordered(all_values(per_case, key), preferred):
            table = CaseTable(feature=key, title=title, value=value, anchor=anchor(key, value))
            for backend in backends:
                chosen = sort_cases([c for c, v in per_case if c.backend == backend and has_value(v, key, value)])
                if not chosen:
                    continue
                passed = [c for c in chosen if c.status == "passed"]
                other = [c for c in chosen if c.status != "passed"]
                table.groups.append(CaseGroup(backend=backend, anchor=anchor(key, value, backend),
                                              cases=sort_cases(other[:other_limit] + passed[:limit]),
                                              omitted_passed=max(0, len(passed) - limit),
                                              omitted_other=max(0, len(other) - other_limit)))
            tables.append(table)
    return tables
