"""Runs a Python backend file over a folder `convcheck export` wrote (docs/offline.md): the device's side of an
offline run, for a device that runs Python and numpy.

    python3 convcheck_offline.py claims BACKEND.py [key=value ...]   print the backend's claims (for export --claims)
    python3 convcheck_offline.py run DIR BACKEND.py [key=value ...]   write every exported case's outputs into DIR

BACKEND.py is a backend file as `convcheck run --backend python:BACKEND.py` runs it (docs/exec-protocol.md: describe(),
conv(), and optionally configure(), query(), conv_backward_data(), conv_backward_weights(), qconv()); this program calls it
for each case's pass as convcheck_backend.py does, with the inputs read from DIR's .npy files instead of shared memory. An output is saved as the backend returned it (another dtype or
shape is then named by `convcheck judge`); a bf16 output as its 16 bits ('<u2'). A case the backend declines (query,
or Decline) gets a <case>.declined file holding the reason; an exception leaves the case's output missing (judge names
it) and prints the traceback's last line.
"""

import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convcheck_backend  # noqa: E402  (the module backend files import, and its loader and descriptor)

sys.modules.setdefault("convcheck_backend", convcheck_backend)


def load(backend_path, options):
    server = convcheck_backend._Server(backend_path, None, None)
    server.hello({"type": "hello", "options": options, "num_threads": 0})
    return server


def read_input(path, tensor):
    a = np.load(path)
    if tensor["dtype"] == "bf16":  # stored as bit patterns: numpy has no bfloat16
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def save_output(path, array, tensor, name):
    dtype, _ = convcheck_backend._returned(name, array, tensor)
    if dtype == "bf16":
        array = (np.ascontiguousarray(array, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    np.save(path, np.ascontiguousarray(array))


def run(folder, server):
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    b = server.backend
    done = declined = failed = 0
    for case in manifest["cases"]:
        if not case["exported"]:
            continue
        desc = convcheck_backend.Descriptor(case["descriptor"])
        try:
            why = convcheck_backend.not_computed(b, desc)
            if why:
                raise convcheck_backend.Decline(why)
            q = getattr(b, "query", None)
            answer = q(desc) if callable(q) else None
            if answer is not None and answer is not True:
                raise convcheck_backend.Decline(str(answer))
            ins = {name: read_input(os.path.join(folder, t["file"]), t) for name, t in case["inputs"].items()}
            outs = case["outputs"]
            for name, array in convcheck_backend.compute(b, desc, ins, outs).items():
                save_output(os.path.join(folder, outs[name]["file"]), array, outs[name], name)
            done += 1
        except convcheck_backend.Decline as d:
            with open(os.path.join(folder, case["case"] + ".declined"), "w") as f:
                f.write((str(d) or "(no reason given)") + "\n")
            declined += 1
        except Exception as e:  # the output stays missing: judge names it
            sys.stderr.write("%s: %s\n" % (case["id"], convcheck_backend._error_text(e)))
            failed += 1
    sys.stderr.write("convcheck_offline: %d cases computed, %d declined, %d raised\n" % (done, declined, failed))


def main(argv):
    if len(argv) >= 3 and argv[1] == "claims":
        server = load(argv[2], dict(o.split("=", 1) for o in argv[3:]))
        print(json.dumps(server.claims(), indent=1))
        return 0
    if len(argv) >= 4 and argv[1] == "run":
        run(argv[2], load(argv[3], dict(o.split("=", 1) for o in argv[4:])))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
