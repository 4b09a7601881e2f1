#!/usr/bin/env python3
"""A flat-bottomed silo's discharge rate against its orifice, and Beverloo's law, from spheresim.

    python3 benches/hopper/beverloo.py [--spheresim target/release/spheresim] [--out DIR]
                                       [--widths 5,6,7,8] [--time 1.5] [--side 24] [--height 24]

Each case is a square silo (side `--side` grain diameters, walls of the grains' material) whose
floor is a carpet of fixed grains of half the radius, touching on a square lattice, with a
circular orifice in its middle: the carpet keeps the grains whose centres lie at least D/2 + r/2
from the silo's axis, so that the hole between their surfaces is at least D wide. The fit uses
the hole's inscribed diameter (the lattice makes it up to a few tenths of d wider than D). An
`[[insert]]` with `start = 0` fills the silo before the first step, as in the built-in
`hopper-flow`: as many grains as a simple-cubic column of pitch 1.1 d and `--height` diameters
holds, at rest, placed at random where they overlap nothing up to twice that height. They fall,
pack and discharge through the orifice into a catch basin below (the same walls, a floor far enough down to hold every grain). The
grains: d = 1 cm, 2500 kg/m³, E = 10 MPa, ν = 0.3, e = 0.5, μ = 0.5, rotation on, Hertz contact,
g = 9.81 m/s² along −y, dt = 4 × 10⁻⁵ s.

The rate W (kg/s) is the slope of the mass below the carpet against time, fitted over the steady
part of the run (after `--settle` s, while at least a quarter of the column is left). Beverloo,
Leniger and van de Velde (Chem. Eng. Sci. 15 (1961) 260) give W = C ρ_b √g (D − k d)^{5/2} with
ρ_b the bulk density (taken as the column's packing fraction at the start of the steady part ×
ρ_p); the script fits C and k by least squares (k on a grid, C linear), then the exponent with
the fitted k free, and writes beverloo.csv and, with matplotlib, beverloo.png. Units SI.
"""
import argparse
import csv
import math
import os
import subprocess

import numpy as np

RADIUS = 5e-3  # m
DIAMETER = 2 * RADIUS
DENSITY = 2500.0  # kg/m³
MASS = DENSITY * 4.0 / 3.0 * math.pi * RADIUS**3
DT = 4e-5  # s: t_c/20 at the 2.2 m/s a grain reaches in the catch basin (spheresim checks)


def build(case_dir, width, side, height, seed, time):
    """Writes the grains' CSV and the scene TOML of one case (orifice `width` diameters); returns
    (number of moving grains, carpet grains, silo side L in m, the hole's inscribed diameter in
    m: the largest circle about the axis clear of the carpet, at least the nominal D)."""
    L = side * DIAMETER
    axis = np.array([L / 2, L / 2])
    rows = []
    # The carpet: fixed grains of half the radius, touching on a square lattice of pitch r (no
    # grain passes between them), centres at y = −r/2 so that their tops are at y = 0; the
    # orifice keeps those whose centres lie at least D/2 + r/2 from the axis. Half-size grains
    # make the hole's ragged edge half as coarse.
    rc = RADIUS / 2
    k = int(round(L / (2 * rc)))
    inscribed = math.inf
    for i in range(k):
        for j in range(k):
            x, z = rc + i * 2 * rc, rc + j * 2 * rc
            dist = math.hypot(x - axis[0], z - axis[1])
            if dist >= width * DIAMETER / 2 + rc:
                rows.append((x, -rc, z, 0.0, 0.0, 0.0, rc, math.inf))
                inscribed = min(inscribed, 2 * (dist - rc))
    carpet = len(rows)
    # The column: as many grains as a simple-cubic lattice of pitch 1.1 d holds, inserted.
    pitch = 1.1 * DIAMETER
    m = int((L - DIAMETER) / pitch) + 1
    layers = int(height * DIAMETER / pitch)
    moving = m * m * layers
    fill = 2 * layers * pitch
    os.makedirs(case_dir, exist_ok=True)
    with open(os.path.join(case_dir, "grains.csv"), "w") as f:
        f.write("id,x,y,z,vx,vy,vz,radius,mass\n")
        for i, row in enumerate(rows):
            f.write(f"{i}," + ",".join("inf" if c == math.inf else repr(float(c)) for c in row)
                    + "\n")
    # The catch basin holds the whole column loosely: its floor a column's height and a half
    # below the carpet.
    basin = 1.5 * layers * pitch + 4 * DIAMETER
    steps = int(round(time / DT))
    toml = f"""# One case of benches/hopper/beverloo.py: orifice {width} d, silo side {side} d
[simulation]
dt = {DT!r}
steps = {steps}
contact = "hertz"
rotation = true
gravity = [0.0, -9.81, 0.0]

[[material]]
name = "grain"
density = {DENSITY!r}
youngs_modulus = 1e7
poisson_ratio = 0.3
friction = 0.5
restitution = 0.5

[[particles_file]]
path = "grains.csv"
material = "grain"

[[plane]]
point = [0.0, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
material = "grain"

[[plane]]
point = [{L!r}, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
material = "grain"

[[plane]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "grain"

[[plane]]
point = [0.0, 0.0, {L!r}]
normal = [0.0, 0.0, -1.0]
material = "grain"

[[plane]]                        # the catch basin's floor
point = [0.0, {-basin!r}, 0.0]
normal = [0.0, 1.0, 0.0]
material = "grain"

[[insert]]                       # the fill, before the first step; the rest at the next passes
min = [0.0, 0.0, 0.0]
max = [{L!r}, {fill!r}, {L!r}]
radius = {RADIUS!r}
count = {moving}
total = {moving}
start = 0
every = 2000
material = "grain"
seed = {seed}
"""
    with open(os.path.join(case_dir, "scene.toml"), "w") as f:
        f.write(toml)
    return moving, carpet, L, inscribed


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        data = np.array([[float(x) if x != "inf" else math.inf for x in row] for row in r])
    return header, data


