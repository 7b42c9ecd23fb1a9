#include "convcheck/runner/session.hpp"

#include <cstdio>
#include <mutex>

#include "convcheck/runner/child_process.hpp"
#include "convcheck/runner/failure_bundle.hpp"
#include "convcheck/runner/jobs.hpp"
#include "convcheck/runner/printable.hpp"

namespace convcheck::runner {

std::unique_ptr<BackendSession> open_backend(const std::string& spec, const std::vector<std::string>& options,
                                             int num_threads, const std::string& expectations_path,
                                             double timeout_s) {
    const std::string path = resolve_backend(spec);
    auto s = std::unique_ptr<BackendSession>(new BackendSession{Plugin::load(path), {}, {}, {}});
    for (const std::string& o : options) s->backend.options.options += (s->backend.options.options.empty() ? "" : ",") + o;
    s->backend.options.num_threads = num_threads;
    s->backend.plugin = &s->plugin;
    s->backend.spec = spec;
    s->backend.info = negotiate(s->plugin, s->backend.options, timeout_s);
    const std::string file = expectations_path.empty() ? default_expectations_path() : expectations_path;
    if (file != "none" && !file.empty()) {
        s->expectations = Expectations::load(file);
        s->backend.expectations = &s->expectations;
        s->expectations_path = file;
    }
    return s;
}

std::optional<CaseResult> check_and_shrink(const Backend& backend, const Case& c, const RunSettings& settings,
                                           const std::function<bool(const CaseResult&)>& wanted) {
    auto stopped = [&] { return settings.stop && *settings.stop; };
    ShrinkLimits shrink_limits = settings.shrink_limits;
    shrink_limits.stop = settings.stop;
    // a failure bundle needs the data the backend saw: recorded for every case, kept for failing ones
    ExecutionLog log;
    log.keep_inputs = true;
    CheckSettings check = settings.check;
    if (!settings.dump_failures.empty()) check.log = &log;
    CaseResult r = check_case(backend, c, check);
    if (stopped()) return std::nullopt;  // the case may have been cut short: it did not run
    if (wanted && !wanted(r)) return r;
    // Hangs are not shrunk: every candidate would cost a full time limit.
    // a stored vector's data belongs to its descriptor: there is nothing smaller to try; an invalid
    // case is the one rule it breaks (mode invalid): shrinking would look for another descriptor
    // nor a sampled case: its point is a tensor past 2^31 elements or bytes, which a smaller one loses
    if (settings.shrink && r.c.vector_dir.empty() && r.c.mode != accuracy::Mode::invalid &&
        r.c.mode != accuracy::Mode::sampled && (r.status == Status::failed || r.status == Status::crashed)) {
        auto smaller = shrink(backend, r, settings.check, shrink_limits);
        if (smaller && !stopped()) {  // a search cut short may end on a killed candidate: keep none
            r.shrunk_descriptor = smaller->c.descriptor();
            r.shrunk_reproducer = smaller->reproducer;
        }
    }
    if (!settings.dump_failures.empty() && gets_failure_bundle(r.status) && !stopped() &&
        r.c.mode == accuracy::Mode::sampled) {
        // its tensors are GiBs, and the bundle's expected output would be the whole reference
        const std::lock_guard<std::mutex> printing(child::fork_mutex());  // other jobs may fork (--jobs)
        std::fprintf(stderr, "convcheck: warning: no failure bundle for %s: a sampled (large suite) case's "
                             "tensors are GiBs; its reproducer regenerates them\n", r.c.id.c_str());
    } else if (!settings.dump_failures.empty() && gets_failure_bundle(r.status) && !stopped()) {
        try {
            r.failure_bundle = write_failure_bundle(settings.dump_failures, backend, r, log).string();
        } catch (const std::exception& e) {  // the verdict stands; the missing bundle is said aloud
            const std::lock_guard<std::mutex> printing(child::fork_mutex());
            std::fprintf(stderr, "convcheck: warning: no failure bundle for %s: %s\n", r.c.id.c_str(),
                         printable_line(e.what()).c_str());
        }
    }
    return r;
}

std::vector<CaseResult> run_cases(const Backend& backend, const std::vector<Case>& cases, const RunSettings& settings,
                                  const std::function<void(const CaseResult&)>& on_result) {
    if (settings.jobs > 1) return run_cases_in_jobs(backend, cases, settings, on_result);
    std::vector<CaseResult> results;
    for (const Case& c : cases) {
        if (settings.stop && *settings.stop) break;
        std::optional<CaseResult> r = check_and_shrink(backend, c, settings);
        if (!r) break;
        if (on_result) on_result(*r);
        results.push_back(std::move(*r));
        if (settings.fail_fast && is_failure(results.back().status)) break;
    }
    return results;
}

}  // namespace convcheck::runner
