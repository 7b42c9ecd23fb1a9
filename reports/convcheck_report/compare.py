"""Two runs compared: what newly fails and what newly passes.

Either the same backend before and after a change (cases matched by backend and case id), or two
backends on the same suite (each side holds exactly one backend, and they differ: cases matched by case
id alone).
"""
from dataclasses import dataclass, field

from .statuses import BAD, STATUSES


@dataclass
class Change:
    key: str              # what is shown: "backend: case_id", or the case id when comparing two backends
    before: object        # Case or None
    after: object         # Case or None


@dataclass
class Comparison:
    before_label: str
    after_label: str
    across_backends: bool
    newly_failing: list = field(default_factory=list)   # after is bad (failed/crashed/hanged/xpass), before was not
    newly_passing: list = field(default_factory=list)   # after passed, before did not
    other_changes: list = field(default_factory=list)   # any other change of status
    only_before: list = field(default_factory=list)
    only_after: list = field(default_factory=list)
    unchanged: int = 0
    counts_before: dict = field(default_factory=dict)
    counts_after: dict = field(default_factory=dict)


def _label(results):
    return ", ".join(results.files)


def compare(before, after):
    """Compares two ResultSets."""
    b_backends, a_backends = before.backends(), after.backends()
    across = len(b_backends) == 1 and len(a_backends) == 1 and b_backends != a_backends
    before_label = _label(before) + (f" ({b_backends[0]})" if across else "")
    after_label = _label(after) + (f" ({a_backends[0]})" if across else "")

    def key(case):
        return case.case_id if across else f"{case.backend}: {case.case_id}"

    old = {key(c): c for c in before.cases}
    new = {key(c): c for c in after.cases}
    result = Comparison(before_label=before_label, after_label=after_label, across_backends=across)
    for k in sorted(set(old) | set(new)):
        b, a = old.get(k), new.get(k)
        change = Change(key=k, before=b, after=a)
        if b is None:
            result.only_after.append(change)
        elif a is None:
            result.only_before.append(change)
        elif a.status == b.status:
            result.unchanged += 1
        elif a.status in BAD and b.status not in BAD:
            result.newly_failing.append(change)
        elif a.status == "passed":
            result.newly_passing.append(change)
        else:
            result.other_changes.append(change)
    for counts, cases in ((result.counts_before, before.cases), (result.counts_after, after.cases)):
        counts.update({s: 0 for s in STATUSES})
        for c in cases:
            counts[c.status] += 1
    return result
