"""Performance from bench records: GFLOP/s per shape and backend, and the ratio to the optimized
implementation (docs/results-schema.md: ratio_to_optimized = optimized_ms / ms, above 1 the backend is
faster than ours)."""
from dataclasses import dataclass


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass
class BenchRow:
    shape: str
    descriptor: str
    series: str           # the backend, with its thread count where one backend was measured at several
    ms: object
    gflops: object
    ratio: object
    source: str


@dataclass
class Performance:
    shapes: list          # in order of first appearance
    series: list
    rows: dict            # (shape, series) -> BenchRow

    def get(self, shape, series):
        return self.rows.get((shape, series))

    def rows_for(self, shape):
        """The shape's BenchRows, in series order."""
        return [self.rows[(shape, s)] for s in self.series if (shape, s) in self.rows]

    def values(self, attribute):
        """{series: [value per shape, or None]} for a chart."""
        return {s: [getattr(self.rows[(shape, s)], attribute) if (shape, s) in self.rows else None
                    for shape in self.shapes] for s in self.series}


def performance(benches, warnings):
    """Tabulates the bench records; a (shape, backend, threads) measured twice keeps the later record."""
    threads = {}
    for b in benches:
        threads.setdefault(b.backend, set()).add(b.threads)
    shapes, series, rows = [], [], {}
    for b in benches:
        name = (b.backend if len(threads[b.backend]) == 1 else
                f"{b.backend} ({b.threads} thread{'' if b.threads == 1 else 's'})")
        ms, optimized_ms = _number(b.ms), _number(b.optimized_ms)
        ratio = _number(b.ratio_to_optimized)
        if ratio is None and ms and optimized_ms is not None:
            ratio = optimized_ms / ms
        row = BenchRow(shape=b.shape, descriptor=b.descriptor, series=name, ms=ms, gflops=_number(b.gflops),
                       ratio=ratio, source=b.source)
        if (b.shape, name) in rows:
            warnings.append(f"{b.source}: shape {b.shape!r} of {name!r} was already measured at "
                            f"{rows[(b.shape, name)].source}; the later record is kept")
        rows[(b.shape, name)] = row
        if b.shape not in shapes:
            shapes.append(b.shape)
        if name not in series:
            series.append(name)
    return Performance(shapes=shapes, series=series, rows=rows)
