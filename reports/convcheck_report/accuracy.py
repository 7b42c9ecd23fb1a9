"""Accuracy: the error as a fraction of the accuracy contract's bound (DESIGN.md, "Bound mode":
|y - y*| <= u_out*|y*| + phi_n(u_acc) * sum|x*w|), per backend and dtype; the worst cases; and, for
failing cases, whether the wrong outputs sit at the border (receptive field touches padding) or inside.
"""
import statistics
from dataclasses import dataclass

from .features import feature_values
from .statuses import BAD

# docs/results-schema.md: eleven buckets [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0), [1.0, inf).
BUCKETS = [f"[{i / 10:.1f}, {(i + 1) / 10:.1f})" for i in range(10)] + ["[1.0, ∞)"]
WORST_CASES = 15


def histogram(case):
    """The case's bound-fraction histogram as 11 ints, or None when it has none (or a malformed one)."""
    if not isinstance(case.error, dict):
        return None
    h = case.error.get("bound_fraction_histogram")
    if isinstance(h, list) and len(h) == len(BUCKETS) and all(isinstance(n, int) and n >= 0 for n in h):
        return h
    return None


@dataclass
class Distribution:
    backend: str
    dtype: str
    cases: int            # bound-mode cases with a bound fraction
    histogram: list       # outputs per bucket, summed over the cases that have a histogram
    outputs: int
    over_bound: int       # outputs in the last bucket
    median: object        # median over cases of max_bound_fraction
    worst: object         # max over cases of max_bound_fraction

    def fractions(self):
        return [n / self.outputs if self.outputs else 0.0 for n in self.histogram]


def distributions(cases):
    """One Distribution per (backend, dtype) among bound-mode cases, in order of first appearance."""
    groups = {}
    for c in cases:
        if c.mode != "bound" or c.bound_fraction() is None:
            continue
        groups.setdefault((c.backend, feature_values(c)["dtype"]), []).append(c)
    out = []
    for (backend, dtype), members in groups.items():
        total = [0] * len(BUCKETS)
        for c in members:
            h = histogram(c)
            if h:
                total = [a + b for a, b in zip(total, h)]
        fractions = [c.bound_fraction() for c in members]
        out.append(Distribution(backend=backend, dtype=dtype, cases=len(members), histogram=total,
                                outputs=sum(total), over_bound=total[-1], median=statistics.median(fractions),
                                worst=max(fractions)))
    return out


def default_reproducer(case):
    """The case's own reproducer line; where a writer left it out, one in the schema's form."""
    if case.reproducer:
        return case.reproducer
    parts = [f"convcheck run --backend {case.backend}"]
    if case.descriptor:
        parts.append(f"--case '{case.descriptor}'")
    if case.seed is not None:
        parts.append(f"--seed {case.seed}")
    if case.mode:
        parts.append(f"--mode {case.mode}")
    return " ".join(parts)


def worst_cases(cases, n=WORST_CASES):
    """The n bound-mode cases with the largest max_bound_fraction, largest first. (A case whose mode the
    writer left out is taken as bound mode; exact and probe cases have no meaningful fraction of a bound.)"""
    measured = [c for c in cases if c.mode in ("bound", "") and c.bound_fraction() is not None]
    return sorted(measured, key=lambda c: (-c.bound_fraction(), c.backend, c.case_id))[:n]


@dataclass
class Location:
    case: object
    mismatches: object
    border: object
    interior: object


@dataclass
class LocationTotals:
    backend: str
    cases: int
    border: int
    interior: int

    def border_share(self):
        total = self.border + self.interior
        return self.border / total if total else None


def error_locations(cases):
    """For failing cases (failed, xpass, and xfail: an expected failure still fails somewhere) whose
    mismatching outputs the writer located (border_mismatches + interior_mismatches > 0; a probe-mode
    failure, for one, is not located): where they sit. Returns (rows, per-backend totals)."""
    rows = []
    for c in cases:
        if c.status not in BAD | {"xfail"} or not isinstance(c.error, dict):
            continue
        e = c.error
        if not any(isinstance(e.get(k), int) and e.get(k) > 0 for k in ("border_mismatches", "interior_mismatches")):
            continue
        rows.append(Location(case=c, mismatches=e.get("mismatches"), border=e.get("border_mismatches"),
                             interior=e.get("interior_mismatches")))
    totals = {}
    for r in rows:
        t = totals.setdefault(r.case.backend, LocationTotals(r.case.backend, 0, 0, 0))
        t.cases += 1
        t.border += r.border if isinstance(r.border, int) else 0
        t.interior += r.interior if isinstance(r.interior, int) else 0
    return rows, list(totals.values())


@dataclass
class JudgedBy:
    backend: str
    judged_by: str        # error.judged_by: "per_output", "whole_tensor+statistics", "input_precision:tf32", ...
    cases: int
    failed: int           # among them, cases that failed (failed, xpass) or failed as expected (xfail)


def judged_by_counts(cases):
    """How many cases each bound (or check) judged, per backend, in order of first appearance: a backend whose
    declarations widen its bound (docs/accuracy.md, "Declared algorithms and input precision") shows it here."""
    rows = {}
    for c in cases:
        if not isinstance(c.error, dict) or not isinstance(c.error.get("judged_by"), str):
            continue
        row = rows.setdefault((c.backend, c.error["judged_by"]), JudgedBy(c.backend, c.error["judged_by"], 0, 0))
        row.cases += 1
        row.failed += c.status in BAD | {"xfail"}
    return list(rows.values())
