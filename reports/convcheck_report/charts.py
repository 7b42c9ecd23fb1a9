"""Charts drawn with matplotlib's Agg backend and inlined in the page as base64 PNG data URIs, so that
the page needs no network and no files beside it."""
import base64
import io
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import matplotlib.ticker  # noqa: E402

from .accuracy import BUCKETS  # noqa: E402

PALETTE = plt.get_cmap("tab10").colors


def series_colours(backends, series=()):
    """One colour per backend, the same in every chart. The series "backend (T threads)" of one backend
    take its colour, each lighter than the one before, so that they stay apart."""
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(backends)}
    variants = {}
    for name in series:
        if name not in colours:
            variants.setdefault(name.split(" (")[0], []).append(name)
    for base, names in variants.items():
        colour = colours.get(base, PALETTE[len(colours) % len(PALETTE)])
        for j, name in enumerate(names):
            mix = 0.6 * j / len(names)
            colours[name] = tuple(c + (1.0 - c) * mix for c in colour)
    return colours


def to_data_uri(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    plt.close(figure)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _grouped_bars(axis, categories, series, values, colours, horizontal=False):
    """Bars of len(series) per category; values[s][i] is None where there is no measurement."""
    width = 0.8 / max(1, len(series))
    for j, name in enumerate(series):
        positions, heights = [], []
        for i, v in enumerate(values[name]):
            if v is not None:
                positions.append(i - 0.4 + width * (j + 0.5))
                heights.append(v)
        if horizontal:
            axis.barh(positions, heights, height=width, label=name, color=colours[name])
        else:
            axis.bar(positions, heights, width=width, label=name, color=colours[name])


def accuracy_chart(distributions, colours):
    """One panel per dtype: the share of outputs in each bound-fraction bucket, one bar per backend."""
    dtypes = []
    for d in distributions:
        if d.outputs and d.dtype not in dtypes:
            dtypes.append(d.dtype)
    if not dtypes:
        return None
    figure, axes = plt.subplots(1, len(dtypes), figsize=(4.6 * len(dtypes) + 0.6, 3.4), squeeze=False,
                                sharey=True)
    # Log axis: the bottom must be below the smallest share drawn, or a few outputs over the bound vanish.
    smallest = min(f for d in distributions for f in d.fractions() if f > 0)
    for axis, dtype in zip(axes[0], dtypes):
        shown = [d for d in distributions if d.dtype == dtype and d.outputs]
        names = [d.backend for d in shown]
        values = {d.backend: [f if f > 0 else None for f in d.fractions()] for d in shown}
        _grouped_bars(axis, BUCKETS, names, values, colours)
        axis.set_yscale("log")
        axis.set_ylim(smallest / 2, 1.5)
        # Decades only, no minor ticks: fewer tick labels to lay out (most of the drawing time otherwise).
        axis.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, numticks=8))
        axis.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        axis.set_title(f"dtype {dtype}")
        axis.set_xticks(range(len(BUCKETS)))
        axis.set_xticklabels([f"{i / 10:.1f}" for i in range(10)] + ["≥1"], fontsize=8)
        axis.set_xlabel("|error| / bound (bucket start)")
        axis.axvspan(len(BUCKETS) - 1.5, len(BUCKETS) - 0.5, color="#ffcdd2", zorder=0)
        axis.legend(fontsize=8)
        axis.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("share of outputs (log)")
    return to_data_uri(figure)


def _bench_axes(perf, series):
    height = 0.9 + 0.32 * len(perf.shapes) * max(1, len(series)) ** 0.5
    figure, axis = plt.subplots(figsize=(8.5, max(2.4, height)))
    axis.set_yticks(range(len(perf.shapes)))
    axis.set_yticklabels(perf.shapes, fontsize=8)
    axis.set_ylim(len(perf.shapes) - 0.5, -0.5)  # first shape on top
    axis.grid(axis="x", alpha=0.3)
    return figure, axis


def gflops_chart(perf, colours):
    """GFLOP/s per shape, one bar per backend."""
    values = perf.values("gflops")
    if not any(v is not None for vs in values.values() for v in vs):
        return None
    figure, axis = _bench_axes(perf, perf.series)
    _grouped_bars(axis, perf.shapes, perf.series, values, colours, horizontal=True)
    axis.set_title("GFLOP/s per shape (higher is faster)", fontsize=10)
    axis.set_xlabel("GFLOP/s")
    axis.legend(fontsize=8, loc="best")
    return to_data_uri(figure)


def ratio_chart(perf, colours):
    """Speed relative to convcheck's optimized implementation, optimized_ms / ms, as bars that start at 1
    on a log axis: faster to the right, slower to the left, 2x faster as long as 2x slower. A series whose
    ratios are all 1 (the optimized implementation itself) is left out."""
    values = perf.values("ratio")
    series = [s for s in perf.series
              if any(v is not None and v > 0 and math.isfinite(v) and v != 1.0 for v in values[s])]
    if not series:
        return None
    drawn = [v for s in series for v in values[s] if v is not None and v > 0 and math.isfinite(v)]
    figure, axis = _bench_axes(perf, series)
    width = 0.8 / len(series)
    for j, name in enumerate(series):
        positions, widths = [], []
        for i, v in enumerate(values[name]):
            if v is not None and v > 0 and math.isfinite(v):
                positions.append(i - 0.4 + width * (j + 0.5))
                widths.append(v - 1.0)
        axis.barh(positions, widths, left=1.0, height=width, label=name, color=colours[name])
    axis.set_xscale("log")
    low = 2.0 ** math.floor(math.log2(min(drawn + [1.0]) * 0.9))
    high = 2.0 ** math.ceil(math.log2(max(drawn + [1.0]) * 1.1))
    axis.set_xlim(low, high)
    ticks = [2.0 ** e for e in range(int(math.log2(low)), int(math.log2(high)) + 1)]
    axis.set_xticks(ticks)
    axis.set_xticklabels([f"{t:g}×" for t in ticks])
    axis.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    axis.axvline(1.0, color="black", linewidth=1)
    axis.set_title("Speed relative to convcheck's optimized implementation (optimized_ms / ms)", fontsize=10)
    axis.set_xlabel("← slower than optimized · faster than optimized →")
    axis.legend(fontsize=8, loc="best")
    return to_data_uri(figure)
