"""The "Settings" section: everything that defines a backend's run, from its run records.

The keys a run record holds (docs/results-schema.md) are listed in a fixed order, each with a label; a key
the file does not hold says so ("not recorded": a file from an older convcheck), so that a reader can tell
"no backend options" from "the file does not say". Any other key a writer adds is listed after them. Shards
of one run (the runs of one suite) must agree on every key that defines the run; where they do not, a warning
says which. Runs of different suites (the main job runs smoke, invalid, backward, ... on each backend) are not
shards of one run and may differ.
"""
import json
from dataclasses import dataclass

# (key, label); the first group defines the run (shards must agree on it), the rest describe where and when.
DEFINING = [
    ("backend_path", "backend path"),
    ("backend", "backend name"),
    ("backend_version", "backend version"),
    ("backend_options", "backend options"),
    ("mode_filter", "mode filter"),
    ("suite", "suite"),
    ("suite_checksum", "suite checksum"),
    ("cases_total", "cases in the suite"),
    ("seed", "seed"),
    ("threads", "threads"),
    ("timeout_s", "timeout"),
    ("memory_limit_bytes", "memory limit"),
    ("min_coverage", "minimum coverage"),
    ("expectations_path", "expectations"),
    ("convcheck_version", "convcheck version"),
    ("accumulation_dtype", "accumulation dtype"),
]
DESCRIBING = [("shard", "shard"), ("merged_shards", "merged shards"), ("started", "started"), ("host", "host"),
              ("schema", "schema")]
# Keys not shown as settings: the record's kind and the reader's own bookkeeping.
HIDDEN = {"record", "_source"}
# Where a run record always has these keys (from the first convcheck on), their absence is not news.
ALWAYS_SHOWN = [key for key, _ in DEFINING]


@dataclass
class Setting:
    key: str
    label: str
    value: str            # as shown; "" when not recorded
    recorded: bool        # False: no run record holds the key


@dataclass
class BackendSettings:
    backend: str
    sources: list         # "file:line" of each run record
    settings: list        # Setting


def _bytes(n):
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size:
            return f"{n} bytes ({n / size:.1f} {unit})"
    return f"{n} bytes"


def show(key, value):
    """One value of a run record as the page shows it."""
    if key == "backend_options" and isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "none"
    if key == "mode_filter" and value is None:
        return "all modes"
    if value is None:
        return "null"
    if key == "memory_limit_bytes" and isinstance(value, int) and not isinstance(value, bool):
        return _bytes(value) if value > 0 else f"{value} (no limit)"
    if key == "timeout_s" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g} s"
    if key == "min_coverage" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g} ({100 * value:.1f} % of the suite must execute)"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _values(runs, key):
    shown = []
    for run in runs:
        if key in run:
            text = show(key, run[key])
            if text not in shown:
                shown.append(text)
    return shown


def backend_settings(results, backend):
    """The settings of one backend; warns where its run records disagree on a defining key."""
    runs = [r for r in results.runs if r.get("backend") == backend]
    known = DEFINING + DESCRIBING
    others = sorted({k for r in runs for k in r} - {k for k, _ in known} - HIDDEN)
    settings = []
    for key, label in known + [(k, k) for k in others]:
        values = _values(runs, key)
        if not values and key not in ALWAYS_SHOWN:
            continue
        # shards of one run share the suite: runs of different suites (smoke, then invalid, ...) are separate
        # runs, and only runs of the same suite must agree
        for suite in _values(runs, "suite") or [None]:
            shards = [r for r in runs if suite is None or show("suite", r.get("suite")) == suite]
            differing = _values(shards, key)
            if len(differing) > 1 and key in dict(DEFINING):
                of_suite = f" of suite {suite}" if suite is not None else ""
                results.warnings.append(f"backend {backend!r}: its run records{of_suite} differ in {label!r} "
                                        f"({' / '.join(differing)}): these are not shards of one run")
        settings.append(Setting(key=key, label=label, value=" / ".join(values), recorded=bool(values)))
    return BackendSettings(backend=backend, sources=[r["_source"] for r in runs], settings=settings)
