"""Coverage: what a backend's pass rate is a fraction of. Per backend, the cases that executed, the cases
the backend declined (and why), the cases the runner refused before running them (over the memory limit),
the cases that never started (fail-fast, interrupted), and the inputs that never became cases (skipped).

The counts come from the case records; the summary records' "not_run" adds the cases that have no record.
A summary record from a convcheck that writes "executed", "declined", "total" and "decline_reasons" is
used where the case records cannot say (the grouping of decline reasons) and checked against them.
"""
from dataclasses import dataclass, field

# How many decline reasons and skip reasons the page lists per backend; the rest are summed as "other".
TOP_REASONS = 5


@dataclass
class Coverage:
    backend: str
    recorded: int          # case records
    executed: int          # neither declined nor refused
    declined: int          # the backend said unsupported
    refused: int           # the runner refused before running: the case cannot fit in the memory limit
    not_run: int           # never started: fail-fast or an interruption (from the summary records)
    suite_total: object    # the run records' "cases_total" (the suite before sharding), or None
    min_coverage: object   # the declared floor (run or summary record), or None
    decline_reasons: list  # [(reason, count)], most frequent first (all of them)
    skipped_inputs: int    # inputs not turned into cases ("skipped" records)
    skip_reasons: list = field(default_factory=list)   # [(reason, count)], most frequent first
    pass_not_claimed: int = 0  # of the declined: cases of a pass the backend does not claim (prop_kinds)
    incomplete: bool = False   # a file of this backend has no summary record: the run was cut off
    cut_off: object = None     # cases of an incomplete run that have no record, where the suite size says

    @property
    def total(self):
        """The cases of this run: every case record, every case that never started, and the cases an
        incomplete run never reached (where its run record says how many the suite has)."""
        return self.recorded + self.not_run + (self.cut_off or 0)

    @property
    def fraction(self):
        """executed / total, or None for a run without cases."""
        return self.executed / self.total if self.total else None

    @property
    def claimed_fraction(self):
        """executed / the cases of the passes the backend claims (the cases the floor applies to; the runner's
        coverage.hpp), or None for a run without such cases."""
        claimed = self.total - self.pass_not_claimed
        return self.executed / claimed if claimed else None

    @property
    def below_minimum(self):
        return (self.min_coverage is not None and self.claimed_fraction is not None
                and self.claimed_fraction < self.min_coverage)

    def top_decline_reasons(self, n=TOP_REASONS):
        """The n most frequent decline reasons, then ("other reasons", count) for the rest."""
        return _top(self.decline_reasons, n)

    def top_skip_reasons(self, n=TOP_REASONS):
        return _top(self.skip_reasons, n)

    def counts_text(self):
        """The executed cases among the suite's and what happened to the others:
        "(8 of 69 in the suite; 61 declined)"."""
        parts = [f"{self.declined} declined"]
        if self.pass_not_claimed:
            parts[0] += f" ({self.pass_not_claimed} of a pass the backend does not claim)"
        if self.refused:
            parts.append(f"{self.refused} refused (over the memory limit)")
        if self.not_run:
            parts.append(f"{self.not_run} not run")
        if self.cut_off:
            parts.append(f"{self.cut_off} never reached: the run was cut off")
        if self.skipped_inputs:
            parts.append(f"{self.skipped_inputs} input{'' if self.skipped_inputs == 1 else 's'} skipped")
        if self.incomplete and self.cut_off is None:
            return (f"({self.executed} of the {self.total} cases recorded before the run was cut off; the suite's "
                    f"size is unknown; {'; '.join(parts)})")
        return f"({self.executed} of {self.total} in the suite; {'; '.join(parts)})"

    def denominator_text(self):
        """What the pass rate is a fraction of, e.g. "8 executed cases (8 of 69 in the suite; 61 declined)"."""
        return f"{self.executed} executed {'case' if self.executed == 1 else 'cases'} {self.counts_text()}"


def _top(reasons, n):
    shown = list(reasons[:n])
    rest = sum(count for _, count in reasons[n:])
    if rest:
        shown.append((f"{len(reasons) - n} other reasons", rest))
    return shown


