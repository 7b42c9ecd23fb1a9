// SIGINT (Ctrl-C) and SIGTERM (a CI job's timeout) during a run. The first signal stops the run
// cleanly: the case in progress is cut short (its isolated child is killed; it counts as not run),
// no further case starts, and the run writes its closing summary, JUnit file and terminal line, which
// say how many cases did not run and why. Then the process ends by the same signal, so a calling shell
// or CI sees an interrupted command (exit status 130 / 143), not a verdict. A second signal ends the
// process at once (the handler is installed with SA_RESETHAND); a results file then has no summary
// record, which readers treat as an incomplete run. A signal that was ignored when convcheck started
// (a background job of a script, nohup) stays ignored.
#pragma once

#include <csignal>

namespace convcheck::runner {

class InterruptGuard {
public:
    InterruptGuard();   // installs the handlers
    ~InterruptGuard();  // restores the previous ones
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    // Non-zero once a signal arrived: for RunSettings::stop.
    const volatile std::sig_atomic_t* flag() const;
    // The signal that arrived (SIGINT, SIGTERM), or 0.
    int signal_number() const;
    // Ends the process by the signal that arrived (when one did).
    void end_by_signal() const;
};

}  // namespace convcheck::runner
