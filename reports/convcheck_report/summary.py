"""Per-backend summary: counts of each status, the coverage (what ran, what was declined and why) and the
pass rate among the cases that executed."""
import re
from dataclasses import dataclass

from .coverage import Coverage, coverage
from .statuses import GOOD, STATUSES


@dataclass
class BackendSummary:
    backend: str
    counts: dict          # status -> number of cases (computed from the case records)
    total: int            # case records
    coverage: Coverage    # executed / declined / refused / not run, decline reasons, skipped inputs
    good: int             # executed cases whose result was the expected one (passed, xfail)
    pass_rate: object     # good / executed, or None when nothing executed
    seconds: object       # sum of the summary records' "seconds", or None
    exit_codes: list

    @property
    def ran(self):
        return self.coverage.executed

    def pass_rate_of(self):
        """What the pass rate is a fraction of: "of 8 executed cases (8 of 69 in the suite; 61 declined)"."""
        if self.pass_rate is None:
            return f"no case executed {self.coverage.counts_text()}"
        return f"of {self.coverage.denominator_text()}"

    def pass_rate_text(self):
        """E.g. "100.0 % of 8 executed cases (8 of 69 in the suite; 61 declined)"."""
        rate = "—" if self.pass_rate is None else f"{100 * self.pass_rate:.1f} %"
        return f"{rate} {self.pass_rate_of()}"


def pass_rate(good, executed):
    """The fraction of the executed cases (neither declined nor refused) whose result was the expected one
    (passed or xfail). None when nothing executed."""
    return good / executed if executed else None


def _shard_warning(backend, runs):
    """Shards "i/n" of one backend: says which are missing, so that a partial merge is not mistaken for a
    complete run."""
    shards = set()
    totals = set()
    for run in runs:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(run.get("shard", "")))
        if match:
            shards.add(int(match.group(1)))
            totals.add(int(match.group(2)))
    if len(totals) > 1:
        return f"backend {backend!r}: shard counts disagree ({', '.join(map(str, sorted(totals)))})"
    if totals:
        (n,) = totals
        present = len({i for i in shards if i < n})
        if present < n:
            # name the missing shards, but never enumerate an absurd shard count ("0/1000000000")
            missing = [f"{i}/{n}" for i in range(min(n, 1000)) if i not in shards][:20]
            more = "" if len(missing) == n - present else f" and {n - present - len(missing)} more"
            return (f"backend {backend!r}: shard(s) {', '.join(missing)}{more} missing; the "
                    f"counts cover {present} of {n} shards")
    return None


def _counts(cases):
    counts = {s: 0 for s in STATUSES}
    for c in cases:
        counts[c.status] += 1
    return counts


def summarize(results):
    """One BackendSummary per backend that has cases or run records; adds warnings to `results`."""
    summaries = []
    for backend in results.backends():
        cases = [c for c in results.cases if c.backend == backend]
        runs = [r for r in results.runs if r.get("backend") == backend]
        if not cases and not runs:
            continue  # a backend seen only in bench records
        counts = _counts(cases)
        records = [s for s in results.summaries if s.get("backend") == backend]
        seconds = None
        if records:
            seconds = sum(float(s["seconds"]) for s in records if isinstance(s.get("seconds"), (int, float)))
            summarized = _counts(c for c in cases if c.file in results.summarized_files())
            declared = {st: 0 for st in STATUSES}
            for s in records:
                for st, n in (s.get("counts") or {}).items():
                    if st in declared and isinstance(n, int):
                        declared[st] += n
            if declared != summarized:
                differ = ", ".join(f"{st} {declared[st]} vs {summarized[st]}" for st in STATUSES
                                   if declared[st] != summarized[st])
                results.warnings.append(f"backend {backend!r}: the summary records' counts differ from the "
                                        f"case records ({differ}); the report counts the case records")
        warning = _shard_warning(backend, runs)
        if warning:
            results.warnings.append(warning)
        cover = coverage(results, backend)
        good = sum(1 for c in cases if c.executed and c.status in GOOD)
        summaries.append(BackendSummary(
            backend=backend, counts=counts, total=len(cases), coverage=cover, good=good,
            pass_rate=pass_rate(good, cover.executed), seconds=seconds,
            exit_codes=[s.get("exit_code") for s in records if "exit_code" in s]))
    return summaries
