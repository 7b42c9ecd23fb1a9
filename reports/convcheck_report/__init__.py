"""convcheck_report: turns convcheck result files (JSON lines, docs/results-schema.md) into one
self-contained HTML page. One concept per module:

- fields.py       the types of the schema's fields, checked as a record is read
- results.py      reading the JSON-lines records (run / case / skipped / bench / summary)
- statuses.py     the eight case statuses, their order of severity and their colours
- kinds.py        what went wrong in a case (its "kind"), and the kind of a record that has none
- failures.py     the Failures section: every non-pass with its message and shrunk reproducer
- coverage.py     executed / declined / refused / not run per backend, decline reasons, skipped inputs
- completeness.py banners for incomplete (killed) and stopped (fail-fast, interrupted) runs
- summary.py      per-backend counts and the pass rate with what it is a fraction of
- settings.py     the Settings section: what defines each backend's run
- features.py     the backend x feature matrix and the per-feature case tables
- accuracy.py     error as a fraction of the contract's bound, worst cases, border vs interior
- performance.py  bench records: GFLOP/s and the ratio to the optimized implementation
- compare.py      two runs compared: newly failing, newly passing
- strength.py     suite strength: the selftest kill matrix and the suite design's pair coverage
- charts.py       matplotlib (Agg) figures inlined as base64 PNG
- render.py       the Jinja2 page
"""
