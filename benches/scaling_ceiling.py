#!/usr/bin/env python3
"""What one to two (or N) cores can give on this machine, whatever the program.

Runs two kernels, first in one process, then in N processes at once, and prints the throughput
ratio (N x one process's time / the mean time of the N concurrent ones):

  compute  a Python integer loop: no memory traffic beyond the core's caches;
  stream   copies of a 64 MiB buffer (memcpy): bound by the memory system once it outgrows
           the last-level cache.

A parallel program cannot scale better than these on the same machine: a spheresim pass that
streams its arrays (the kick and drift) is bounded by `stream`, the pair passes lie between the
two. On a VM whose cores share a physical core, a cache or a memory channel with other guests,
both stay below N. Standard library only.

Usage: python3 benches/scaling_ceiling.py [--procs N] [--repeats 3]
"""

import argparse
import multiprocessing as mp
import os
import statistics
import time


def compute(_):
    t = time.perf_counter()
    s = 0
    for i in range(20_000_000):
        s += i * i
    return time.perf_counter() - t


def stream(_):
    a = bytearray(64 << 20)
    b = bytearray(64 << 20)
    t = time.perf_counter()
    for _ in range(60):
        b[:] = a
    return time.perf_counter() - t


def ratio(kernel, procs):
    alone = kernel(0)
    with mp.Pool(procs) as pool:
        together = pool.map(kernel, range(procs))
    return alone, together, procs * alone / (sum(together) / procs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    if a.procs < 1 or a.repeats < 1:
        ap.error("--procs and --repeats must be at least 1")
    print(f"scaling ceiling: 1 against {a.procs} processes, {a.repeats} repeats, "
          f"os.cpu_count() = {os.cpu_count()}")
    for name, kernel in (("compute", compute), ("stream", stream)):
        ratios = []
        for r in range(a.repeats):
            alone, together, x = ratio(kernel, a.procs)
            ratios.append(x)
            print(f"{name:8} repeat {r + 1}: alone {alone:.3f} s, together "
                  f"{' '.join(f'{t:.3f}' for t in together)} s: {x:.2f}x")
        print(f"{name:8} median {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
