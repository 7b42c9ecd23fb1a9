#!/usr/bin/python3
"""Writes one self-contained HTML report from convcheck result files (docs/reports.md).

    /usr/bin/python3 reports/make_report.py results/*.jsonl [--bench bench.jsonl]
        [--compare before.jsonl after.jsonl] -o report.html

Prints the path of the page it wrote. Exit code 2 on bad input (a missing, unreadable, binary or non-UTF-8
file, a folder, a line that is not a result record) and on an output it cannot write, with one line on
stderr that names the file (and the line, the value and the rule).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from convcheck_report import results  # noqa: E402


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="make_report.py", description="Turn convcheck result files (JSON lines) into one HTML page.")
    parser.add_argument("results", nargs="*", metavar="RESULTS.jsonl",
                        help="result files of `convcheck run --json` (several backends and shards are joined)")
    parser.add_argument("--bench", action="append", default=[], metavar="BENCH.jsonl",
                        help="bench records of `convcheck bench --json` (may be repeated)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE.jsonl", "AFTER.jsonl"),
                        help="two runs to compare: what newly fails and what newly passes")
    parser.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="the page to write")
    arguments = parser.parse_args(argv)
    if not arguments.results and not arguments.compare and not arguments.bench:
        parser.error("no input: give result files, --bench or --compare")
    return arguments


def error(message):
    """One line on stderr; exit code 2 (docs/reports.md)."""
    print(f"make_report.py: error: {message}", file=sys.stderr)
    return 2


def write_page(output, html):
    """Writes the page; a folder that cannot be made or a file that cannot be written is one line."""
    folder = os.path.dirname(output)
    if os.path.lexists(folder) and not os.path.isdir(folder):
        return error(f"{output}: cannot write the report: {folder} is not a folder")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(output, "w", encoding="utf-8") as f:
            f.write(html)
    except OSError as e:
        return error(f"{output}: cannot write the report: {e.strerror or e}")
    return 0


def main(argv=None):
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    output = os.path.abspath(arguments.output)
    inputs = arguments.results + arguments.bench + (arguments.compare or [])
    for path in inputs:
        if os.path.exists(path) and os.path.exists(output) and os.path.samefile(path, output):
            return error(f"{arguments.output}: the output is also an input: writing the page would destroy "
                         f"the results it is made from")
    try:
        comparison_pair = None
        if arguments.compare:
            comparison_pair = tuple(results.read_files([path]) for path in arguments.compare)
        if arguments.results:
            report = results.read_files(arguments.results)
        elif comparison_pair:
            # Only --compare: the rest of the page describes the after run.
            report = results.read_files([arguments.compare[1]])
        else:
            report = results.ResultSet()
        if arguments.bench:
            report.extend(results.read_files(arguments.bench))
        # imported only now: matplotlib takes seconds to load, and bad input is refused without it
        from convcheck_report import render
        html = render.render(report, comparison_pair)
    except results.ResultsError as e:
        return error(str(e))
    status = write_page(output, html)
    if status == 0:
        print(output)
    return status


if __name__ == "__main__":
    sys.exit(main())
