# An exec backend written against the protocol by hand, without convcheck_backend.py (docs/exec-protocol.md): it
# answers the handshake and declines nothing, and misbehaves as its one argument says (exec_zoo_test.cpp):
#   version2      its handshake says protocol 2
#   garbage       it answers "conv" with a line that is not JSON
#   no_type       it answers "conv" with a JSON object without "type"
#   silent_exit   it exits (status 0) on "conv" without a word
#   missing       it answers "conv" with "done" but names no output
import json
import sys

mode = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        claims = {"name": "raw_" + mode, "dtypes": ["f32"], "ranks": [1, 2, 3]}
        reply = {"type": "hello", "protocol": 2 if mode == "version2" else 1, "claims": claims}
    elif m["type"] == "query":
        reply = {"type": "supported"}
    elif mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    elif mode == "no_type":
        reply = {"outputs": {}}
    elif mode == "silent_exit":
        sys.exit(0)
    else:
        reply = {"type": "done", "outputs": {}}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
