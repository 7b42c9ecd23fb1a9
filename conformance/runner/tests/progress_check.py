"""The progress line on a terminal shows the case in progress and its elapsed time, redrawn while
the case runs (docs/runner.md, "Results"): a case that hangs for 3 s must show "1 s" or "2 s"
beside its id before it ends, and the line is cleared before the summary.

usage: progress_check.py <convcheck> <faultzoo plugin>
"""
import os
import pty
import re
import sys


def main():
    convcheck, plugin = sys.argv[1:3]
    pid, fd = pty.fork()  # stderr is a terminal: the progress line is on
    if pid == 0:
        os.execv(convcheck, [convcheck, "run", "--backend", plugin, "--backend-option", "fault=endless_loop",
                             "--case", "conv:c=1,o=1,in=4,k=3", "--timeout", "3", "--no-shrink"])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    text = out.decode("utf-8", errors="replace")
    problems = []
    if os.waitstatus_to_exitcode(status) != 1:
        problems.append(f"exit code {os.waitstatus_to_exitcode(status)}, want 1 (a hanged case)")
    if not re.search(r"\] 0/1  failing 0  cli/0000 [12] s  conv:n=1,c=1,o=1", text):
        problems.append("no progress line with the case in progress and its elapsed time (1 s or 2 s)")
    if "\r\x1b[K" not in text:
        problems.append("the progress line was never cleared")
    if "hanged" not in text:
        problems.append("no summary naming the hanged case")
    if problems:
        print("progress_check: " + "; ".join(problems) + "\noutput:\n" + repr(text))
        return 1
    print("progress_check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
