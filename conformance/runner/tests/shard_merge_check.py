"""Sharding through the command line (ctest conformance_shard_merge).

usage: shard_merge_check.py <convcheck> <plugin.so>
Runs the smoke suite whole, then in 3 shards (--shard), then in 2 shards (GTEST_ and TEST_ variables),
merges each set and checks that the merged cases equal the whole run's (ids, descriptors, seeds, modes,
statuses), that merge refuses a missing shard, and that JUnit XML is written. Then a benchdnn batch file
with skipped inputs in 2 shards: the merged file holds every shard's "skipped" records and counts them in its
summary, as the whole run does, and a shard whose summary disagrees with its records is refused.
"""
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

from cli_run import records, run_convcheck

convcheck, plugin = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="convcheck_shards_")


def run(args, env=None, expect=0):
    return run_convcheck(convcheck, args, expect, env)


def cases(path):
    rs = records(path)
    assert rs[0]["record"] == "run" and rs[-1]["record"] == "summary", path
    return [(r["case_id"], r["descriptor"], r["seed"], r["mode"], r["status"]) for r in rs if r["record"] == "case"]


base = ["run", "--backend", plugin, "--suite", "smoke", "--quiet"]
whole = os.path.join(tmp, "whole.jsonl")
whole_junit = os.path.join(tmp, "whole.xml")
run(base + ["--json", whole, "--junit", whole_junit])
expected = cases(whole)
assert len(expected) > 50, len(expected)
testcases = ET.parse(whole_junit).getroot().findall("testsuite/testcase")
assert len(testcases) == len(expected), (len(testcases), len(expected))

shards = []
for i in range(3):
    shards.append(os.path.join(tmp, f"s{i}.jsonl"))
    run(base + ["--shard", f"{i}/3", "--json", shards[-1]])
assert sum(len(cases(s)) for s in shards) == len(expected)
merged = os.path.join(tmp, "merged.jsonl")
junit = os.path.join(tmp, "merged.xml")
run(["merge"] + shards + ["--json", merged, "--junit", junit, "--quiet"])
assert cases(merged) == expected, "3 shards (--shard) merged differ from the whole run"
suite = ET.parse(junit).getroot().find("testsuite")
assert int(suite.get("tests")) == len(expected), suite.attrib

for variables in (("GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"), ("TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX")):
    parts = []
    for i in range(2):
        parts.append(os.path.join(tmp, f"{variables[0]}{i}.jsonl"))
        run(base + ["--json", parts[-1]], env={variables[0]: "2", variables[1]: str(i)})
    run(["merge"] + parts + ["--json", merged, "--quiet"])
    assert cases(merged) == expected, f"2 shards ({variables[0]}) merged differ from the whole run"

p = run(["merge", shards[0], shards[2], "--quiet"], expect=2)
assert "shard 1/3 is missing" in p.stderr, p.stderr
p = run(["merge", shards[0], shards[0], "--quiet"], expect=2)
assert "given twice" in p.stderr, p.stderr

def records_of(path, kind):
    return [r for r in records(path) if r["record"] == kind]


# benchdnn problems convcheck does not model are "skipped" records, split between shards like cases
batch = os.path.join(tmp, "batch")
with open(batch, "w") as f:
    f.write("--reset --dir=BWD_DW ic4ih5oc4kh3n\"a\"\n"
            "--reset --dir=FWD_D ic4ih5oc4kh3n\"b\"\n"
            "--reset --alg=wino ic4ih5oc4kh3n\"c\"\n"
            "--reset --dir=FWD_D ic2ih4oc2kh3n\"d\"\n"
            "--reset --dir=BWD_D --dt=f8_e5m2 ic4ih5oc4kh3n\"e\"\n")
bbase = ["run", "--backend", plugin, "--suite", batch, "--quiet"]
bwhole = os.path.join(tmp, "bwhole.jsonl")
run(bbase + ["--json", bwhole])
whole_skipped = records_of(bwhole, "skipped")
assert len(whole_skipped) == 3, whole_skipped
assert records_of(bwhole, "summary")[0]["skipped_inputs"] == 3
bparts = [os.path.join(tmp, f"b{i}.jsonl") for i in range(2)]
for i, part in enumerate(bparts):
    run(bbase + ["--shard", f"{i}/2", "--json", part])
bmerged = os.path.join(tmp, "bmerged.jsonl")
run(["merge"] + bparts + ["--json", bmerged, "--quiet"])
key = lambda r: r["source"]
assert sorted(records_of(bmerged, "skipped"), key=key) == sorted(whole_skipped, key=key), "merge lost skipped inputs"
assert records_of(bmerged, "summary")[0]["skipped_inputs"] == 3, records_of(bmerged, "summary")
# a shard whose summary counts skipped inputs it does not hold is damaged: refused, never merged as if whole
damaged = os.path.join(tmp, "bdamaged.jsonl")
with open(bparts[0]) as src, open(damaged, "w") as dst:
    dst.writelines(line for line in src if '"record":"skipped"' not in line.replace(" ", ""))
assert records_of(bparts[0], "skipped"), "shard 0/2 should hold a skipped input"
p = run(["merge", damaged, bparts[1], "--quiet"], expect=2)
assert "skipped inputs" in p.stderr, p.stderr

print(f"ok: {len(expected)} cases, shards merge back into the whole run")
