#!/usr/bin/env python3
"""Whole-process timings of a door, its peer and the client's floor, run in turn.

Usage: interleave.py NAME GOAL RUNS INPUT OURS THEIRS FLOOR

OURS, THEIRS and FLOOR are command lines (split as a shell would, no shell run); each reads INPUT
on stdin, its stdout and stderr go to /dev/null. Each round runs the three once, in an order
that rotates from round to round, after a warm-up of 10 rounds; so a slower or faster stretch of
the machine falls on all three alike, which one command's runs after another's do not
(hyperfine's way, whose above-the-floor ratio moved from 0.38x to 0.82x between runs here).

Prints one line: the medians, the median of the rounds' ratios (ours / theirs), and the ratio of
what each adds above the client's floor (the medians' differences). Exits 1 if OURS or THEIRS
fails (the floor may: a client finding nobody to ask fails at once).
"""
import os
import shlex
import statistics
import sys
import time


def spawn(argv, input_path, may_fail=False):
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, input_path, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    start = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) != 0 and not may_fail:
        sys.exit(f"{shlex.join(argv)} failed (exit {os.waitstatus_to_exitcode(status)})")
    return elapsed / 1e9


def main():
    name, goal, runs, input_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    commands = [shlex.split(line) for line in sys.argv[5:8]]
    times = [[] for _ in commands]
    for round_number in range(runs + 10):
        order = [(round_number + k) % len(commands) for k in range(len(commands))]
        measured = {index: spawn(commands[index], input_path, may_fail=index == 2) for index in order}
        if round_number >= 10:
            for index, seconds in measured.items():
                times[index].append(seconds)
    ours, theirs, floor = (statistics.median(t) for t in times)
    ratio = statistics.median(o / t for o, t in zip(times[0], times[1]))
    above = f"{(ours - floor) / (theirs - floor):5.2f}x" if theirs > floor else "  n/a"
    print(f"{name:<16} vault {ours * 1000:7.2f} ms   peer {theirs * 1000:7.2f} ms   {ratio:5.2f}x (goal: at most {goal}x)"
          f"   client's floor {floor * 1000:6.2f} ms: above it {above}")


if __name__ == "__main__":
    main()
