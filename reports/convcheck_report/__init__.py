"""convcheck_report: turns convcheck result files (JSON lines, docs/results-schema.md) into one
self-contained HTML page. One concept per module:

- results.py      reading the JSON-lines records (run / case / bench / summary)
- statuses.py     the seven case statuses, their order of severity and their colours
- summary.py      per-backend counts, pass rate, the run's settings and versions
- features.py     the backend x feature matrix and the per-feature case tables
- accuracy.py     error as a fraction of the contract's bound, worst cases, border vs interior
- performance.py  bench records: GFLOP/s and the ratio to the optimized implementation
- compare.py      two runs compared: newly failing, newly passing
- charts.py       matplotlib (Agg) figures inlined as base64 PNG
- render.py       the Jinja2 page
"""
