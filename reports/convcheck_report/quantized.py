"""The requantization rule each backend follows, as its quantized cases show it (docs/quantized.md): the rules
that every output of every quantized case of the backend agreed with (the case records' "requantization_fit"),
whatever the verdicts. A backend whose outputs fit one rule on smoke's tie cases follows that rule; none: it
follows none of the four.
"""
from dataclasses import dataclass


@dataclass
class ObservedRule:
    backend: str
    cases: int          # quantized cases with a recorded fit
    rules: list         # the rules every one of them fits, in the reference's order


RULES = ["double_rounding", "single_rounding", "nearest_even_f32", "nearest_even_f32_with_zero_point"]


def observed_rules(cases, backends):
    """One row per backend that ran a quantized case with a recorded fit."""
    rows = []
    for backend in backends:
        fits = [set(c.requantization_fit) for c in cases if c.backend == backend and c.requantization_fit is not None]
        if not fits:
            continue
        common = set.intersection(*fits)
        rows.append(ObservedRule(backend=backend, cases=len(fits), rules=[r for r in RULES if r in common]))
    return rows
