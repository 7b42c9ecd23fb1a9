"""Reading convcheck result files: JSON lines, one record per line (docs/results-schema.md).

Records are `run` (first line of a file), `case`, `skipped`, `bench` and `summary`; and the one-object files
of `convcheck selftest --json` (`selftest`: the kill matrix) and `convcheck list --suite S --json` (`design`:
a suite's distribution and pair coverage), read by strength.py. Readers ignore unknown
keys and unknown record kinds (records only grow) and tolerate missing optional keys. Everything else that
is not a result file is an error that names the file (and the line, the value and the rule): a missing or
unreadable file, a folder, a binary file, text that is not UTF-8, a line that is not one JSON object, a
record without a "record" key, a case without a valid "status", a value of the wrong type (fields.py), and a
file none of whose records is a result record.
"""
import json
import math
from dataclasses import dataclass, field

from . import fields, kinds, strength
from .fields import ResultsError
from .statuses import STATUSES

KNOWN_RECORDS = ("run", "case", "skipped", "bench", "summary", "selftest", "design")


@dataclass
class Case:
    backend: str
    case_id: str
    op: str
    descriptor: str
    seed: object
    mode: str
    status: str
    kind: str              # what went wrong ("" for passed), kinds.py; the record's, or derived when absent
    kind_derived: bool     # True when the record had no "kind" and the reader derived it
    reason: str
    features: dict
    error: object          # dict, or None where the schema has no comparison (unsupported, crashed, hanged)
    time_ms: object
    implementation: str
    reproducer: str
    shrunk_descriptor: str  # the smallest descriptor that still fails the same way, or ""
    shrunk_reproducer: str  # the runner's reproducer of the smallest failing case it shrank to, or ""
    shape_name: str        # the name of a named shape (models suite, shape files), or ""
    source: str            # "file:line", for messages
    pass_not_claimed: bool = False  # declined: the backend does not claim the case's pass (prop_kinds)
    # quantized cases (ABI 1.5): the requantization rules every output agreed with, or None when not recorded
    requantization_fit: object = None
    # --profile: {profile: passed (True/False), or None where it has no rule}; empty when not recorded
    profiles: dict = None

    @property
    def key(self):
        """What identifies a case within one backend's run."""
        return (self.backend, self.case_id)

    @property
    def file(self):
        """The result file the record was read from."""
        return self.source.rsplit(":", 1)[0]

    @property
    def executed(self):
        """False for a case that never ran: declined by the backend or refused by the runner."""
        return self.kind not in kinds.NOT_EXECUTED

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
class Skipped:
    """An input that was not turned into a case (e.g. a benchdnn problem with an option convcheck does not
    model), with the reason."""
    backend: str           # the backend of its file's run record, or ""
    suite: str
    input: str             # the problem as written
    reason: str
    origin: str            # the record's "source" (where the input was: "file:line"), or ""
    source: str            # where this record is: "results file:line"


@dataclass
class FileInfo:
    """What one result file holds, to tell a complete run from one cut off (docs/reports.md)."""
    name: str
    backends: list         # from its run records, then its cases
    run_records: int
    case_records: int
    summary_records: int

    @property
    def incomplete(self):
        """A run's file (it has a run or case record) without the summary record a run writes last: the
        run was killed or crashed before it finished."""
        return (self.run_records or self.case_records) and not self.summary_records


@dataclass
class ResultSet:
    files: list = field(default_factory=list)
    file_infos: list = field(default_factory=list)  # FileInfo per file read
    runs: list = field(default_factory=list)        # the run records (dicts), each with "_source"
    cases: list = field(default_factory=list)       # Case
    skipped: list = field(default_factory=list)     # Skipped
    benches: list = field(default_factory=list)     # Bench
    summaries: list = field(default_factory=list)   # the summary records (dicts), each with "_source"
    selftests: list = field(default_factory=list)   # strength.Selftest: kill matrices
    designs: list = field(default_factory=list)     # strength.Design: suite designs
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

    def summarized_files(self):
        """The files that hold a summary record: a summary's counts speak for these files' cases only."""
        return {info.name for info in self.file_infos if info.summary_records}

    def extend(self, other):
        self.files += other.files
        self.file_infos += other.file_infos
        self.runs += other.runs
        self.cases += other.cases
        self.skipped += other.skipped
        self.benches += other.benches
        self.summaries += other.summaries
        self.selftests += other.selftests
        self.designs += other.designs
        self.warnings += other.warnings


