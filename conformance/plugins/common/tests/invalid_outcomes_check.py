"""Who answers each case of the invalid suite, per bundled vendor plugin (docs/backends.md, "The invalid suite").

A conformance verdict must show what the library does, not the plugin: a plugin hands every invalid descriptor
to its library as it is and refuses one itself only where the library's API cannot be given the value, saying
"the <name> plugin cannot express". This check runs `convcheck run --suite invalid --expectations none` on one
plugin and requires, case by case, the outcome measured and documented:
    plugin    the plugin refused: its reason says "<name> plugin cannot express"
    library   the library refused (query unsupported or an error, in the library's words)
    computed  the library computed it (kind accepted_invalid: a finding pinned in backends.json)
    crash     the library crashed (kind crash: a finding pinned in backends.json)
    unclaimed the runner did not send it: the plugin does not claim what it needs (strided tensors)
A plugin bug that crashes, or that turns the library's answer into its own (or the reverse), fails here with
the case's reproducer; so does a library update that changes an answer (then update the table and the docs).

    invalid_outcomes_check.py <convcheck> <plugin.so> <name> [invalid | invalid_transposed]

The invalid_transposed suite (deconv: descriptors, docs/transposed.md "Invalid transposed cases") has its own table:
measured 2026-11-24 on this project's build host (an AVX2 x86-64 without AVX-512), with the same packages.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "runner", "tests"))
from cli_run import clean_env, records  # noqa: E402

CASES = ["batch_not_positive", "in_channels_not_positive", "out_channels_not_positive", "groups_not_positive",
         "in_channels_not_divisible_by_groups", "out_channels_not_divisible_by_groups", "input_size_not_positive",
         "kernel_size_not_positive", "stride_zero", "stride_negative", "dilation_zero", "dilation_negative",
         "padded_input_smaller_than_kernel", "padded_input_smaller_than_kernel_within_stride",
         "padded_input_smaller_than_dilated_kernel", "cropping_pads_leave_less_than_kernel",
         "element_count_overflows_64_bits", "src_strides_overlap", "src_stride_negative", "weights_stride_zero",
         "dst_strides_overlap", "src_strides_too_short"]
# the memory-stride cases (ABI 1.2): only the onednn plugin claims strided tensors; the runner sends the others none.
# oneDNN refuses overlapping and negative strides and computes with a zero one (finding OI4: a list one short leaves
# the ABI's last stride 0)
STRIDES = ["unclaimed"] * 5
ONEDNN_STRIDES = ["library", "library", "computed", "library", "computed"]

# One column per plugin, in the order of CASES (docs/backends.md's table; measured on the Debian bookworm
# packages: oneDNN 2.6.3, XNNPACK 0.0~git20220216, libtorch 1.13.1, OpenCV 4.6.0, Arm NN 20.08).
EXPECTED = {
    "onednn": ["computed", "library", "library", "plugin", "library", "library", "computed", "library", "plugin",
               "plugin", "library", "library", "computed", "library", "library", "computed", "crash"] + ONEDNN_STRIDES,
    "xnnpack": ["computed", "library", "library", "plugin", "plugin", "plugin", "library", "library", "library",
                "plugin", "library", "plugin", "crash", "crash", "crash", "crash", "plugin"] + STRIDES,
    "libtorch": ["computed", "computed", "library", "plugin", "library", "library", "library", "library", "library",
                 "library", "library", "library", "library", "library", "library", "library", "library"] + STRIDES,
    "opencv": ["library", "library", "library", "plugin", "library", "library", "library", "library", "library",
               "library", "library", "library", "library", "library", "library", "library", "plugin"] + STRIDES,
    # Arm NN 20.08 (Debian libarmnn 20.08-12, CpuRef)
    "armnn": ["computed", "computed", "computed", "plugin", "plugin", "plugin", "computed", "plugin", "plugin",
              "plugin", "computed", "plugin", "computed", "library", "library", "computed", "plugin"] + STRIDES,
}


# The invalid_transposed suite (conformance/data/suites/invalid_transposed.cases), in its order, attributed
# (docs/transposed.md, "Invalid transposed cases"): every "computed" and "crash" is the library's with the values
# passed as they are, a finding in backends.json (OTI1-OTI3, TTI1, XTI1-XTI2, CTI1, ATI1-ATI4); the plugins' own
# transformations (a negative output padding folded into the end pad, a crop of a whole output hiding invalid
# pads, a truncated O/G, a batch of 0 run as no image, the xnnpack query allocating a 32 GiB zero weights array)
# are fixed: the library judges, or the plugin cannot express the value.
TRANSPOSED_CASES = ["batch_not_positive", "in_channels_not_positive", "out_channels_not_positive",
                    "groups_not_positive", "in_channels_not_divisible_by_groups",
                    "out_channels_not_divisible_by_groups", "input_size_not_positive", "kernel_size_not_positive",
                    "stride_not_positive", "dilation_not_positive", "output_padding_negative",
                    "pads_crop_the_whole_output", "pad_beyond_2_to_the_40", "element_count_overflows_64_bits"]
# OTI2: before the reorder that raises SIGFPE, oneDNN allocates the primitive's src memory, 8 GiB + 4 KiB (the
# 2^64 elements' size wrapped); where that exceeds the case's memory budget (--memory-limit, by default half the
# memory available shared by the jobs: measured on a 23 GiB host, --jobs 1 crashes, --jobs 2 does not) oneDNN
# refuses with out_of_memory first, which the runner reports as kind out_of_memory
ONEDNN_TRANSPOSED_OVERFLOW = ("crash", "crashed (out_of_memory)")
TRANSPOSED_EXPECTED = {
    "onednn": ["computed", "library", "library", "plugin", "library", "library", "computed", "library", "library",
               "library", "library", "computed", "library", ONEDNN_TRANSPOSED_OVERFLOW],
    "libtorch": ["computed", "library", "library", "plugin", "library", "plugin", "library", "library", "library",
                 "library", "library", "library", "library", "library"],
    "xnnpack": ["computed", "library", "library", "plugin", "plugin", "plugin", "library", "library", "library",
                "library", "plugin", "crash", "plugin", "plugin"],
    "opencv": ["library", "library", "crash", "plugin", "plugin", "plugin", "library", "library", "library",
               "library", "library", "library", "plugin", "plugin"],
    "armnn": ["crash", "crash", "crash", "plugin", "plugin", "plugin", "computed", "computed", "computed",
              "library", "plugin", "computed", "plugin", "plugin"],
}


def host_cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


# oneDNN's SIGFPE on a batch of 2^33 (finding OI3) is in an AVX-512 implementation's init: on an
# AVX2-only host (measured: AMD EPYC) oneDNN lists an implementation and refuses at primitive creation.
# backends.json pins it with the same condition ("cpu": "avx512f").
if "avx512f" not in host_cpu_flags():
    EXPECTED["onednn"][CASES.index("element_count_overflows_64_bits")] = "library"


def outcome(record, name):
    if record["status"] == "passed":
        return "plugin" if f"the {name} plugin cannot express" in record["reason"] else "library"
    if record["kind"] == "accepted_invalid":
        return "computed"
    if record["kind"] == "crash":
        return "crash"
    if record["status"] == "unsupported" and "does not claim" in record["reason"]:
        return "unclaimed"
    return f"{record['status']} ({record['kind']})"


def main():
    convcheck, plugin, name = sys.argv[1:4]
    suite = sys.argv[4] if len(sys.argv) > 4 else "invalid"
    cases_in_order, expected = {"invalid": (CASES, EXPECTED),
                                "invalid_transposed": (TRANSPOSED_CASES, TRANSPOSED_EXPECTED)}[suite]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "invalid.jsonl")
        args = ["run", "--backend", plugin, "--suite", suite, "--expectations", "none", "--no-shrink",
                "--threads", "2", "--no-progress", "--quiet", "--json", out]
        # exit 0 or 1 (a case failed): the cases say which; anything else is a usage or load error
        p = subprocess.run([convcheck] + args, env=clean_env(), capture_output=True, text=True, errors="replace")
        if p.returncode not in (0, 1):
            sys.exit(f"convcheck {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        cases = {r["shape_name"]: r for r in records(out) if r.get("record") == "case"}
    if sorted(cases) != sorted(cases_in_order):
        sys.exit(f"the {suite} suite's cases changed: {sorted(cases)}; update its cases and expected outcomes")
    wrong = []
    for case, want in zip(cases_in_order, expected[name]):
        got = outcome(cases[case], name)
        if got not in (want if isinstance(want, tuple) else (want,)):
            wrong.append(f"  {case}: {got}, expected {want}: {cases[case]['reason']}\n    {cases[case]['reproducer']}")
    if wrong:
        sys.exit(f"{name}: {len(wrong)} {suite} case(s) answered by someone else than documented:\n" + "\n".join(wrong))
    print(f"{name}: all {len(cases_in_order)} {suite} cases answered as documented")


if __name__ == "__main__":
    main()