def analyse(case_dir, moving, L, settle):
    """Mass below the carpet against time from the snapshots; the rate over the steady part."""
    out = os.path.join(case_dir, "out")
    times, below, column_top = [], [], []
    for name in sorted(p for p in os.listdir(out) if p.startswith("snapshot") and
                       p.endswith(".csv")):
        step = int(name.split("_")[1].split(".")[0])
        h, s = read_csv(os.path.join(out, name))
        c = {k: i for i, k in enumerate(h)}
        free = np.isfinite(s[:, c["mass"]])
        y = s[free, c["y"]]
        times.append(step * DT)
        below.append(np.sum(y < -RADIUS) * MASS)
        above = np.sort(y[y > 0])
        # The column's fill: the height under which 95 % of the grains above the carpet lie.
        column_top.append(above[int(0.95 * (len(above) - 1))] if len(above) else 0.0)
    t, mass = np.array(times), np.array(below)
    left = moving * MASS - mass
    steady = (t >= settle) & (left >= 0.25 * moving * MASS)
    if steady.sum() < 3:
        raise SystemExit(f"{case_dir}: fewer than three steady samples; run longer")
    rate = np.polyfit(t[steady], mass[steady], 1)[0]
    # Bulk density of the column at the start of the steady part: grains above the carpet over
    # the silo's volume up to the fill height.
    k0 = np.argmax(steady)
    n_above = (moving * MASS - mass[k0]) / MASS
    bulk = n_above * MASS / (L * L * column_top[k0])
    return rate, bulk, t, mass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spheresim", default="target/release/spheresim")
    ap.add_argument("--out", default="beverloo")
    ap.add_argument("--widths", default="5,6,7,8", help="orifice widths D, grain diameters")
    ap.add_argument("--side", type=int, default=24, help="silo side, grain diameters")
    ap.add_argument("--height", type=float, default=24, help="column height, grain diameters")
    ap.add_argument("--time", type=float, default=1.5, help="simulated time, s")
    ap.add_argument("--settle", type=float, default=0.5, help="time before the steady part, s")
    ap.add_argument("--every", type=int, default=400, help="steps between snapshots")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--no-run", action="store_true", help="analyse the runs already in --out")
    a = ap.parse_args()
    rows = []
    for k, w in enumerate(float(x) for x in a.widths.split(",")):
        case_dir = os.path.join(a.out, f"D{w:g}")
        moving, carpet, L, hole = build(case_dir, w, a.side, a.height, seed=k + 1, time=a.time)
        if not a.no_run:
            print(f"D = {w:g} d: {moving} grains, {carpet} carpet grains, silo {L:.3f} m",
                  flush=True)
            subprocess.run([a.spheresim, "run", os.path.join(case_dir, "scene.toml"),
                            "--backend", a.backend, "--output", os.path.join(case_dir, "out"),
                            "--every", str(a.every), "--format", "csv", "-q"], check=True)
        rate, bulk, t, mass = analyse(case_dir, moving, L, a.settle)
        rows.append(dict(D=hole, width=w, rate=rate, bulk=bulk, t=t, mass=mass))
        print(f"D = {w:g} d (hole {hole / DIAMETER:.3f} d across): rate {rate:.4g} kg/s, "
              f"bulk density {bulk:.4g} kg/m³", flush=True)
    D = np.array([r["D"] for r in rows])
    W = np.array([r["rate"] for r in rows])
    rho_b = float(np.mean([r["bulk"] for r in rows]))
    g = 9.81
    best = None
    for kk in np.linspace(0.0, 3.0, 3001):
        x = np.clip(D - kk * DIAMETER, 1e-12, None) ** 2.5 * rho_b * math.sqrt(g)
        c = float(np.dot(x, W) / np.dot(x, x))
        err = float(np.sum((c * x - W) ** 2))
        if best is None or err < best[0]:
            best = (err, c, kk)
    _, C, kfit = best
    exponent = np.polyfit(np.log(D - kfit * DIAMETER), np.log(W), 1)[0]
    print(f"Beverloo fit: C {C:.4f}, k {kfit:.3f} (rho_b {rho_b:.1f} kg/m³); with that k the "
          f"rate goes as (D - k d)^{exponent:.3f}")
    with open(os.path.join(a.out, "beverloo.csv"), "w") as f:
        f.write("width_d,D_inscribed,rate,bulk_density\n")
        for r in rows:
            f.write(f"{r['width']!r},{r['D']!r},{float(r['rate'])!r},{float(r['bulk'])!r}\n")
        f.write(f"# fit: C {C!r}, k {float(kfit)!r}, exponent {float(exponent)!r}\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    for r in rows:
        ax.plot(r["t"], r["mass"], label=f"D = {r['width']:g} d")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("mass through the orifice (kg)")
    ax.legend(fontsize=8)
    grid = np.linspace(D.min() * 0.8, D.max() * 1.1, 100)
    bx.plot(D / DIAMETER, W, "o", label="spheresim (D: the hole's inscribed diameter)")
    bx.plot(grid / DIAMETER, C * rho_b * math.sqrt(g) * np.clip(grid - kfit * DIAMETER, 0, None)
            ** 2.5, "-", label=f"Beverloo fit: C {C:.3f}, k {kfit:.2f}")
    bx.set_xlabel("orifice D / d")
    bx.set_ylabel("discharge rate W (kg/s)")
    bx.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "beverloo.png"), dpi=110)
    print(f"wrote {os.path.join(a.out, 'beverloo.png')}")


if __name__ == "__main__":
    main()
