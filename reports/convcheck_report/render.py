"""Assembles the page: reads nothing itself; takes ResultSets, computes each section, renders the
Jinja2 template reports/templates/report.html.j2 into one self-contained HTML string."""
import datetime
import functools
import math
import os

import jinja2

from . import (accuracy, charts, completeness, coverage, features, performance, profiles, quantized, settings, strength,
               summary)
from .failures import failures
from .compare import compare
from .statuses import BAD, COLOURS, DESCRIPTIONS, STATUSES

TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "templates")


def number(value, digits=3):
    """A number for a table cell: '—' for missing, otherwise `digits` significant digits."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return "—" if value is None else str(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.{digits}g}"


def percent(value):
    return "—" if value is None else f"{100 * value:.1f} %"


@functools.cache
def environment():
    """One environment per process: it keeps the templates it compiled (compiling them is nine tenths of a
    render), and its loader still checks each template file's time stamp, so an edited template is read anew."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["number"] = number
    env.filters["percent"] = percent
    env.globals["reproducer"] = accuracy.default_reproducer
    env.globals["feature_values"] = features.feature_values
    env.globals["anchor"] = features.anchor
    return env


def build_context(results, comparison_pair=None, generated=None):
    """The template's variables. `results` holds the cases and bench records to report (already joined);
    `comparison_pair` is (before, after) ResultSets or None."""
    summaries = summary.summarize(results)
    backends = [s.backend for s in summaries]
    failure_list = failures(results.cases, backends)
    worst = accuracy.worst_cases(results.cases)
    distributions = accuracy.distributions(results.cases)
    locations, location_totals = accuracy.error_locations(results.cases)
    perf = performance.performance(results.benches, results.warnings)
    colours = charts.series_colours(results.backends(), perf.series)
    comparison = compare(*comparison_pair) if comparison_pair else None
    if comparison_pair:
        results.warnings.extend(w for r in comparison_pair for w in r.warnings if w not in results.warnings)
    modes = {}
    for c in results.cases:
        modes.setdefault(c.backend, {}).setdefault(c.mode or "—", 0)
        modes[c.backend][c.mode or "—"] += 1
    return {
        "generated": generated or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "files": results.files,
        "warnings": results.warnings,
        "statuses": STATUSES,
        "colours": COLOURS,
        "descriptions": DESCRIPTIONS,
        "summaries": summaries,
        "banners": completeness.banners(results),
        "failures": failure_list,
        "failures_not_in_worst": failure_list.total - sum(1 for c in worst if c.status in BAD),
        "executed_total": sum(s.coverage.executed for s in summaries),
        "settings": [settings.backend_settings(results, b) for b in backends],
        "skipped_groups": coverage.skipped_groups(results.skipped),
        "skipped_total": len(results.skipped),
        "backends": backends,
        "total_cases": len(results.cases),
        "modes": modes,
        "matrix": features.build_matrix(results.cases, backends),
        "quantized_rules": quantized.observed_rules(results.cases, backends),
        "profile_rows": profiles.profile_rows(results.cases, backends),
        "case_tables": features.build_case_tables(results.cases, backends),
        "passed_rows_limit": features.PASSED_ROWS_LIMIT,
        "other_rows_limit": features.OTHER_ROWS_LIMIT,
        "distributions": distributions,
        "accuracy_chart": charts.accuracy_chart(distributions, colours),
        "buckets": accuracy.BUCKETS,
        "worst_cases": worst,
        "judged_by": accuracy.judged_by_counts(results.cases),
        "locations": locations,
        "location_totals": location_totals,
        "performance": perf,
        "gflops_chart": charts.gflops_chart(perf, colours) if perf.shapes else None,
        "ratio_chart": charts.ratio_chart(perf, colours) if perf.shapes else None,
        "comparison": comparison,
        "selftests": results.selftests,
        "designs": strength.designs_to_show(results.designs),
        "kill_modes": strength.MODES,
    }


def render(results, comparison_pair=None, generated=None):
    return environment().get_template("report.html.j2").render(
        **build_context(results, comparison_pair, generated))
