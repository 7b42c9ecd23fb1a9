"""What went wrong in a case: its "kind" (docs/results-schema.md), finer than its status.

A writer that knows the kind writes it in the case record ("" for a passed case). Files written before
the kind existed do not have it; for those the reader derives one from what the record does say (status,
mode, whether there is an error record, and the runner's reason text), and marks it as derived.
"""

# The kinds of the schema, in the order the report lists failures, with what each means.
DESCRIPTIONS = {
    "crash": "the backend crashed (signal, abort, exit, a write outside its output) while running the case",
    "hang": "the backend did not finish within the time limit",
    "out_of_memory": "the backend's child went over its memory limit",
    "plugin_error": "the backend returned an error for a case it had accepted",
    "mismatch": "outputs differ from the reference beyond the accuracy contract",
    "nan": "NaN outputs where the reference is finite",
    "unwritten": "outputs the backend never wrote",
    "paths_differ": "the backend's one-shot call and its prepared plan computed different outputs",
    "nondeterministic": "two runs of the case (repeats or thread counts) wrote outputs that differ bit for bit",
    "gaps_written": "the backend wrote between the elements of a strided output (memory it does not own)",
    "statistics": "every output within its bound, but the errors together are biased or too large on average",
    "invalid_case": "the case's own descriptor is invalid (not the backend's fault)",
    "accepted_invalid": "the backend computed a case that breaks a rule of the spec instead of refusing it (invalid suite)",
    "probe": "a NaN placed in one input did not reach exactly the outputs whose receptive field holds it",
    "leak": "heap not given back between create, execute and destroy",
    "xpass": "an expected failure that passed: the expectations file is out of date",
    "vacuous_bound": "unchecked: the accuracy contract's bound admits any value there and the statistics cannot "
                     "judge the outputs",
    "declined": "the backend declined the case (unsupported)",
    "over_memory_limit": "the runner refused the case before running it: it cannot fit in the memory limit",
}
ORDER = list(DESCRIPTIONS)

# Cases that did not execute: the coverage counts them apart from the executed ones.
NOT_EXECUTED = {"declined", "over_memory_limit"}


def derive(status, mode, has_error, reason):
    """The kind of a case record that has none (a file from a convcheck before the kind existed).

    crashed -> crash, hanged -> hang, unsupported -> declined, xpass -> xpass, unchecked -> vacuous_bound,
    passed -> "". A failed
    (or expected-failed) case is a plugin error when it has no error record (the plugin returned an error,
    or a leak check failed), a probe failure in probe mode, else a mismatch; the runner's reason then says
    whether outputs were never written or NaN (conformance/runner/conv/check.cpp, mismatch_reason)."""
    simple = {"passed": "", "unchecked": "vacuous_bound", "crashed": "crash", "hanged": "hang", "unsupported": "declined",
              "xpass": "xpass"}
    if status in simple:
        return simple[status]
    if reason.startswith("leak:") or " | leak:" in reason:
        return "leak"
    if not has_error:
        return "plugin_error"
    if mode == "probe":
        return "probe"
    if "outputs never written" in reason:
        return "unwritten"
    if "NaN in " in reason and "where the reference is finite" in reason:
        return "nan"
    return "mismatch"


def order_rank(kind):
    """Position in the report's order; kinds a newer writer adds sort after the known ones."""
    return ORDER.index(kind) if kind in ORDER else len(ORDER)
