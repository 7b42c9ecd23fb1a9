// Lines of JSON over file descriptors, and a descriptor passed over a Unix socket: the exec bridge's plumbing
// (docs/exec-protocol.md). Every call retries on EINTR; none throws.
#pragma once

#include <string>

namespace convcheck_exec {

// Writes all of `text` and a newline; false when the other end is gone.
bool write_line(int fd, const std::string& text);

// What one read step found.
enum class ReadResult { line, closed, error };

// Reads from fd into `buffer` until it holds a whole line; moves that line (without its newline) into `line`.
// Blocks. `closed`: end of file before a newline (what was read stays in `buffer`).
ReadResult read_line(int fd, std::string& buffer, std::string* line);

// Non-blocking step for a poll loop: reads what fd has (fd was reported readable) and appends it to buffer;
// false at end of file or on an error.
bool read_available(int fd, std::string& buffer);

// Takes one whole line out of buffer, if it holds one.
bool take_line(std::string& buffer, std::string* line);

// Sends fd over the Unix socket `socket` (SCM_RIGHTS), with one byte of payload; false on failure.
bool send_descriptor(int socket, int fd);
// Receives one descriptor; -1 at end of file or on failure.
int receive_descriptor(int socket);

}  // namespace convcheck_exec
