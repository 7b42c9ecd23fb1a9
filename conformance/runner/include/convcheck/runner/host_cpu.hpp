// The host CPU, as far as a verdict depends on it. A library may pick its kernels by the CPU it runs
// on (oneDNN's AVX512-BF16 kernels, ATen's bf16 slow path where AVX-512 is absent), so a finding pinned
// in backends.json may hold on one CPU and not on another: its "cpu" condition names the CPU flags
// it needs (docs/runner.md, "Expected failures").
//
// A condition is a list of /proc/cpuinfo flags separated by spaces or commas; every flag must be
// present, and a flag written "!flag" must be absent: "avx512_bf16", "!avx512bw", "avx512f, !amx_tile".
#pragma once

#include <set>
#include <string>

namespace convcheck::runner {

// The flags of the first processor in /proc/cpuinfo (empty where there is no such file), read once.
const std::set<std::string>& host_cpu_flags();
// The first processor's "model name" ("" where there is none), read once.
const std::string& host_cpu_model();

// Whether `condition` holds for `flags`. Returns false and sets *error (the token and the rule) when
// the condition is malformed: empty, or a token that is not [a-z0-9_]+ after an optional '!'.
bool cpu_condition_holds(const std::string& condition, const std::set<std::string>& flags, std::string* error);

}  // namespace convcheck::runner
