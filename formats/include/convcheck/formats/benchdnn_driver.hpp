// benchdnn batch files read as benchdnn's convolution or deconvolution driver reads them (current oneDNN, or v3.7.1
// by BenchdnnReadOptions::version; tests/benchdnn/conv/bench_conv.cpp, deconv/bench_deconv.cpp; the driver is the caller's choice, as benchdnn
// takes it from its command line: `benchdnn --deconv --batch=FILE`): options, `--reset`, option lists multiplied in the driver's loop
// order, `--batch=` followed with benchdnn's search order, `--match`, `--start`. The result is every
// test case benchdnn would run, in its order, each either mapped exactly onto a canonical descriptor or
// skipped with the reason. Nothing is approximated (docs/benchdnn.md has the option table).
//
//   auto cases = convcheck::read_benchdnn_batch("oneDNN/tests/benchdnn/inputs/conv/test_conv_all");
//   for (auto& c : cases) if (c.descriptor) ...run...; else ...report c.skip_reason...
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/formats/benchdnn.hpp"

namespace convcheck {

// One benchdnn test case.
struct BenchdnnCase {
    std::string source;    // "<file>:<line>" of the problem string
    std::string input;     // the options that differ from benchdnn's defaults, as written, and the problem
    std::string name;      // the problem's name (without enclosing quotes)
    std::optional<ConvDescriptor> descriptor;          // the conv driver's case as convcheck runs it, or
    std::optional<TransposedDescriptor> transposed;    // the deconv driver's (a `deconv:` case), or
    std::optional<QuantizedDescriptor> quantized;      // the conv driver's int8 case (a `qconv:` case), or
    std::string skip_reason;                           // why convcheck does not run it (then neither)
};

struct BenchdnnReadOptions {
    // benchdnn's inputs folder for the driver (oneDNN's tests/benchdnn/inputs/conv or inputs/deconv: benchdnn's
    // locate_file looks in <its folder>/inputs/<driver>), searched last for `--batch=` files; empty: none.
    std::string inputs_dir;
    BenchdnnDriver driver = BenchdnnDriver::conv;  // benchdnn --conv (the default) or --deconv
    BenchdnnVersion version = BenchdnnVersion::current;  // current oneDNN's grammar (the default) or v3.7.1's
};

// The environment variable convcheck takes a driver's inputs folder from (the runner reads it):
// CONVCHECK_BENCHDNN_INPUTS (conv: oneDNN's tests/benchdnn/inputs/conv), CONVCHECK_BENCHDNN_DECONV_INPUTS
// (deconv: inputs/deconv).
const char* benchdnn_inputs_variable(BenchdnnDriver driver);

// Reads a batch file (located as benchdnn locates `--batch=path`) and every file it includes.
// Throws ConvError for what benchdnn itself rejects outright: a file that cannot be found (naming every
// place tried), a `--batch=` cycle (naming the chain), a bad problem string ("<file>:<line>: <field>").
std::vector<BenchdnnCase> read_benchdnn_batch(const std::string& path, const BenchdnnReadOptions& options = {});
// The same for text; `source` names it in errors and its folder is where nested `--batch=` files are looked for.
std::vector<BenchdnnCase> read_benchdnn_batch_text(std::string_view text, const std::string& source,
                                                   const BenchdnnReadOptions& options = {});

}  // namespace convcheck
