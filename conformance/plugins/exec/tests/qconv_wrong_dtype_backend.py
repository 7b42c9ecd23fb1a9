# A quantized backend that returns its dst as int32 whatever the case's dst is: an exec backend's wrong dtype for
# integer tensors is the case's failure, named (ctest conformance_quantized_python_wrong_dtype).
import numpy as np


def describe():
    return {"name": "qconv-wrong-dtype", "dtypes": ["u8", "s8", "s32"], "ranks": [1, 2, 3]}


def conv(desc, src, weights, bias):
    raise ValueError("no float convolution here")


def qconv(desc, src, weights, bias):
    return np.zeros((desc.batch, desc.out_channels) + desc.output_size, dtype=np.int32)
