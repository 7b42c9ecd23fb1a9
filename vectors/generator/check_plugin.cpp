#include "check_plugin.hpp"

#include "convcheck/formats/manifest.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::vectors {

PluginCheck check_plugin(const std::string& plugin_path, const std::string& options,
                         const std::vector<std::filesystem::path>& set_dirs, std::FILE* out) {
    // The runner's backend: its loader, negotiation in a child, the default declarations file.
    const std::vector<std::string> backend_options = options.empty() ? std::vector<std::string>{}
                                                                     : std::vector<std::string>{options};
    const auto session = runner::open_backend(plugin_path, backend_options, 2, "", 30.0);
    PluginCheck total;
    for (const auto& dir : set_dirs) {
        const VectorSet set = load_vector_set(dir);
        PluginCheck s;
        for (const auto& c : set.cases) s.not_applicable += c.expect_error_attribute.has_value();  // must be refused: nothing to run
        std::vector<runner::SkippedInput> skipped;
        const std::vector<runner::Case> cases =
            runner::expand(set.name, runner::vector_suite_entries(dir.string(), &skipped), 1, "");
        s.skipped = static_cast<int>(skipped.size());
        for (const runner::Case& c : cases) {
            const runner::CaseResult r = runner::check_case(session->backend, c, runner::CheckSettings{});
            if (r.status == runner::Status::unsupported) {
                ++s.unsupported;
            } else if (r.status == runner::Status::passed || r.status == runner::Status::xpass) {
                ++s.passed;
            } else {  // failed, crashed, hanged, unchecked, and an expected failure too: the stored data judge alone
                ++s.failed;
                std::fprintf(out, "FAIL vector %s/%s: %s seed=%llu: %s: %s\n", set.name.c_str(), c.vector_case.c_str(),
                             c.descriptor().c_str(), static_cast<unsigned long long>(c.seed), runner::to_string(r.status),
                             r.reason.c_str());
            }
        }
        std::fprintf(out, "%s: %d passed, %d failed, %d unsupported by the plugin, %d not applicable (expect_error)",
                     set.name.c_str(), s.passed, s.failed, s.unsupported, s.not_applicable);
        if (s.skipped) std::fprintf(out, ", %d skipped (%s)", s.skipped, skipped.front().reason.c_str());
        std::fprintf(out, "\n");
        total.passed += s.passed, total.failed += s.failed, total.unsupported += s.unsupported;
        total.not_applicable += s.not_applicable, total.skipped += s.skipped;
    }
    return total;
}

}  // namespace convcheck::vectors
