"""Shared test setup: the package is imported from reports/, the fixtures live in tests/fixtures/."""
import os
import sys

import pytest

REPORTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPORTS, "tests", "fixtures")
sys.path.insert(0, REPORTS)


def fixture_path(name):
    return os.path.join(FIXTURES, name)


RUN_FILES = [fixture_path(n) for n in ("run_optimized.jsonl", "run_onednn.jsonl", "run_xnnpack_shard0.jsonl",
                                       "run_xnnpack_shard1.jsonl")]


@pytest.fixture
def all_runs():
    from convcheck_report import results
    return results.read_files(RUN_FILES)


def case(result_set, backend, case_id):
    matches = [c for c in result_set.cases if c.backend == backend and c.case_id == case_id]
    assert len(matches) == 1, f"{backend} {case_id}: {len(matches)} records"
    return matches[0]
