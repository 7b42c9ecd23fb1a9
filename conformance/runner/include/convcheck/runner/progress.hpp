// The progress line of `convcheck run` on a terminal (stderr), redrawn in place:
//
//   [#########.....................] 21/69  failing 1  smoke/0021 12 s  conv:n=1,c=64,o=64,...
//
// the cases done of all, how many failed so far, and the case in progress with its elapsed time, so
// a case that takes minutes (a large reference, a plugin that is slow or stuck until the time limit)
// shows that it is alive. While a case runs, a timer (SIGALRM, once a second) redraws the line from
// a signal handler that only formats into a fixed buffer and calls write(2): the runner stays a
// single thread, as the processes it forks need (isolation.hpp), and the forked children reset the
// handler. One Progress at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "convcheck/runner/case.hpp"

namespace convcheck::runner {

class Progress {
public:
    // `cases` in the order they run (the first starts now). Disabled: draws nothing, sets no timer.
    Progress(const std::vector<Case>& cases, bool enabled);
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress();

    // `done` cases have finished (counts: per status name); the next one starts now.
    void update(std::int64_t done, const std::map<std::string, std::int64_t>& counts);
    // Stops the timer and clears the line.
    void finish();

private:
    std::vector<std::string> labels_;  // per case: "<id>" and its descriptor
    std::vector<std::string> descriptors_;
    bool enabled_;
    bool finished_ = false;
};

}  // namespace convcheck::runner