def _error(record, where):
    """The case's error object, its fields that the page computes with checked."""
    error = fields.mapping(record, "error", where, "case")
    if error is None:
        return None
    for key in ("elements", "mismatches", "border_mismatches", "interior_mismatches"):
        fields.integer(error, key, where, "case error")
    for key in ("max_abs", "max_bound_fraction", "bound_growth_needed"):
        fields.number(error, key, where, "case error")
    fields.text(error, "judged_by", where, "case error")
    worst = fields.mapping(error, "worst", where, "case error")
    if worst:
        index = fields.array(worst, "index", where, "case error.worst")
        if index and not all(isinstance(i, int) and not isinstance(i, bool) for i in index):
            raise ResultsError(f"{where}: case error.worst attribute 'index' is {index!r}: it must be an array "
                               f"of whole numbers (the worst output's coordinates, docs/results-schema.md)")
        for key in ("got", "want", "bound"):
            fields.number(worst, key, where, "case error.worst")
    return error


def _case(record, where, file_backend):
    status = record.get("status")
    if status not in STATUSES:
        raise ResultsError(f"{where}: case attribute 'status' is {status!r}: it must be one of "
                           f"{', '.join(STATUSES)} (docs/results-schema.md)")
    backend = fields.text(record, "backend", where, "case", file_backend or "")
    if not backend:
        raise ResultsError(f"{where}: case attribute 'backend' is missing and no run record before it "
                           f"names one: a case must say which backend it ran on")
    descriptor = fields.text(record, "descriptor", where, "case")
    case_id = fields.text(record, "case_id", where, "case", descriptor)
    if not case_id:
        raise ResultsError(f"{where}: case has neither 'case_id' nor 'descriptor': one is needed to name it")
    features = fields.mapping(record, "features", where, "case") or {}
    for key in features:
        if key == "post_ops":  # the one feature that is a list (docs/results-schema.md)
            for name in fields.array(features, key, where, "case features") or []:
                fields.text({key: name}, key, where, "case features entry")
            continue
        fields.scalar(features, key, where, "case features")
    error = _error(record, where)
    mode = fields.text(record, "mode", where, "case")
    reason = fields.text(record, "reason", where, "case")
    kind = fields.text(record, "kind", where, "case", None)
    derived = kind is None
    if derived:
        kind = kinds.derive(status, mode, error is not None, reason)
    text = {key: fields.text(record, key, where, "case") for key in
            ("implementation", "reproducer", "shrunk_descriptor", "shrunk_reproducer", "shape_name")}
    return Case(backend=backend, case_id=case_id, op=fields.text(record, "op", where, "case", "conv"),
                descriptor=descriptor, seed=fields.scalar(record, "seed", where, "case"), mode=mode, status=status,
                kind=kind, kind_derived=derived, reason=reason, features=features, error=error,
                time_ms=fields.number(record, "time_ms", where, "case"), source=where,
                pass_not_claimed=record.get("pass_not_claimed") is True,
                requantization_fit=_rule_list(record.get("requantization_fit")),
                profiles=_profiles(record.get("profiles")), **text)


def _profiles(value):
    """A case record's "profiles": {name: True/False (passed), or None where the profile has no rule}."""
    if not isinstance(value, dict):
        return {}
    out = {}
    for name, v in value.items():
        if isinstance(name, str) and isinstance(v, dict):
            out[name] = None if v.get("applies") is False else v.get("passed") is True
    return out


