"""Banners for runs that did not finish: the page must not look like a complete verdict when it is not.

- An **incomplete run**: a run's file (it has a run or case record) without the summary record that
  `convcheck run` writes last. The run was killed (or crashed, or its disk filled) before it finished: cases
  after the last record never ran, and nothing says how they would have ended.
- A **stopped run**: a summary record whose "not_run" is above 0 (--fail-fast stopped at the first failure,
  or the run was interrupted), or whose "complete" is false.
"""
from dataclasses import dataclass


@dataclass
class Banner:
    kind: str             # "incomplete" or "stopped"
    title: str
    file: str             # the result file, or "file:line" of the summary record
    backend: str
    text: str


def _backends(names):
    return ", ".join(repr(n) for n in names) if names else "no backend named"


def _suite_total(results, info):
    totals = {r.get("cases_total") for r in results.runs
              if r["_source"].rsplit(":", 1)[0] == info.name and isinstance(r.get("cases_total"), int)}
    return totals.pop() if len(totals) == 1 else None


def banners(results):
    """The banners for a ResultSet, incomplete files first."""
    out = []
    for info in results.file_infos:
        if not info.incomplete:
            continue
        total = _suite_total(results, info)
        of = f" of the {total} cases in the suite" if total is not None else ""
        records = f"{info.case_records} case record{'' if info.case_records == 1 else 's'}"
        out.append(Banner(
            kind="incomplete", title="Incomplete run", file=info.name, backend=", ".join(info.backends),
            text=(f"{info.name} ({_backends(info.backends)}) has no closing summary record: the "
                  f"run was killed or crashed before it finished. The file holds {records}{of}; cases after "
                  f"the last one never ran, and the counts below cover only the cases recorded.")))
    for s in results.summaries:
        not_run = s.get("not_run") or 0
        backend = s.get("backend") or ""
        if not_run > 0:
            out.append(Banner(
                kind="stopped", title="Stopped run", file=s["_source"], backend=backend,
                text=(f"Backend {backend!r} ({s['_source']}) did not run {not_run} "
                      f"case{'' if not_run == 1 else 's'}: the run stopped early (--fail-fast after a failure, "
                      f"or an interruption). Its verdict covers only the cases that ran.")))
        elif s.get("complete") is False:
            out.append(Banner(
                kind="stopped", title="Stopped run", file=s["_source"], backend=backend,
                text=f"Backend {backend!r} ({s['_source']}): the summary record says the run is "
                     f"not complete."))
    return out
