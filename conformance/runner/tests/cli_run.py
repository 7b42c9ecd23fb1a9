"""What the end-to-end checks of the `convcheck` command share (verdict_check.py, determinism_check.py,
shard_merge_check.py): running it without ctest's sharding variables, and reading its JSON-lines results."""
import json
import os
import subprocess
import sys

# GoogleTest's and Bazel's sharding variables: convcheck honours them (docs/runner.md), so a check that
# runs under a sharded ctest must not pass them on unless it means to
SHARD_VARIABLES = ("GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX")


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if k not in SHARD_VARIABLES}
    env.update(extra or {})
    return env


def run_convcheck(convcheck, args, expect, env=None):
    """Runs convcheck with args; exits the check, with both streams, when the exit code is not `expect`."""
    p = subprocess.run([convcheck] + args, env=clean_env(env), capture_output=True, text=True, errors="replace")
    if p.returncode != expect:
        sys.exit(f"convcheck {' '.join(args)}: exit {p.returncode}, expected {expect}\n{p.stdout}\n{p.stderr}")
    return p


def records(file):
    with open(file, encoding="utf-8") as f:  # strict: invalid UTF-8 raises
        return [json.loads(line) for line in f if line.strip()]
