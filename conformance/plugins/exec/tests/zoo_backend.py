# The exec fault zoo's Python backend: a correct numpy convolution (examples/python/numpy_backend.py) that misbehaves
# as --backend-option fault=NAME says, to show that the runner names each fault and goes on (exec_zoo_test.cpp).
#   fault=none         computes correctly
#   fault=segfault     the process kills itself with SIGSEGV in the middle of conv
#   fault=exit         the process exits with status 3 in the middle of conv, after a line on stderr
#   fault=hang         conv never returns
#   fault=raise        conv raises ZeroDivisionError
#   fault=wrong_shape  conv returns dst with one output row too few
#   fault=wrong_dtype  conv returns float64 for an f32 dst
#   fault=decline      query declines the case with a reason
# With once=PATH the fault strikes only while PATH does not exist (it is created first): one case, then the
# restarted process computes correctly.
import os
import signal
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "examples", "python"))
import numpy_backend  # noqa: E402

fault = "none"
once = None
implementation = "zoo pid %d" % os.getpid()


def configure(options):
    global fault, once
    for key in options:
        if key not in ("fault", "once"):
            raise ValueError("zoo_backend takes fault= and once=, not %s=" % key)
    fault = options.get("fault", "none")
    once = options.get("once")


def describe():
    claims = numpy_backend.describe()
    claims["name"] = "exec_zoo"
    return claims


def query(desc):
    if fault == "decline" and strikes():
        return "the zoo declines the case (fault=decline)"
    return None


def strikes():
    if once is None:
        return True
    if os.path.exists(once):
        return False
    open(once, "w").close()
    return True


def conv(desc, src, weights, bias):
    dst = numpy_backend.conv(desc, src, weights, bias)
    if fault == "none" or not strikes():
        return dst
    if fault == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if fault == "exit":
        sys.stderr.write("zoo: giving up on %s\n" % desc.canonical)
        sys.stderr.flush()
        os._exit(3)
    if fault == "hang":
        while True:
            time.sleep(1)
    if fault == "raise":
        return dst / (1 / 0)
    if fault == "wrong_shape":
        return dst[..., :-1, :] if desc.rank > 1 else dst[..., :-1]
    if fault == "wrong_dtype":
        return dst.astype(np.float64)
    return dst
