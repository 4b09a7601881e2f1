#!/usr/bin/env python3
"""Times the neighbour-list skin on every built-in scene with contacts (issue 40, item 4: the
default skin decided from measurements on every built-in scene).

For each scene, at each skin (a fraction of the scene's smallest radius), runs
`spheresim run SCENE --particles N --steps S --skin s --backend B --stats-json`, interleaving
the skins within each repeat so that a slow spell of the machine falls on all alike, and keeps
each skin's fastest `wall_seconds` (stepping only, set-up excluded) and its rebuild count.

    python3 benches/skin/sweep.py [--spheresim target/release/spheresim] [--backend cpu]
                                  [--fractions 0.25,0.4,0.6,0.75] [--repeats 2] [--scale 1]

Prints one table per scene and a summary: each skin's time over the default's (r/4).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# Scene, spheres, steps: about 1-5 s a run on two cores of a 2026 server with the CPU backend.
SCENES = [
    ("wall-break", 10000, 300),
    ("wall-stand", 2000, 1000),
    ("container", 2000, 1000),
    ("box-gas", 10000, 400),
    ("orbits", 1000, 1000),
    ("plummer", 10000, 100),
    ("rubble-pile", 10000, 300),
    ("pile", 2000, 1000),
]


def run(sim, args, tmp):
    stats = os.path.join(tmp, "stats.json")
    cmd = [sim, "run", *args, "--quiet", "--progress-every", "0", "--stats-json", stats]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("error: %s failed:\n%s" % (" ".join(cmd), r.stderr[-2000:]))
    return json.load(open(stats))


def smallest_radius(sim, scene, n, tmp):
    final = os.path.join(tmp, "initial.csv")
    run(sim, [scene, "--particles", str(n), "--steps", "1", "--backend", "cpu", "--final", final], tmp)
    lines = open(final).read().splitlines()
    col = lines[0].split(",").index("radius")
    return min(float(l.split(",")[col]) for l in lines[1:] if l)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spheresim", default="target/release/spheresim")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--fractions", default="0.25,0.4,0.6,0.75")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every scene's steps")
    ap.add_argument("--scenes", default=",".join(s for s, _, _ in SCENES))
    a = ap.parse_args()
    fractions = [float(f) for f in a.fractions.split(",")]
    wanted = a.scenes.split(",")
    summary = {}
    with tempfile.TemporaryDirectory() as tmp:
        for scene, n, steps in SCENES:
            if scene not in wanted:
                continue
            steps = max(1, int(steps * a.scale))
            r_min = smallest_radius(a.spheresim, scene, n, tmp)
            best = {f: (float("inf"), None) for f in fractions}
            for _ in range(a.repeats):
                for f in fractions:
                    s = run(a.spheresim, [scene, "--particles", str(n), "--steps", str(steps),
                                          "--backend", a.backend, "--skin", repr(f * r_min)], tmp)
                    t = s["wall_seconds"]
                    if t < best[f][0]:
                        best[f] = (t, s.get("neighbour_rebuilds"))
            base = best[fractions[0]][0]
            print("%s: %d spheres, %d steps, r_min %.4g m, backend %s, best of %d"
                  % (scene, n, steps, r_min, a.backend, a.repeats))
            for f in fractions:
                t, rb = best[f]
                print("  skin %.2f r_min  %8.3f s  rebuilds %6s  %.3f of %.2f r_min's time"
                      % (f, t, rb, t / base, fractions[0]))
                summary.setdefault(f, []).append(t / base)
            sys.stdout.flush()
    print("summary: time over %.2f r_min's, per scene (%s)" % (fractions[0], ", ".join(
        s for s, _, _ in SCENES if s in wanted)))
    for f in fractions:
        v = summary[f]
        print("  %.2f r_min: %s  (max %.3f)" % (f, " ".join("%.3f" % x for x in v), max(v)))


if __name__ == "__main__":
    main()
