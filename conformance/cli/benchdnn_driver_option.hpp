// `--benchdnn-driver conv|deconv` and `--benchdnn-version current|3.7.1` of every command that reads `--suite FILE`:
// which benchdnn driver reads a
// benchdnn batch file, as benchdnn takes it from its command line (`benchdnn --deconv --batch=FILE`); its
// input files do not say (docs/benchdnn.md, "Which driver").
#pragma once

#include <CLI/CLI.hpp>

#include "convcheck/runner/suites.hpp"

namespace convcheck::cli {

// Also `--benchdnn-version current|3.7.1`: whose grammar reads the file (docs/benchdnn.md, "Which oneDNN"): current
// oneDNN's (the default: `--bia-dt`, an f32 bias for FWD_B and BWD_WB) or v3.7.1's (no `--bia-dt`; the bias takes the
// weights' data type).
inline CLI::Option* add_benchdnn_driver_option(CLI::App* cmd, runner::SuiteReadOptions& read) {
    cmd->add_option_function<std::string>(
           "--benchdnn-version",
           [&read](const std::string& name) { read.benchdnn_version = *parse_benchdnn_version(name); },
           "whose benchdnn grammar reads a benchdnn batch file given to --suite: current (default: current oneDNN's, "
           "with --bia-dt) or 3.7.1 (oneDNN v3.7.1's: no --bia-dt, the bias takes the weights' data type)")
        ->check(CLI::IsMember({"current", "3.7.1"}));
    return cmd
        ->add_option_function<std::string>(
            "--benchdnn-driver",
            [&read](const std::string& name) { read.benchdnn_driver = *parse_benchdnn_driver(name); },
            "which benchdnn driver reads a benchdnn batch file given to --suite: conv (default) or deconv "
            "(oneDNN's inputs/deconv files: transposed convolution, `deconv:` cases)")
        ->check(CLI::IsMember({"conv", "deconv"}));
}

}  // namespace convcheck::cli
