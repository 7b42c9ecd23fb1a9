# The numpy example without its "zero_points_outside_types" claim: a backend that stores zero points in its tensors'
# own types. The bridge declines a zpt=s32 case before asking it (ctest conformance_exec_zero_points_outside_types);
# qconv stores each zero point in the tensor's type, as such a backend would, so a case sent to it anyway fails.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "examples", "python"))
import numpy_backend  # noqa: E402


def describe():
    claims = dict(numpy_backend.describe(), name="numpy-in-type-zero-points")
    del claims["zero_points_outside_types"]
    return claims


conv = numpy_backend.conv


def qconv(desc, src, weights, bias):
    q, stored = desc.quantization, {"u8": np.uint8, "s8": np.int8}
    for tensor, key in (("src", "src_zero_points"), ("weights", "weights_zero_points"), ("dst", "dst_zero_points")):
        if desc.dtypes[tensor] in stored:  # 300 on a u8 src is stored as 44
            setattr(q, key, tuple(int(z) for z in np.array(getattr(q, key), dtype=np.int64).astype(stored[desc.dtypes[tensor]])))
    return numpy_backend.qconv(desc, src, weights, bias)
