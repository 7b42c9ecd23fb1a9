#include "convcheck/runner/selftest.hpp"

#include <algorithm>
#include <stdexcept>

#include "convcheck/mutant_list/mutants.hpp"
#include "convcheck/runner/session.hpp"

namespace convcheck::runner {

bool MutantVerdict::killed() const {
    auto any = [](const std::map<std::string, std::int64_t>& m) {
        return std::any_of(m.begin(), m.end(), [](const auto& kv) { return kv.second > 0; });
    };
    return any(failed) || any(crashed);
}

bool MutantVerdict::killed_as_meant() const {
    if (meant == "crash") {
        return std::any_of(crashed.begin(), crashed.end(), [](const auto& kv) { return kv.second > 0; });
    }
    if (meant == "-") return killed();
    // meant for a suite of its own (strides, backward, transposed): any failure or crash there is the check
    // meant for it (a backward or transposed bug leaves every other case alone, so only its cases can fail)
    if (meant == "strides" || meant == "backward" || meant == "transposed") return killed();
    // a bug meant for the large suite is caught in its cases' mode, sampled (conv/sampled.cpp)
    const std::string mode = meant == "large" ? "sampled" : meant;
    auto f = failed.find(mode), c = crashed.find(mode);
    return (f != failed.end() && f->second > 0) || (c != crashed.end() && c->second > 0);
}

std::string MutantVerdict::suite_meant() const {
    // smoke's cases of the backward passes and of transposed convolution catch every bug of those, as its
    // forward cases catch every forward bug (the backward and transposed suites catch them too)
    const bool own_suite = meant == "strides" || meant == "invalid" || meant == "large";
    return own_suite ? meant : "smoke";
}

bool MutantVerdict::meant_for_another_suite(const std::string& suite) const {
    const std::string own = suite_meant();
    if (own != "smoke") return own != suite;
    // a bug of one operation on a suite of another operation's cases only: nothing there can catch it
    if (meant == "backward") return suite == "transposed" || suite == "quantized";
    if (meant == "transposed") return suite == "backward" || suite == "quantized";
    return suite == "backward" || suite == "transposed" || suite == "quantized";
}

namespace {
const char* kind_name(mutants::Kind k) {
    switch (k) {
        case mutants::Kind::baseline: return "baseline";
        case mutants::Kind::bug: return "bug";
        case mutants::Kind::honest: return "honest";
    }
    return "?";
}
}  // namespace

std::vector<MutantVerdict> run_selftest(const std::vector<Case>& cases, const SelftestSettings& settings,
                                        const std::function<void(const MutantVerdict&)>& on_mutant) {
    for (const std::string& name : settings.only)
        if (std::none_of(std::begin(mutants::kMutants), std::end(mutants::kMutants),
                         [&](const auto& m) { return m.name == name; }))
            throw std::invalid_argument("--mutant '" + name + "' is not in the mutants list (mutants.def)");
    std::vector<MutantVerdict> verdicts;
    for (const auto& m : mutants::kMutants) {
        const std::string name(m.name);
        if (!settings.only.empty() && std::find(settings.only.begin(), settings.only.end(), name) == settings.only.end())
            continue;
        MutantVerdict v;
        v.name = name, v.kind = kind_name(m.kind), v.bug_class = m.bug_class, v.meant = m.caught_in, v.what = m.what;
        auto session = open_backend("mutants", {"mutant=" + name}, 0, "none", settings.timeout_s);
        RunSettings run;
        run.shrink = false;
        run.check.timeout_s = settings.timeout_s;
        // a bug meant for determinism mode passes every single run: the suite runs in that mode for it
        if (v.meant == "determinism") run.check.determinism = kSelftestDeterminism;
        for (const CaseResult& r : run_cases(session->backend, cases, run)) {
            ++v.cases;
            const std::string mode = r.kind == Kind::nondeterministic ? "determinism" : accuracy::to_string(r.c.mode);
            if (r.status == Status::passed) ++v.passed;
            else if (r.status == Status::unsupported) ++v.unsupported;
            else if (r.status == Status::unchecked) ++v.unchecked;
            else if (r.status == Status::crashed || r.status == Status::hanged) ++v.crashed[mode];
            else ++v.failed[mode];
            if (is_failure(r.status) && v.first_case.empty())
                v.first_case = r.c.id, v.first_reason = r.reason, v.first_reproducer = r.reproducer;
        }
        if (on_mutant) on_mutant(v);
        verdicts.push_back(std::move(v));
    }
    return verdicts;
}

}  // namespace convcheck::runner
