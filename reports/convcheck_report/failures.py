"""The "Failures" section, first on the page: every case whose result was not the expected one, of every
backend and every kind (mismatch, probe, NaN, unwritten outputs, crash, hang, plugin error, out of memory,
leak, xpass), with its message, its worst output where the runner located one, and the reproducer to run:
the shrunk one where the runner shrank the failure, else the case's own.

Expected failures (xfail, declared in the expectations file) are listed apart: they do not fail the run,
but they are still places where the backend differs from the specification.
"""
from dataclasses import dataclass, field

from . import kinds
from .accuracy import default_reproducer
from .features import anchor
from .statuses import BAD, UNCHECKED

# Per (backend, kind) at most this many rows: a run where one bug fails a thousand cases must not hide
# the single crash after it, nor make a page too big to open. The group's header says how many are left out.
ROWS_PER_GROUP = 50


@dataclass
class Failure:
    case: object
    reproducer: str        # the one to run: the shrunk reproducer where there is one, else the case's own
    shrunk: bool           # True when `reproducer` is the shrunk one
    original: str          # the case's own reproducer (shown beside a shrunk one)
    worst: object          # {"index": [...], "got": ..., "want": ...} where the runner located one, else None
    anchor: str            # the row's id; its reproducer's <code> has id anchor + "--code"
    judged_by: str = ""    # error.judged_by: the bound (or check) that judged the case, "" where none is recorded
    growth: object = None  # error.bound_growth_needed: the factor that bound would have to grow by to pass


@dataclass
class FailureGroup:
    backend: str
    kind: str
    description: str
    total: int
    rows: list = field(default_factory=list)

    @property
    def omitted(self):
        return self.total - len(self.rows)


@dataclass
class Failures:
    groups: list           # FailureGroup, failures (status failed, crashed, hanged, xpass)
    expected: list         # FailureGroup, expected failures (xfail)
    unchecked: list        # FailureGroup, cases the accuracy contract could not check (unchecked): not passed
    counts: dict           # backend -> {kind: n}, failures only
    kinds: list            # the kinds present among the failures, in the report's order

    @property
    def total(self):
        return sum(g.total for g in self.groups)

    @property
    def expected_total(self):
        return sum(g.total for g in self.expected)

    @property
    def unchecked_total(self):
        return sum(g.total for g in self.unchecked)


def worst_output(case):
    """error.worst when some outputs were wrong and it names one (a non-empty index; probe-mode records carry
    an empty one). In a case whose outputs were all right (an xpass) the worst output is no finding."""
    if not isinstance(case.error, dict) or not case.error.get("mismatches"):
        return None
    worst = case.error.get("worst")
    if isinstance(worst, dict) and worst.get("index"):
        return worst
    return None


def judged(case):
    """(error.judged_by, error.bound_growth_needed) of a case, ("", None) where its record has none
    (docs/accuracy.md: the bound that judged the case, and for a failure the factor it would have to grow by)."""
    if not isinstance(case.error, dict):
        return "", None
    judged_by = case.error.get("judged_by")
    growth = case.error.get("bound_growth_needed")
    return (judged_by if isinstance(judged_by, str) else ""), growth


def failure(case):
    own = default_reproducer(case)
    judged_by, growth = judged(case)
    return Failure(case=case, reproducer=case.shrunk_reproducer or own, shrunk=bool(case.shrunk_reproducer),
                   original=own, worst=worst_output(case), anchor=anchor(case.backend, case.case_id, prefix="failure"),
                   judged_by=judged_by, growth=growth)


def _groups(cases, backends, limit):
    groups = []
    for backend in backends:
        mine = [c for c in cases if c.backend == backend]
        for kind in sorted({c.kind for c in mine}, key=lambda k: (kinds.order_rank(k), k)):
            members = sorted((c for c in mine if c.kind == kind), key=lambda c: c.case_id)
            groups.append(FailureGroup(backend=backend, kind=kind or "(no kind)", total=len(members),
                                       description=kinds.DESCRIPTIONS.get(kind, "a kind this report does not know"),
                                       rows=[failure(c) for c in members[:limit]]))
    return groups


def failures(cases, backends, limit=ROWS_PER_GROUP):
    """The Failures of the cases, grouped by backend (in the given order) and kind."""
    bad = [c for c in cases if c.status in BAD]
    counts = {}
    for c in bad:
        counts.setdefault(c.backend, {}).setdefault(c.kind, 0)
        counts[c.backend][c.kind] += 1
    present = sorted({c.kind for c in bad}, key=lambda k: (kinds.order_rank(k), k))
    return Failures(groups=_groups(bad, backends, limit),
                    expected=_groups([c for c in cases if c.status == "xfail"], backends, limit),
                    unchecked=_groups([c for c in cases if c.status == UNCHECKED], backends, limit),
                    counts=counts, kinds=present)
