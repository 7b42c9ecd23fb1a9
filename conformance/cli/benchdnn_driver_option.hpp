// `--benchdnn-driver conv|deconv` of every command that reads `--suite FILE`: which benchdnn driver reads a
// benchdnn batch file, as benchdnn takes it from its command line (`benchdnn --deconv --batch=FILE`); its
// input files do not say (docs/benchdnn.md, "Which driver").
#pragma once

#include <CLI/CLI.hpp>

#include "convcheck/runner/suites.hpp"

namespace convcheck::cli {

inline CLI::Option* add_benchdnn_driver_option(CLI::App* cmd, runner::SuiteReadOptions& read) {
    return cmd
        ->add_option_function<std::string>(
            "--benchdnn-driver",
            [&read](const std::string& name) { read.benchdnn_driver = *parse_benchdnn_driver(name); },
            "which benchdnn driver reads a benchdnn batch file given to --suite: conv (default) or deconv "
            "(oneDNN's inputs/deconv files: transposed convolution, `deconv:` cases)")
        ->check(CLI::IsMember({"conv", "deconv"}));
}

}  // namespace convcheck::cli
