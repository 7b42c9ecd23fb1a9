# PyTorch's convolutions as a convcheck backend:
#   convcheck run --backend python:examples/python/torch_backend.py --suite smoke
#   ... --backend-option device=cuda --backend-option tf32=off
# device= cpu, cuda or cuda:N (default: cuda where torch sees a GPU, else cpu); tf32= on or off (CUDA only; default:
# torch's own setting, torch.backends.cudnn.allow_tf32). On CUDA with TF32 on, the backend names itself
# torch-cuda-tf32, whose declaration in conformance/data/backends.json says that f32 inputs are rounded to TF32; with
# TF32 off, torch-cuda. Both are declared there with cuDNN's transform-based algorithms (a whole-tensor bound, exact
# mode judged by it) and with the bias added after the convolution is rounded to dst (two roundings).
import torch
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}


def configure(options):
    global device
    unknown = set(options) - {"device", "tf32"}
    if unknown:
        raise ValueError("torch_backend takes device= and tf32=, not %s" % ", ".join(sorted(unknown)))
    device = options.get("device", device)
    torch.zeros(1, device=device)  # an unknown or absent device fails here, in torch's words
    if "tf32" in options:
        if options["tf32"] not in ("on", "off"):
            raise ValueError("tf32=%s: on or off" % options["tf32"])
        torch.backends.cudnn.allow_tf32 = options["tf32"] == "on"
    import convcheck_backend
    if convcheck_backend.num_threads > 0:
        torch.set_num_threads(convcheck_backend.num_threads)


def describe():
    cuda = device.startswith("cuda")
    tf32 = cuda and torch.backends.cudnn.allow_tf32
    # on the CPU, torch 1.13 has no f16 convolution, and its bf16 one accumulates in bf16 without AVX-512
    # (docs/backends.md, finding T3): both left out there
    return {"name": "torch-cuda" + ("-tf32" if tf32 else "") if cuda else "torch-cpu", "version": torch.__version__,
            "dtypes": ["f32", "f64", "f16", "bf16"] if cuda else ["f32", "f64"], "ranks": [1, 2, 3],
            "data_formats": ["ncx"], "filter_formats": ["oix"], "accumulation_dtype": "f32"}


def forward(desc, src, weights, bias):
    pads = [p for b, e in zip(reversed(desc.pads_begin), reversed(desc.pads_end)) for p in (b, e)]
    conv = (F.conv1d, F.conv2d, F.conv3d)[desc.rank - 1]
    return conv(F.pad(src, pads), weights, bias, stride=desc.strides, dilation=desc.dilations, groups=desc.groups)


def tensor(desc, array, name):
    return torch.from_numpy(array).to(device=device, dtype=DTYPES[desc.dtypes[name]])


def result(t):
    return t.detach().to("cpu", torch.float32 if t.dtype == torch.bfloat16 else t.dtype).numpy()


def conv(desc, src, weights, bias):
    b = None if bias is None else tensor(desc, bias, "bias")
    return result(forward(desc, tensor(desc, src, "src"), tensor(desc, weights, "weights"), b))


def conv_backward_data(desc, diff_dst, weights):
    src = torch.zeros([desc.batch, desc.in_channels, *desc.input_size], device=device,
                      dtype=DTYPES[desc.dtypes["src"]], requires_grad=True)
    out = forward(desc, src, tensor(desc, weights, "weights"), None)
    return result(torch.autograd.grad(out, src, tensor(desc, diff_dst, "dst"))[0])


def conv_backward_weights(desc, src, diff_dst):
    w = torch.zeros([desc.out_channels, desc.in_channels // desc.groups, *desc.kernel_size], device=device,
                    dtype=DTYPES[desc.dtypes["weights"]], requires_grad=True)
    b = torch.zeros([desc.out_channels], device=device, dtype=DTYPES[desc.dtypes["bias"]], requires_grad=True)
    out = forward(desc, tensor(desc, src, "src"), w, b if desc.has_bias else None)
    grads = torch.autograd.grad(out, [w, b] if desc.has_bias else [w], tensor(desc, diff_dst, "dst"))
    return tuple(result(g) for g in grads) if desc.has_bias else result(grads[0])