def _count_reasons(reasons):
    counts = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _declared_reasons(summaries):
    """The summary records' decline_reasons summed by reason; None unless every record has them."""
    if not summaries or not all(isinstance(s.get("decline_reasons"), list) for s in summaries):
        return None
    counts = {}
    for s in summaries:
        for item in s["decline_reasons"]:
            reason = item.get("reason") or ""
            counts[reason] = counts.get(reason, 0) + (item.get("count") or 0)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _first_number(records, key):
    values = [r.get(key) for r in records if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)]
    return values[0] if values else None


def _check_summaries(backend, cases, summaries, warnings):
    """The summary records' own counts, where they have them, against the case records of their files."""
    executed = sum(1 for c in cases if c.executed)
    declined = sum(1 for c in cases if c.kind == "declined")
    not_run = sum(s.get("not_run") or 0 for s in summaries)
    for key, have in (("executed", executed), ("declined", declined), ("total", len(cases) + not_run)):
        if summaries and all(isinstance(s.get(key), int) for s in summaries):
            said = sum(s[key] for s in summaries)
            if said != have:
                warnings.append(f"backend {backend!r}: the summary records say {key} {said}, the case records "
                                f"give {have}; the report counts the case records")


def coverage(results, backend):
    """The Coverage of one backend in a ResultSet; adds warnings to it where records disagree."""
    cases = [c for c in results.cases if c.backend == backend]
    summaries = [s for s in results.summaries if s.get("backend") == backend]
    runs = [r for r in results.runs if r.get("backend") == backend]
    skipped = [s for s in results.skipped if s.backend == backend]
    declined = [c for c in cases if c.kind == "declined"]
    not_claimed = sum(1 for c in declined if c.pass_not_claimed)
    refused = sum(1 for c in cases if c.kind == "over_memory_limit")
    reasons = _declared_reasons(summaries)
    if reasons is None:
        reasons = _count_reasons(c.reason or "(no reason given)" for c in declined)
    suite_totals = {r.get("cases_total") for r in runs if isinstance(r.get("cases_total"), int)}
    result = Coverage(
        backend=backend, recorded=len(cases), executed=sum(1 for c in cases if c.executed),
        declined=len(declined), refused=refused, pass_not_claimed=not_claimed,
        not_run=sum(s.get("not_run") or 0 for s in summaries),
        suite_total=suite_totals.pop() if len(suite_totals) == 1 else None,
        min_coverage=_first_number(runs + summaries, "min_coverage"), decline_reasons=reasons,
        skipped_inputs=len(skipped), skip_reasons=_count_reasons(s.reason or "(no reason given)" for s in skipped))
    result.incomplete = any(info.incomplete and backend in info.backends for info in results.file_infos)
    unsharded = runs and all(str(r.get("shard", "0/1")).replace(" ", "") == "0/1" for r in runs)
    if result.incomplete and unsharded and result.suite_total is not None:
        result.cut_off = max(0, result.suite_total - result.recorded - result.not_run)
    summarized = results.summarized_files()
    _check_summaries(backend, [c for c in cases if c.file in summarized], summaries, results.warnings)
    declared_skips = [s.get("skipped_inputs") for s in summaries]
    if summaries and all(isinstance(n, int) for n in declared_skips) and sum(declared_skips) != len(skipped):
        results.warnings.append(f"backend {backend!r}: the summary records say {sum(declared_skips)} skipped "
                                f"inputs, the files hold {len(skipped)} skipped records")
    return result


@dataclass
class SkippedGroup:
    backend: str           # "" when the file had no run record
    reason: str
    count: int
    examples: list         # the first few Skipped records with this reason


def skipped_groups(skipped, examples=3):
    """The skipped inputs grouped by backend and reason, most frequent reason first."""
    groups = {}
    for s in skipped:
        groups.setdefault((s.backend, s.reason or "(no reason given)"), []).append(s)
    order = sorted(groups.items(), key=lambda item: (item[0][0], -len(item[1]), item[0][1]))
    return [SkippedGroup(backend=backend, reason=reason, count=len(members), examples=members[:examples])
            for (backend, reason), members in order]
