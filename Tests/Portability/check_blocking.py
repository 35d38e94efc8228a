#!/usr/bin/env python3
"""Blocking waits on child processes in the tests, outside Tests/TestProcesses.

Swift Testing runs the tests as tasks on the cooperative pool (two threads on CI). A test that
reads a child's pipe to its end, or waits for its exit, holds one of those threads while the
child runs; two at once stall every other test (a PostgreSQL lease renewal due every 0.67 s
waited for seconds, and lost its lease). Tests run children through TestProcesses
(`ChildProcess.run`, `firstLine(of:)`, `offCooperativePool`), which wait off the pool.

A wait that is brief by construction (reaping a child just killed, or one told to exit by
closing its input) may stay, marked `// brief: WHY` on its line; a wait that runs on a thread of
its own (inside `offCooperativePool`) is marked `// off pool: WHERE`.

    python3 check_blocking.py FILE...   # prints FILE:LINE: [blocking-wait] ...; exit 1 if any
"""
import re
import sys

CALLS = re.compile(r"\.waitUntilExit\(\)|\.readDataToEndOfFile\(\)|\.read\(upToCount:|\.readData\(ofLength:|\bwaitpid\(")


def findings(path):
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            code = line.split("//", 1)[0]
            if CALLS.search(code) and "// brief:" not in line and "// off pool:" not in line:
                yield f"{path}:{number}: [blocking-wait] a child process waited for on the test's thread: " \
                      f"use TestProcesses (ChildProcess.run, firstLine(of:), offCooperativePool), or mark a brief wait `// brief: WHY` (`// off pool: WHERE` inside offCooperativePool)"


def main(paths):
    found = [finding for path in paths for finding in findings(path)]
    for finding in found:
        print(finding)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