def _rule_list(value):
    """A case record's "requantization_fit": a list of rule names, or None when absent or not a list of strings."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _bench(record, where, file_backend):
    backend = fields.text(record, "backend", where, "bench", file_backend or "")
    if not backend:
        raise ResultsError(f"{where}: bench attribute 'backend' is missing: a bench record must name its backend")
    numbers = {key: fields.number(record, key, where, "bench") for key in
               ("ms", "gflops", "optimized_ms", "reference_ms", "ratio_to_optimized")}
    return Bench(backend=backend, descriptor=fields.text(record, "descriptor", where, "bench"),
                 shape_name=fields.text(record, "shape_name", where, "bench"),
                 threads=fields.scalar(record, "threads", where, "bench"), source=where, **numbers)


def _skipped(record, where, file_backend):
    values = {key: fields.text(record, key, where, "skipped") for key in ("suite", "input", "reason")}
    return Skipped(backend=file_backend or "", origin=fields.text(record, "source", where, "skipped"),
                   source=where, **values)


def _run(record, where):
    fields.text(record, "backend", where, "run")
    for key in ("cases_total", "memory_limit_bytes"):
        fields.integer(record, key, where, "run")
    for key in ("timeout_s", "min_coverage"):
        fields.number(record, key, where, "run")
    return dict(record, _source=where)


def _summary(record, where):
    fields.text(record, "backend", where, "summary")
    counts = fields.mapping(record, "counts", where, "summary") or {}
    for key in counts:
        fields.integer(counts, key, where, "summary counts")
    for key in ("executed", "declined", "total", "not_run", "skipped_inputs"):
        fields.integer(record, key, where, "summary")
    for key in ("seconds", "coverage", "min_coverage"):
        fields.number(record, key, where, "summary")
    fields.integer(record, "exit_code", where, "summary", minimum=-(2 ** 31))
    fields.flag(record, "complete", where, "summary")
    for item in fields.array(record, "decline_reasons", where, "summary") or []:
        if not isinstance(item, dict):
            raise ResultsError(f"{where}: summary attribute 'decline_reasons' holds {item!r}: each entry must be "
                               f"an object {{\"reason\": text, \"count\": n}} (docs/results-schema.md)")
        fields.text(item, "reason", where, "summary decline_reasons")
        fields.integer(item, "count", where, "summary decline_reasons")
    return dict(record, _source=where)


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON (a writer of this schema writes null for a non-finite number)")


def _record(line, where):
    try:
        record = json.loads(line, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{where}: not valid JSON ({e.msg} at column {e.colno}): each line of a result "
                           f"file must be one JSON object") from None
    except (ValueError, RecursionError) as e:
        raise ResultsError(f"{where}: not valid JSON ({e}): each line of a result file must be one JSON "
                           f"object") from None
    if not isinstance(record, dict):
        raise ResultsError(f"{where}: a {type(record).__name__} where a JSON object was expected: each "
                           f"line of a result file must be one JSON object")
    if record.get("record") is None:
        raise ResultsError(f"{where}: attribute 'record' is missing: every record names its kind "
                           f"({', '.join(KNOWN_RECORDS)})")
    if not isinstance(record["record"], str):
        raise ResultsError(f"{where}: attribute 'record' is {record['record']!r}: it must be a string naming the "
                           f"record's kind ({', '.join(KNOWN_RECORDS)})")
    return record


def read_lines(lines, name):
    """Parses the lines of one result file called `name` into a ResultSet."""
    result = ResultSet(files=[name])
    info = FileInfo(name=name, backends=[], run_records=0, case_records=0, summary_records=0)
    file_backend = None
    unknown = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        record = _record(line, where)
        kind = record["record"]
        if kind == "run":
            record = _run(record, where)
            file_backend = record.get("backend") or file_backend
            result.runs.append(record)
            info.run_records += 1
            schema = record.get("schema")
            if isinstance(schema, int) and schema > 1:
                result.warnings.append(f"{where}: schema {schema} is newer than this reader (1); unknown keys "
                                       f"are ignored")
        elif kind == "case":
            result.cases.append(_case(record, where, file_backend))
            info.case_records += 1
        elif kind == "skipped":
            result.skipped.append(_skipped(record, where, file_backend))
        elif kind == "bench":
            result.benches.append(_bench(record, where, file_backend))
        elif kind == "summary":
            result.summaries.append(_summary(record, where))
            info.summary_records += 1
        elif kind == "selftest":
            result.selftests.append(strength.read_selftest(record, where))
        elif kind == "design":
            result.designs.append(strength.read_design(record, where))
        else:
            unknown += 1  # a newer writer's record; ignored, as the schema asks
    anything = (result.runs or result.cases or result.skipped or result.benches or result.summaries
                or result.selftests or result.designs)
    if unknown and not anything:
        raise ResultsError(f"{name}: none of its {unknown} records is a result record ({', '.join(KNOWN_RECORDS)}):"
                           f" it is not a file written by convcheck run, bench, merge, selftest or list")
    if not anything:
        result.warnings.append(f"{name}: the file holds no run, case, bench, summary, selftest or design record")
    for backend in [r.get("backend") for r in result.runs] + [c.backend for c in result.cases]:
        if backend and backend not in info.backends:
            info.backends.append(backend)
    result.file_infos.append(info)
    return result


def _decode(data, path):
    """The file's bytes as text: a binary file or text that is not UTF-8 is not a result file."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise ResultsError(f"{path}: a binary file (a NUL byte at offset {nul}), not a result file: result files "
                           f"are JSON lines in UTF-8 (convcheck run --json)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultsError(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}): result files "
                           f"are JSON lines in UTF-8 (convcheck run --json)") from None


def read_file(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ResultsError(f"{path}: cannot read the result file: {e.strerror or e}") from None
    # split at "\n" only: str.splitlines would also split inside a JSON string holding U+2028 or U+0085
    return read_lines(_decode(data, path).split("\n"), str(path))


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
