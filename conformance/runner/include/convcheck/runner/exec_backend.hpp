// Backends in another process (docs/exec-protocol.md): `--backend exec:COMMAND` and `--backend python:FILE.py`
// load the exec bridge plugin (conformance/plugins/exec), which runs COMMAND and speaks the exec protocol to it.
// This is where the runner turns such a spec into the bridge's path and the command it runs.
#pragma once

#include <string>

namespace convcheck::runner {

// True for "exec:..." and "python:...".
bool is_exec_backend(const std::string& spec);

// The command a spec runs: exec:COMMAND is COMMAND (run by /bin/sh); python:FILE.py is the project's Python
// backend module (python/convcheck_backend.py) on FILE.py, under /usr/bin/python3 (or $CONVCHECK_PYTHON).
// Throws std::invalid_argument (exit 2) for an empty command or a Python file that does not exist.
std::string exec_command(const std::string& spec);

// Sets CONVCHECK_EXEC_COMMAND to the spec's command (the bridge reads it when it is loaded) and returns the
// bridge plugin's path.
std::string exec_bridge(const std::string& spec);

// The spec as one shell word for a reproducer: as it is, or in single quotes when it holds a space or another
// character the shell reads (exec:/usr/bin/python3 agent.py).
std::string backend_argument(const std::string& spec);

}  // namespace convcheck::runner
