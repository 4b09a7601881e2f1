#!/usr/bin/env python3
"""Turns a device run's results (run.sh's results.tar.gz, or its unpacked folder) into a
benches/RESULTS.md entry: date, GPU, driver, commit, the parts' outcomes, the test counts and the bench
table with the work counters. Prints Markdown to stdout.

    python3 benches/device/summary.py /work/.device/.../results.tar.gz "what this run was"
"""
import json
import os
import re
import sys
import tarfile
import tempfile


def load(path):
    if os.path.isdir(path):
        return path
    tmp = tempfile.mkdtemp()
    with tarfile.open(path) as tar:
        tar.extractall(tmp, filter="data")
    return os.path.join(tmp, "results")


def fmt(x, nd=3):
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{nd}f}" if abs(x) < 1e5 else f"{x:.3e}"
    return str(x)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: summary.py RESULTS(.tar.gz|dir) [TITLE]")
    res = load(sys.argv[1])
    title = sys.argv[2] if len(sys.argv) > 2 else "device run"
    env = dict(
        line.split(": ", 1)
        for line in open(os.path.join(res, "env.txt")).read().splitlines()
        if ": " in line
    )
    gpu_line = [
        l for l in open(os.path.join(res, "env.txt")).read().splitlines() if ": " not in l
    ]
    gpu = gpu_line[0] if gpu_line else "no nvidia-smi"
    date = env.get("date", "?")[:10]
    commit = env.get("commit", "?").strip()
    print(f"## {date}, {gpu.split(',')[0].strip()}, {title}, {commit[:7]}\n")
    print(f"- GPU (nvidia-smi: name, driver, memory, SM clock, max SM clock): {gpu}")
    print(f"- host: {env.get('host', '?')};{env.get('cpu', '?')}")
    print(f"- commit: {commit}; bundle of benches/device/build.sh, run by benches/device/run.sh")
    if env.get("dry run", "0").strip() == "1":
        print("- **dry run** (small sizes)")
    print()
    print("| part | exit | s | result |")
    print("| --- | --- | --- | --- |")
    for line in open(os.path.join(res, "parts.txt")):
        name, rc, secs = line.split()
        path = os.path.join(res, name + ".txt")
        if rc == "skipped" or not os.path.exists(path):
            print(f"| {name} | – | – | not run: the run's budget was spent |")
            continue
        text = open(path, errors="replace").read()
        note = ""
        if name.startswith("test_"):
            m = re.findall(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", text)
            p = sum(int(a) for a, _, _ in m)
            f = sum(int(b) for _, b, _ in m)
            fails = re.findall(r"^    (\S+)$", text.split("failures:")[-1], re.M) if f else []
            note = f"{p} passed, {f} failed" + (f" ({', '.join(fails)})" if fails else "")
            ok = len(re.findall(r"^test .* ok$", text, re.M))
            if int(rc) > 128:
                note = f"crashed (signal {int(rc) - 128}) after {ok} tests passed"
            elif rc == "124":
                note = f"timed out after {ok} tests passed"
            contracts = sorted(set(re.findall(r"contract: ([^\n]+?) on ", text)))
            if contracts:
                note += "; contracts: " + "; ".join(contracts)
        elif name == "validate_gpu":
            m = re.search(r"(\d+) of (\d+)[^\n]*pass", text)
            note = m.group(0) if m else (text.strip().splitlines() or [""])[-1][:120]
        elif rc == "124":
            note = "timed out"
        print(f"| {name} | {rc} | {secs} | {note} |")
    print()
    scaling = os.path.join(res, "cpu_scaling.txt")
    if os.path.exists(scaling):
        print("CPU backend's thread scaling (benches/device/cpu_scaling.sh):\n")
        print("```text\n" + open(scaling).read().rstrip() + "\n```\n")
    rows = []
    for f in sorted(os.listdir(res)):
        if f.startswith("bench_") and f.endswith(".json"):
            rows += json.load(open(os.path.join(res, f)))
    if not rows:
        return
    print("| scene | N | backend | ms/step median (min–max) | dispatches/step (with work) "
          "| bytes/sphere/step | B/sphere | pair visits max/mean | build visits max/mean "
          "| stages ms/step | note |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        stages = ", ".join(f"{k} {v:.3f}" for k, v in r.get("stage_ms_per_step", {}).items()
                           if v > 0)
        disp = fmt(r.get("dispatches_per_step"), 1)
        if r.get("dispatches_with_work_per_step") is not None:
            disp += f" ({fmt(r['dispatches_with_work_per_step'], 1)})"
        visits = f"{fmt(r.get('max_pair_visits_per_invocation'))}/" \
                 f"{fmt(r.get('mean_pair_visits_per_invocation'), 1)}"
        build = f"{fmt(r.get('build_pass_max_visits'))}/" \
                f"{fmt(r.get('build_pass_mean_visits'), 1)}"
        ms = f"{fmt(r['ms_per_step_median'])} ({fmt(r['ms_per_step_min'])}–" \
             f"{fmt(r['ms_per_step_max'])})" if not r.get("error") else "–"
        print(f"| {r['scene']} | {r['particles']} | {r['backend']} | {ms} | {disp} | "
              f"{fmt(r.get('bytes_per_sphere_step'), 0)} | "
              f"{fmt(r.get('memory_bytes_per_sphere'), 0)} | {visits} | {build} | {stages} | "
              f"{r.get('error') or ''} |")
    timed = [r for r in rows if r.get("pass_ms_per_step")]
    if timed:
        print()
        for r in timed:
            top = sorted(r["pass_ms_per_step"].items(), key=lambda kv: -kv[1])[:5]
            print(f"- slowest passes, {r['scene']} {r['particles']} {r['backend']}: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in top) + " ms/step")
    gi = [r for r in rows if r.get("gravity_interactions_per_second")]
    if gi:
        print()
        for r in gi:
            print(f"- gravity {r['scene']} {r['particles']} {r['backend']}: "
                  f"{r['gravity_interactions_per_second']:.3e} interactions/s "
                  f"({r.get('gravity_interactions_timing')})")


if __name__ == "__main__":
    main()
