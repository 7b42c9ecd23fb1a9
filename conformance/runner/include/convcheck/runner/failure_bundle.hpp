// Failure bundles (`convcheck run --dump-failures DIR`, docs/runner.md#failure-bundles---dump-failures-dir):
// a failing case's data taken away from convcheck, to debug in any harness. For every failing case
// (failed, crashed, hanged, xfail) the folder DIR/<case id> gets, per execution the backend made, the arrays
// its operation's traits entry makes (bundle_arrays.hpp): its inputs (src, weights, bias; a backward pass's
// diff_dst and weights or src), the reference's expected output (rounded once to the output type, and unrounded
// with the magnitudes and term counts the bound is made of) and the backend's actual output, as .npy
// files (vectors/npy), plus manifest.json: descriptor, seed, mode, status, reason, backend name, version
// and implementation, the reproducer, and a benchdnn line where benchdnn can express the problem.
#pragma once

#include <filesystem>
#include <string>

#include "convcheck/runner/check.hpp"
#include "convcheck/runner/execution_log.hpp"

namespace convcheck::runner {

// Whether a result gets a bundle: failed, crashed, hanged, xfail (not a pass, a decline or an xpass).
bool gets_failure_bundle(Status status);

// Creates DIR when missing and checks that a file can be written in it. Throws std::invalid_argument
// ("--dump-failures: cannot write into 'DIR': ...") otherwise: the run is refused before it starts.
void check_bundle_folder(const std::string& dir);

// Writes the bundle of `r` from the executions recorded for it (inputs kept). Returns its folder.
// Throws std::runtime_error (a file that cannot be written) or ConvError.
std::filesystem::path write_failure_bundle(const std::string& dir, const Backend& backend, const CaseResult& r,
                                           const ExecutionLog& log);

// The benchdnn conv driver's command line for a discrete convolution descriptor, e.g.
// "--conv --dir=FWD_B --dt=f32 --stag=abx --wtag=abx --dtag=abx mb1ic3ih12oc8oh12kh3ph1", checked by reading it
// back through core/benchdnn_mapping; "" with *why set when benchdnn cannot express it. A backward pass
// gets --dir=BWD_D, BWD_W or BWD_WB.
std::string benchdnn_line(const ConvDescriptor& d, std::string* why);
// The deconv driver's line for a transposed convolution ("--deconv --dir=FWD_B ... --wtag=iohw ... ic16iw5oc3ow5kw3pw1"),
// read back through that driver (docs/benchdnn.md): its right pad is pads_end - output_padding, the same outputs.
std::string benchdnn_line(const TransposedDescriptor& t, std::string* why);

}  // namespace convcheck::runner
