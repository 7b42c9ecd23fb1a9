"""Reading convcheck result files: JSON lines, one record per line (docs/results-schema.md).

Records are `run` (first line of a file), `case`, `bench` and `summary`. Readers ignore unknown keys and
unknown record kinds (records only grow) and tolerate missing optional keys. A line that is not JSON, a
record without a "record" key, or a case without a valid "status" is an error that names the file, the
line, the value and the rule.
"""
import json
import math
from dataclasses import dataclass, field

from .statuses import STATUSES


class ResultsError(ValueError):
    """Bad input: the message names the file and line, the attribute, the value and the rule."""


@dataclass
class Case:
    backend: str
    case_id: str
    op: str
    descriptor: str
    seed: object
    mode: str
    status: str
    reason: str
    features: dict
    error: object          # dict, or None where the schema has no comparison (unsupported, crashed, hanged)
    time_ms: object
    implementation: str
    reproducer: str
    shrunk_reproducer: str  # the runner's reproducer of the smallest failing case it shrank to, or ""
    shape_name: str        # the name of a named shape (models suite, shape files), or ""
    source: str            # "file:line", for messages

    @property
    def key(self):
        """What identifies a case within one backend's run."""
        return (self.backend, self.case_id)

    def bound_fraction(self):
        """error.max_bound_fraction; infinity where the writer wrote null for a non-finite value (a NaN or
        infinite output: the runner writes null for those, and such a case has mismatches); None when the
        case has no comparison or no bound fraction."""
        if isinstance(self.error, dict):
            value = self.error.get("max_bound_fraction")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            mismatches = self.error.get("mismatches")
            if value is None and "max_bound_fraction" in self.error and isinstance(mismatches, int) \
                    and mismatches > 0:
                return math.inf
        return None


@dataclass
class Bench:
    backend: str
    descriptor: str
    shape_name: str
    threads: object
    ms: object
    gflops: object
    optimized_ms: object
    reference_ms: object
    ratio_to_optimized: object
    source: str

    @property
    def shape(self):
        return self.shape_name or self.descriptor


@dataclass
class ResultSet:
    files: list = field(default_factory=list)
    runs: list = field(default_factory=list)        # the run records (dicts), each with "_source"
    cases: list = field(default_factory=list)       # Case
    benches: list = field(default_factory=list)     # Bench
    summaries: list = field(default_factory=list)   # the summary records (dicts), each with "_source"
    warnings: list = field(default_factory=list)

    def backends(self):
        """Backends in order of first appearance (runs, then cases, then bench records)."""
        seen = {}
        for name in [r.get("backend") for r in self.runs] + [c.backend for c in self.cases]:
            if name:
                seen.setdefault(name, None)
        for b in self.benches:
            seen.setdefault(b.backend, None)
        return list(seen)

    def extend(self, other):
        self.files += other.files
        self.runs += other.runs
        self.cases += other.cases
        self.benches += other.benches
        self.summaries += other.summaries
        self.warnings += other.warnings


def _text(record, key, default=""):
    value = record.get(key)
    return default if value is None else str(value)


def _case(record, where, file_backend):
    status = record.get("status")
    if status not in STATUSES:
        raise ResultsError(f"{where}: case attribute 'status' is {status!r}: it must be one of "
                           f"{', '.join(STATUSES)} (docs/results-schema.md)")
    backend = _text(record, "backend", file_backend or "")
    if not backend:
        raise ResultsError(f"{where}: case attribute 'backend' is missing and no run record before it "
                           f"names one: a case must say which backend it ran on")
    descriptor = _text(record, "descriptor")
    case_id = _text(record, "case_id", descriptor)
    if not case_id:
        raise ResultsError(f"{where}: case has neither 'case_id' nor 'descriptor': one is needed to name it")
    features = record.get("features")
    error = record.get("error")
    return Case(backend=backend, case_id=case_id, op=_text(record, "op", "conv"), descriptor=descriptor,
                seed=record.get("seed"), mode=_text(record, "mode"), status=status,
                reason=_text(record, "reason"), features=features if isinstance(features, dict) else {},
                error=error if isinstance(error, dict) else None, time_ms=record.get("time_ms"),
                implementation=_text(record, "implementation"), reproducer=_text(record, "reproducer"),
                shrunk_reproducer=_text(record, "shrunk_reproducer"),
                shape_name=_text(record, "shape_name"), source=where)


def _bench(record, where, file_backend):
    backend = _text(record, "backend", file_backend or "")
    if not backend:
        raise ResultsError(f"{where}: bench attribute 'backend' is missing: a bench record must name its backend")
    return Bench(backend=backend, descriptor=_text(record, "descriptor"), shape_name=_text(record, "shape_name"),
                 threads=record.get("threads"), ms=record.get("ms"), gflops=record.get("gflops"),
                 optimized_ms=record.get("optimized_ms"), reference_ms=record.get("reference_ms"),
                 ratio_to_optimized=record.get("ratio_to_optimized"), source=where)


def read_lines(lines, name):
    """Parses the lines of one result file called `name` into a ResultSet."""
    result = ResultSet(files=[name])
    file_backend = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise ResultsError(f"{where}: not valid JSON ({e.msg} at column {e.colno}): each line of a result "
                               f"file must be one JSON object") from None
        if not isinstance(record, dict):
            raise ResultsError(f"{where}: a {type(record).__name__} where a JSON object was expected: each "
                               f"line of a result file must be one JSON object")
        kind = record.get("record")
        if kind is None:
            raise ResultsError(f"{where}: attribute 'record' is missing: every record names its kind "
                               f"(run, case, bench or summary)")
        if kind == "run":
            record = dict(record, _source=where)
            file_backend = record.get("backend") or file_backend
            result.runs.append(record)
            schema = record.get("schema")
            if isinstance(schema, int) and schema > 1:
                result.warnings.append(f"{where}: schema {schema} is newer than this reader (1); unknown keys "
                                       f"are ignored")
        elif kind == "case":
            result.cases.append(_case(record, where, file_backend))
        elif kind == "bench":
            result.benches.append(_bench(record, where, file_backend))
        elif kind == "summary":
            result.summaries.append(dict(record, _source=where))
        # any other kind: a newer writer's record; ignored, as the schema asks
    if not (result.runs or result.cases or result.benches or result.summaries):
        result.warnings.append(f"{name}: the file holds no run, case, bench or summary record")
    return result


def read_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            return read_lines(f, str(path))
    except OSError as e:
        raise ResultsError(f"{path}: cannot read the result file: {e.strerror}") from None


def read_files(paths):
    """Reads and joins several result files (shards of one run, several backends, bench files)."""
    result = ResultSet()
    for path in paths:
        result.extend(read_file(path))
    _drop_duplicates(result)
    return result


def _drop_duplicates(result):
    """A case that appears twice for the same backend (a shard given twice, a re-run) is kept once, the
    last one read, with a warning: counting it twice would make the pass rate wrong."""
    last = {}
    for case in result.cases:
        if case.key in last:
            result.warnings.append(f"{case.source}: case {case.case_id!r} of backend {case.backend!r} was "
                                   f"already read at {last[case.key].source}; the later record is kept")
        last[case.key] = case
    kept = set(id(c) for c in last.values())
    result.cases = [c for c in result.cases if id(c) in kept]
