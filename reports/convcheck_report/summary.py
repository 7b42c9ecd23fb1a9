"""Per-backend summary: counts of each status, the pass rate, and the run's settings and versions."""
import re
from dataclasses import dataclass

from .statuses import STATUSES

# The run-record keys shown first, in this order; any other key a writer adds is shown after them.
SETTINGS_KEYS = ["backend_version", "convcheck_version", "backend_path", "suite", "shard", "threads", "seed",
                 "accumulation_dtype", "started", "host", "schema"]


@dataclass
class BackendSummary:
    backend: str
    counts: dict          # status -> number of cases (computed from the case records)
    total: int
    ran: int              # total - unsupported: the cases the backend accepted
    pass_rate: object     # (passed + xfail) / ran, or None when nothing ran
    seconds: object       # sum of the summary records' "seconds", or None
    exit_codes: list
    settings: list        # [(key, "value[, value...]")]


def pass_rate(counts):
    """The fraction of the cases the backend ran (all but unsupported) whose result was the expected one:
    (passed + xfail) / (total - unsupported). None when the backend ran nothing."""
    ran = sum(counts.values()) - counts.get("unsupported", 0)
    if ran == 0:
        return None
    return (counts.get("passed", 0) + counts.get("xfail", 0)) / ran


def _settings(runs):
    values = {}
    for run in runs:
        for key, value in run.items():
            if key in ("record", "backend", "_source") or value is None:
                continue
            text = str(value)
            values.setdefault(key, [])
            if text not in values[key]:
                values[key].append(text)
    ordered = [k for k in SETTINGS_KEYS if k in values] + sorted(k for k in values if k not in SETTINGS_KEYS)
    return [(k, ", ".join(values[k])) for k in ordered]


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
        missing = sorted(set(range(n)) - shards)
        if missing:
            return (f"backend {backend!r}: shard(s) {', '.join(f'{i}/{n}' for i in missing)} missing; the "
                    f"counts cover {len(shards)} of {n} shards")
    return None


def summarize(results):
    """One BackendSummary per backend that has cases or run records; adds warnings to `results`."""
    summaries = []
    for backend in results.backends():
        cases = [c for c in results.cases if c.backend == backend]
        runs = [r for r in results.runs if r.get("backend") == backend]
        if not cases and not runs:
            continue  # a backend seen only in bench records
        counts = {s: 0 for s in STATUSES}
        for c in cases:
            counts[c.status] += 1
        records = [s for s in results.summaries if s.get("backend") == backend]
        seconds = None
        if records:
            seconds = sum(float(s["seconds"]) for s in records if isinstance(s.get("seconds"), (int, float)))
            declared = {st: 0 for st in STATUSES}
            for s in records:
                for st, n in (s.get("counts") or {}).items():
                    if st in declared and isinstance(n, int):
                        declared[st] += n
            if declared != counts:
                differ = ", ".join(f"{st} {declared[st]} vs {counts[st]}" for st in STATUSES
                                   if declared[st] != counts[st])
                results.warnings.append(f"backend {backend!r}: the summary records' counts differ from the "
                                        f"case records ({differ}); the report counts the case records")
        warning = _shard_warning(backend, runs)
        if warning:
            results.warnings.append(warning)
        ran = len(cases) - counts["unsupported"]
        summaries.append(BackendSummary(
            backend=backend, counts=counts, total=len(cases), ran=ran, pass_rate=pass_rate(counts),
            seconds=seconds, exit_codes=[s.get("exit_code") for s in records if "exit_code" in s],
            settings=_settings(runs)))
    return summaries
