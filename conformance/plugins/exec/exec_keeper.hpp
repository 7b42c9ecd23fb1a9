// The keeper: the process that owns an exec backend's process for the whole run (docs/exec-protocol.md).
//
// The runner forks a child for every plugin call sequence (negotiation, each case), and a child's pipes die with
// it; a backend process that is to be started once and reused across cases must belong to a process that lives as
// long as the runner. The bridge plugin starts that process, the keeper, from convcheck_get_api (in the runner's
// process, when it loads the plugin), and each case's child reaches it through a Unix socket it inherits: the child
// sends the keeper one end of a fresh socket pair and speaks over it. The keeper starts the backend at the first
// request, relays each request line to it and its reply back, and watches both ends:
//   - the backend exits or is killed: the request in flight gets a failure naming the exit status or signal and the
//     backend's last line on stderr; the next case starts it anew;
//   - the backend writes a line that is not a JSON object: the request gets a failure quoting it; the backend is
//     killed (its stream can no longer be trusted) and started anew for the next case;
//   - the case's child goes away with a request in flight (the runner killed it at its time or memory limit): the
//     backend is killed, since it may still be busy with that case, and started anew for the next.
// The keeper ends when the runner and all its children have closed the control socket (or the runner dies).
#pragma once

#include <string>

namespace convcheck_exec {

// The protocol version this bridge speaks (docs/exec-protocol.md).
inline constexpr int kProtocolVersion = 1;
// The minor version the runner's hello names: 1.1 adds integer tensors with a quantized case's "quantization" and the
// claims "requantization" and "integer_accumulator" (docs/exec-protocol.md); a backend of 1.0 is served unchanged.
inline constexpr int kProtocolMinor = 1;

// In the runner's process: forks the keeper. Returns the control socket the case children inherit, or -1 with the
// reason in *why. Each child names the command (run by /bin/sh -c) in its "start" request: a backend started for
// another command or other options is stopped and the new one started.
int start_keeper(std::string* why);

}  // namespace convcheck_exec
