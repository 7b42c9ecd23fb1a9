"""Suite strength: how much the suite that ran can catch (docs/selftest.md).

Two inputs, each one JSON object on one line (so a JSON-lines reader takes them as they are):
- the kill matrix of `convcheck selftest --suite S --json FILE` (record "selftest"): per bundled mutant
  (one deliberate bug, or correct code computed another way), whether the suite caught it and in which
  mode;
- the design of `convcheck list --suite S --json` (record "design"): how the suite's discrete
  descriptors spread over the nine design attributes, and which pairs of attribute values they cover.
"""
from dataclasses import dataclass, field

from . import fields
from .fields import ResultsError

MODES = ("exact", "bound", "probe")


@dataclass
class Mutant:
    name: str
    kind: str           # baseline, bug, honest
    bug_class: str      # the class of bug (mutants.def), e.g. "rounding", "cc"
    meant: str          # the check meant to catch it: exact, bound, probe, crash; "-" for correct code
    what: str
    verdict: str        # killed, killed*, MISSED, elsewhere (left to its own suite); passes, FAILS for correct code
    cases: int
    failed: dict        # mode -> cases that failed
    crashed: dict       # mode -> cases that crashed or hanged
    first_case: str
    first_reason: str
    first_reproducer: str

    @property
    def bad(self):
        """A bug the suite let through, or correct code it failed."""
        return self.verdict in ("MISSED", "FAILS")

    def caught_in(self, mode):
        """'' or e.g. '4' or '2 + 1 crashed': the cases of `mode` that caught it."""
        failed, crashed = self.failed.get(mode, 0), self.crashed.get(mode, 0)
        parts = ([str(failed)] if failed else []) + ([f"{crashed} crashed"] if crashed else [])
        return " + ".join(parts)


@dataclass
class Selftest:
    suite: str
    seed: object
    cases: int
    bugs: int
    killed: int
    killed_as_meant: int
    missed: list
    false_alarms: list
    mutants: list       # Mutant, in the order of mutants.def
    source: str

    def classes(self):
        """[(class, [Mutant])] in order of first appearance: the matrix grouped by class of bug."""
        groups = {}
        for m in self.mutants:
            groups.setdefault(m.bug_class, []).append(m)
        return list(groups.items())


@dataclass
class FactorPair:
    first: str
    second: str
    covered: int
    total: int


@dataclass
class Design:
    suite: str
    cases: int
    conv_descriptors: int
    distribution: dict  # attribute -> {value: descriptors}
    covered: int
    total: int
    missing: list       # "pads=none & kernel=beyond_input", ...
    by_factors: list = field(default_factory=list)  # FactorPair
    source: str = ""

    @property
    def fraction(self):
        return self.covered / self.total if self.total else None

    def factors(self):
        """The attributes in the design's order (by_factors follows it; JSON objects are written sorted),
        then any other attribute of the distribution: the rows and columns of the pair table."""
        names = []
        for p in self.by_factors:
            for name in (p.first, p.second):
                if name not in names:
                    names.append(name)
        return names + [name for name in self.distribution if name not in names]

    def pair(self, first, second):
        """The FactorPair of two attributes in either order, or None."""
        for p in self.by_factors:
            if {p.first, p.second} == {first, second}:
                return p
        return None


def _counts_by_mode(record, key, where):
    counts = fields.mapping(record, key, where, "selftest mutant") or {}
    for mode in counts:
        fields.integer(counts, mode, where, f"selftest mutant {key}")
    return counts


def _text_list(record, key, where, kind):
    items = fields.array(record, key, where, kind) or []
    if not all(isinstance(i, str) for i in items):
        raise ResultsError(f"{where}: {kind} attribute {key!r} holds a value that is not a string: it must be an "
                           f"array of strings (docs/results-schema.md)")
    return items


def read_selftest(record, where):
    """A `selftest` record (docs/results-schema.md), its types checked."""
    mutants = []
    for item in fields.array(record, "mutants", where, "selftest") or []:
        if not isinstance(item, dict):
            raise ResultsError(f"{where}: selftest attribute 'mutants' holds {item!r}: each entry must be an object "
                               f"(docs/results-schema.md)")
        text = {key: fields.text(item, key, where, "selftest mutant") for key in
                ("name", "kind", "class", "meant", "what", "verdict", "first_case", "first_reason", "first_reproducer")}
        mutants.append(Mutant(name=text["name"], kind=text["kind"], bug_class=text["class"], meant=text["meant"],
                              what=text["what"], verdict=text["verdict"],
                              cases=fields.integer(item, "cases", where, "selftest mutant") or 0,
                              failed=_counts_by_mode(item, "failed", where),
                              crashed=_counts_by_mode(item, "crashed", where), first_case=text["first_case"],
                              first_reason=text["first_reason"], first_reproducer=text["first_reproducer"]))
    counts = {key: fields.integer(record, key, where, "selftest") or 0 for key in
              ("cases", "bugs", "killed", "killed_as_meant")}
    return Selftest(suite=fields.text(record, "suite", where, "selftest"),
                    seed=fields.scalar(record, "seed", where, "selftest"),
                    missed=_text_list(record, "missed", where, "selftest"),
                    false_alarms=_text_list(record, "false_alarms", where, "selftest"),
                    mutants=mutants, source=where, **counts)


def read_design(record, where):
    """A `design` record (`convcheck list --suite S --json`), its types checked."""
    distribution = fields.mapping(record, "distribution", where, "design") or {}
    for attribute, values in distribution.items():
        if not isinstance(values, dict):
            raise ResultsError(f"{where}: design distribution attribute {attribute!r} is {values!r}: it must be an "
                               f"object of value counts (docs/results-schema.md)")
        for value in values:
            fields.integer(values, value, where, f"design distribution {attribute}")
    pairs = fields.mapping(record, "pair_coverage", where, "design") or {}
    by_factors = []
    for item in fields.array(pairs, "by_factors", where, "design pair_coverage") or []:
        names = item.get("factors") if isinstance(item, dict) else None
        if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
            raise ResultsError(f"{where}: design pair_coverage attribute 'by_factors' holds {item!r}: each entry must "
                               f"be {{\"factors\": [two names], \"covered\": n, \"total\": n}} (docs/results-schema.md)")
        by_factors.append(FactorPair(names[0], names[1],
                                     fields.integer(item, "covered", where, "design pair_coverage by_factors") or 0,
                                     fields.integer(item, "total", where, "design pair_coverage by_factors") or 0))
    return Design(suite=fields.text(record, "suite", where, "design"),
                  cases=fields.integer(record, "cases", where, "design") or 0,
                  conv_descriptors=fields.integer(record, "conv_descriptors", where, "design") or 0,
                  distribution=distribution,
                  covered=fields.integer(pairs, "covered", where, "design pair_coverage") or 0,
                  total=fields.integer(pairs, "total", where, "design pair_coverage") or 0,
                  missing=_text_list(pairs, "missing", where, "design pair_coverage"),
                  by_factors=by_factors, source=where)


def designs_to_show(designs):
    """One design per suite (the last read), suites with discrete descriptors only: a CC-only suite has no
    design attributes."""
    last = {}
    for d in designs:
        last[d.suite] = d
    return [d for d in last.values() if d.conv_descriptors]
