"""A wall-break from Python: a heavy ball through a wall of spheres, and its energy ledger.

Runs the built-in `wall-break` scene, records the diagnostics every K steps, and plots the
energy ledger -- kinetic energy, energy dissipated by the inelastic impulses, and their sum
(which stays constant up to the integration error, docs/physics.md §4.3) -- to a PNG.

    pip install ./python matplotlib        # once (docs/python.md)
    python examples/wall_break.py [OUT.png] [--particles N] [--steps S] [--every K] [--backend cpu]

Writes OUT.png (default wall_break.png) and prints where it wrote it.
"""

import argparse
import time

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt

import spheresim


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="wall_break.png", help="the PNG to write (default: %(default)s)")
    ap.add_argument("--particles", type=int, default=1000, help="spheres in the scene (default: %(default)s)")
    ap.add_argument("--steps", type=int, default=None, help="steps to run (default: the scene's own)")
    ap.add_argument("--every", type=int, default=5, help="steps between diagnostics (default: %(default)s)")
    ap.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    args = ap.parse_args()

    scene = spheresim.Scene.builtin("wall-break", particles=args.particles)
    steps = args.steps or scene.steps
    sim = spheresim.Simulation(scene, backend=args.backend)
    if sim.notice:
        print("note:", sim.notice)
    print(f"{scene.name}: {len(sim)} spheres, {steps} steps of {sim.dt:g} s on the {sim.backend} backend ({sim.adapter})")

    ledger = [sim.diagnostics()]
    t0 = time.perf_counter()
    while sim.step_count < steps:
        sim.step(min(args.every, steps - sim.step_count))
        ledger.append(sim.diagnostics())
    seconds = time.perf_counter() - t0

    t = [d["time"] * 1e3 for d in ledger]  # ms
    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    ax.plot(t, [d["kinetic"] for d in ledger], label="kinetic")
    ax.plot(t, [d["dissipated"] for d in ledger], label="dissipated (inelastic impulses)")
    ax.plot(t, [d["energy_balance"] for d in ledger], "k--", label="kinetic + potential + dissipated")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("energy (J)")
    ax.set_title(f"wall-break, {len(sim)} spheres: energy ledger")
    ax.legend(loc="center right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out)

    first, last = ledger[0], ledger[-1]
    drift = (last["energy_balance"] - first["energy_balance"]) / first["energy_balance"]
    print(f"stepped in {seconds:.1f} s; {last['collisions']} collisions; "
          f"{last['dissipated']:.4g} J of {first['total']:.4g} J dissipated; balance moved by {drift:+.1e}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
