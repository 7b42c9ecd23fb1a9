#include "convcheck/runner/case.hpp"

#include "convcheck/runner/operation_traits.hpp"

namespace convcheck::runner {

std::string Case::descriptor() const { return operation(op).descriptor(*this); }

Op conv_op(const ConvDescriptor& d) {
    switch (d.pass) {
        case Pass::backward_data: return Op::conv_bwd_data;
        case Pass::backward_weights: return Op::conv_bwd_weights;
        case Pass::forward: break;
    }
    return Op::conv;
}

const char* to_string(Status s) {
    switch (s) {
        case Status::passed: return "passed";
        case Status::unchecked: return "unchecked";
        case Status::failed: return "failed";
        case Status::unsupported: return "unsupported";
        case Status::crashed: return "crashed";
        case Status::hanged: return "hanged";
        case Status::xfail: return "xfail";
        case Status::xpass: return "xpass";
    }
    return "?";
}

const char* to_string(Kind k) {
    switch (k) {
        case Kind::none: return "";
        case Kind::mismatch: return "mismatch";
        case Kind::probe: return "probe";
        case Kind::nan: return "nan";
        case Kind::unwritten: return "unwritten";
        case Kind::crash: return "crash";
        case Kind::hang: return "hang";
        case Kind::plugin_error: return "plugin_error";
        case Kind::out_of_memory: return "out_of_memory";
        case Kind::leak: return "leak";
        case Kind::xpass: return "xpass";
        case Kind::declined: return "declined";
        case Kind::over_memory_limit: return "over_memory_limit";
        case Kind::invalid_case: return "invalid_case";
        case Kind::statistics: return "statistics";
        case Kind::accepted_invalid: return "accepted_invalid";
        case Kind::paths_differ: return "paths_differ";
        case Kind::nondeterministic: return "nondeterministic";
        case Kind::gaps_written: return "gaps_written";
        case Kind::vacuous_bound: return "vacuous_bound";
    }
    return "?";
}

bool parse_status(const std::string& text, Status* status) {
    for (Status s : kAllStatuses)
        if (text == to_string(s)) {
            *status = s;
            return true;
        }
    return false;
}

bool is_failure(Status s) {
    return s == Status::failed || s == Status::crashed || s == Status::hanged || s == Status::xpass;
}

std::uint64_t case_seed(std::uint64_t run_seed, std::uint64_t index) {
    // splitmix64 of (run seed, index): well mixed, and small enough numbers to type
    std::uint64_t z = run_seed * 0x9e3779b97f4a7c15ull + index + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z % 1000000007ull;
}

}  // namespace convcheck::runner
