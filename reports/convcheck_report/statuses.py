"""The eight case statuses of docs/results-schema.md, their severity and their colours."""

# Most severe first. A feature-matrix cell takes the colour of the most severe status among its cases,
# except that "unsupported" only colours a cell where no case ran at all (see features.cell_state).
SEVERITY = ["crashed", "hanged", "failed", "xpass", "unchecked", "xfail", "passed", "unsupported"]
STATUSES = ["passed", "unchecked", "failed", "unsupported", "crashed", "hanged", "xfail", "xpass"]

# A case that ran and whose result was not what was expected: the backend is not conformant there.
# "xpass" is an expected failure that passed: the expectation file is out of date, so it is reported
# as a problem too (DESIGN.md: "An expected failure that passes is reported as such").
BAD = {"failed", "crashed", "hanged", "xpass"}
# A case that ran and whose result was the expected one.
GOOD = {"passed", "xfail"}
# "unchecked" is neither: the case ran and broke no rule, but the accuracy contract could not check it
# (docs/accuracy.md, vacuous bounds). It is not a pass, and it fails a run unless the run allowed it.
UNCHECKED = "unchecked"

# Background colour (light, for table cells) and strong colour (for charts and badges).
COLOURS = {
    "passed": ("#c8e6c9", "#2e7d32"),
    "unchecked": ("#fff9c4", "#f9a825"),
    "xfail": ("#e6f4d7", "#7cb342"),
    "failed": ("#ffcdd2", "#c62828"),
    "xpass": ("#ffe0b2", "#ef6c00"),
    "crashed": ("#e1bee7", "#6a1b9a"),
    "hanged": ("#f8bbd0", "#ad1457"),
    "unsupported": ("#eeeeee", "#757575"),
}

DESCRIPTIONS = {
    "passed": "ran and matched the reference under the accuracy contract",
    "unchecked": "ran, but the accuracy contract could not check it (its bound is vacuous and the statistics "
                 "cannot judge it): not a pass",
    "failed": "ran and did not match the reference",
    "unsupported": "the backend declined the case",
    "crashed": "the backend crashed (signal) while running the case",
    "hanged": "the backend did not finish within the time limit",
    "xfail": "an expected failure (declared in the overrides file) that failed",
    "xpass": "an expected failure that passed: the overrides file is out of date",
}


def severity_rank(status):
    """0 for the most severe status; unknown statuses sort last."""
    return SEVERITY.index(status) if status in SEVERITY else len(SEVERITY)
