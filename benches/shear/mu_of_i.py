#!/usr/bin/env python3
"""The shear cell's effective friction against the inertial number, μ_eff(I), from spheresim runs.

    python3 benches/shear/mu_of_i.py [--spheresim target/release/spheresim] [--out DIR]
                                     [--cases 0.52:0.5,0.56:0.5,...] [--time 1.5] [--quick]

Each case is plane Couette flow at constant volume: 2 304 Hertz grains with friction and
rotation (radius 5 mm ± 5 %, 2500 kg/m³, E = 10 MPa, ν = 0.3, e = 0.7, μ = 0.5), periodic in x
and z, between flat walls, a floor moving at −V and a lid at +V along x (the walls' material
says μ = 1, but a contact takes the smaller of its two bodies' μ: 0.5, as between grains; the
grains roll on them, and the shear gathers near the walls). A case is a volume fraction φ and a wall speed V
(`phi:speed`); the grains start on an FCC lattice scaled to φ, with the linear velocity
profile. spheresim records the walls' forces every step (`--wall-forces true`); this script
reads diagnostics.csv and the snapshots and computes, over the steady part of the run (after
`--settle` of it):

* the normal stress σ = F_y / A and shear stress τ = |F_x| / A on the lid and the floor (A = L_x
  L_z; the two walls averaged), and μ_eff = τ / σ;
* the shear rate γ̇ as the slope of the mean v_x(y) in the cell's middle half (the walls may
  slip, so the nominal 2V/H is printed beside it);
* the inertial number I = γ̇ d / sqrt(σ / ρ_p) (GDR MiDi, Eur. Phys. J. E 14 (2004) 341; d the
  mean diameter, ρ_p the grains' density).

Then it fits the μ(I) rheology of Jop, Forterre and Pouliquen (Nature 441 (2006) 727),
μ(I) = μ_s + (μ_2 − μ_s) / (I_0 / I + 1), by least squares over a grid of I_0 (μ_s and μ_2
linear in the rest), and writes mu_of_i.csv (one row per case) and, with matplotlib,
mu_of_i.png. Units SI throughout.
"""
import argparse
import csv
import math
import os
import subprocess
import sys

import numpy as np

RADIUS = 5e-3  # m, mean grain radius
SPREAD = 0.05  # radii uniform in [1 − SPREAD, 1 + SPREAD] × RADIUS
DENSITY = 2500.0  # kg/m³
CELLS_XZ = 6  # FCC cubic cells along x and z
CELLS_Y = 16  # and along y: 4 × 6 × 16 × 6 = 2 304 grains
DT = 2e-5  # s: the energy ledger moves by about 3 % of its scale over a run (4e-5: 7-9 %)


def fcc_sites(nx, ny, nz):
    """Unit-cell coordinates of an FCC lattice of nx × ny × nz cubic cells, 4 sites a cell."""
    base = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    cells = np.stack(np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"), -1)
    return (cells.reshape(-1, 1, 3) + base.reshape(1, 4, 3)).reshape(-1, 3) + 0.25


def build(case_dir, phi, speed, seed, time):
    """Writes the grains' CSV and the scene TOML of one case; returns (L, H, n)."""
    rng = np.random.default_rng(seed)
    sites = fcc_sites(CELLS_XZ, CELLS_Y, CELLS_XZ)
    n = len(sites)
    radii = RADIUS * rng.uniform(1 - SPREAD, 1 + SPREAD, n)
    volume = (4.0 / 3.0) * math.pi * np.sum(radii**3)
    r_max = RADIUS * (1 + SPREAD)

    def box(a):
        # The outer layers sit at 0.25 a from the lattice's ends: the walls move out so that
        # every centre is 1.02 largest radii from them.
        gap = max(0.0, 2 * (1.02 * r_max - 0.25 * a))
        return CELLS_XZ * a, CELLS_Y * a + gap, gap

    # The cubic cell edge a that gives volume fraction phi in L × H × L (bisection: the fraction
    # falls as a grows).
    lo, hi = 1e-4, 1.0
    for _ in range(200):
        a = 0.5 * (lo + hi)
        L, H, gap = box(a)
        if volume / (L * L * H) > phi:
            lo = a
        else:
            hi = a
    L, H, gap = box(a)
    nn = a / math.sqrt(2)  # nearest-neighbour distance
    if nn <= 2 * r_max * 1.001:
        sys.exit(f"phi {phi}: the lattice's neighbours ({nn:.5f} m) are closer than two "
                 f"largest radii ({2 * r_max:.5f} m); lower phi or SPREAD")
    x = sites * a
    x[:, 1] += gap / 2
    v = np.zeros_like(x)
    v[:, 0] = speed * (2 * x[:, 1] / H - 1)
    v += rng.normal(0.0, 0.05 * speed, v.shape)
    mass = DENSITY * (4.0 / 3.0) * math.pi * radii**3
    os.makedirs(case_dir, exist_ok=True)
    with open(os.path.join(case_dir, "grains.csv"), "w") as f:
        f.write("id,x,y,z,vx,vy,vz,radius,mass\n")
        for i in range(n):
            values = (*x[i], *v[i], radii[i], mass[i])
            f.write(f"{i}," + ",".join(repr(float(c)) for c in values) + "\n")
    steps = int(round(time / DT))
    toml = f"""# One case of benches/shear/mu_of_i.py: phi {phi}, wall speed {speed} m/s
[simulation]
dt = {DT!r}
steps = {steps}
contact = "hertz"
rotation = true
periodic = [true, false, true]
wall_forces = true

[domain]
min = [0.0, 0.0, 0.0]
max = [{L!r}, {H!r}, {L!r}]

[[material]]
name = "grain"
density = {DENSITY!r}
youngs_modulus = 1e7
poisson_ratio = 0.3
friction = 0.5
restitution = 0.7

[[material]]
name = "wall"
density = {DENSITY!r}
youngs_modulus = 1e7
poisson_ratio = 0.3
friction = 1.0
restitution = 0.7

[[particles_file]]
path = "grains.csv"
material = "grain"

[[plane]]                        # wall 0: the floor, moving at -V
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
velocity = [{-speed!r}, 0.0, 0.0]
material = "wall"

[[plane]]                        # wall 1: the lid, moving at +V
point = [0.0, {H!r}, 0.0]
normal = [0.0, -1.0, 0.0]
velocity = [{speed!r}, 0.0, 0.0]
material = "wall"
"""
    with open(os.path.join(case_dir, "scene.toml"), "w") as f:
        f.write(toml)
    return L, H, n


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        data = np.array([[float(x) for x in row] for row in r])
    return header, data


def analyse(case_dir, L, H, speed, settle):
    header, d = read_csv(os.path.join(case_dir, "out", "diagnostics.csv"))
    col = {name: k for k, name in enumerate(header)}
    t = d[:, col["time"]]
    steady = t >= settle * t[-1]
    area = L * L
    # Force on the floor (wall 0) and the lid (wall 1), N: the lid is pushed up (+y) and dragged
    # along +x by... the grains resist its motion, so its F_x is along −x; the floor's mirror.
    f0 = d[steady][:, [col["wall0_fx"], col["wall0_fy"]]]
    f1 = d[steady][:, [col["wall1_fx"], col["wall1_fy"]]]
    sigma = 0.5 * (np.mean(-f0[:, 1]) + np.mean(f1[:, 1])) / area
    tau = 0.5 * (np.mean(f0[:, 0]) - np.mean(f1[:, 0])) / area
    # Mean v_x(y) over the steady snapshots, in 16 bins; slope over the middle half.
    snaps = sorted(p for p in os.listdir(os.path.join(case_dir, "out")) if p.endswith(".csv")
                   and p.startswith("snapshot"))
    ys, vs = [], []
    for name in snaps:
        step = int(name.split("_")[1].split(".")[0])
        if step * DT < settle * t[-1]:
            continue
        h, s = read_csv(os.path.join(case_dir, "out", name))
        c = {k: i for i, k in enumerate(h)}
        ys.append(s[:, c["y"]])
        vs.append(s[:, c["vx"]])
    y, vx = np.concatenate(ys), np.concatenate(vs)
    bins = np.linspace(0, H, 17)
    mid = 0.5 * (bins[1:] + bins[:-1])
    mean = np.array([vx[(y >= a) & (y < b)].mean() for a, b in zip(bins[:-1], bins[1:])])
    core = (mid > 0.25 * H) & (mid < 0.75 * H)
    gamma = np.polyfit(mid[core], mean[core], 1)[0]
    d_mean = 2 * RADIUS
    inertial = gamma * d_mean / math.sqrt(sigma / DENSITY)
    return {
        "sigma": sigma, "tau": tau, "mu": tau / sigma, "gamma": gamma,
        "gamma_nominal": 2 * speed / H, "I": inertial, "samples": int(steady.sum()),
        "profile": (mid.tolist(), mean.tolist()),
    }


# Jop, Forterre and Pouliquen, Nature 441 (2006) 727: glass beads of 0.5 mm, from inclined-plane
# experiments. Drawn for reference only: these grains are not those.
GLASS_BEADS = (math.tan(math.radians(20.9)), math.tan(math.radians(32.76)), 0.279)

# A case whose shear rate in the cell's middle half is below this fraction of the nominal 2V/H
# sheared mostly next to the walls (a core close to rigid): plotted, left out of the fit.
LOCALIZED = 0.15


def fit(i_values, mu_values):
    """μ_s, μ_2, I_0 of μ(I) = μ_s + (μ_2 − μ_s)/(I_0/I + 1), least squares over log-spaced I_0
    in [1e-3, 1] (μ_s and μ_2 linear for each); and whether I_0 landed on a bound, where the
    points do not determine it."""
    best = None
    grid = np.logspace(-3, 0, 1201)
    for i0 in grid:
        g = 1.0 / (i0 / i_values + 1.0)
        a = np.stack([1 - g, g], 1)  # μ = μ_s (1 − g) + μ_2 g
        coef, *_ = np.linalg.lstsq(a, mu_values, rcond=None)
        err = np.sum((a @ coef - mu_values) ** 2)
        if best is None or err < best[0]:
            best = (err, coef[0], coef[1], i0)
    err, mu_s, mu_2, i0 = best
    return mu_s, mu_2, i0, math.sqrt(err / len(i_values)), i0 in (grid[0], grid[-1])


def run_case(a, k, case):
    phi, speed = (float(x) for x in case.split(":"))
    case_dir = os.path.join(a.out, f"phi{phi}_v{speed}")
    L, H, n = build(case_dir, phi, speed, seed=k + 1, time=a.time)
    if not a.no_run:
        cmd = [a.spheresim, "run", os.path.join(case_dir, "scene.toml"), "--backend",
               a.backend, "--output", os.path.join(case_dir, "out"), "--every", str(a.every),
               "--format", "csv", "--stats-json", os.path.join(case_dir, "stats.json"), "-q"]
        print(f"phi {phi}, V {speed} m/s: {n} grains, L {L:.4f} m, H {H:.4f} m", flush=True)
        subprocess.run(cmd, check=True)
    r = analyse(case_dir, L, H, speed, a.settle)
    r.update(phi=phi, speed=speed, n=n, L=L, H=H)
    r["localized"] = r["gamma"] < LOCALIZED * r["gamma_nominal"]
    print(f"phi {phi}, V {speed}: sigma {r['sigma']:.4g} Pa, tau {r['tau']:.4g} Pa, "
          f"mu_eff {r['mu']:.4f}, shear rate {r['gamma']:.4g} 1/s (nominal "
          f"{r['gamma_nominal']:.4g}), I {r['I']:.4g}, {r['samples']} samples"
          + (", sheared at the walls" if r["localized"] else ""), flush=True)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spheresim", default="target/release/spheresim")
    ap.add_argument("--out", default="mu_of_i")
    ap.add_argument("--cases", default="0.50:0.5,0.54:0.5,0.56:0.5,0.57:0.5,0.58:0.5,"
                    "0.59:0.5,0.56:0.25,0.56:1.0")
    ap.add_argument("--time", type=float, default=1.5, help="simulated time of a case, s")
    ap.add_argument("--settle", type=float, default=0.4,
                    help="fraction of the run left out before averaging")
    ap.add_argument("--every", type=int, default=250, help="steps between samples")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--no-run", action="store_true",
                    help="analyse the runs already in --out (same --cases and --time)")
    a = ap.parse_args()
    rows = [run_case(a, k, case) for k, case in enumerate(a.cases.split(","))]
    with open(os.path.join(a.out, "mu_of_i.csv"), "w") as f:
        f.write("phi,wall_speed,n,L,H,sigma,tau,mu_eff,shear_rate,shear_rate_nominal,I,"
                "localized\n")
        for r in rows:
            f.write(",".join(repr(float(r[k])) for k in (
                "phi", "speed", "n", "L", "H", "sigma", "tau", "mu", "gamma", "gamma_nominal",
                "I")) + f",{int(r['localized'])}\n")
    used = [r for r in rows if not r["localized"]]
    i_values = np.array([r["I"] for r in used])
    mu_values = np.array([r["mu"] for r in used])
    fitted = None
    if len(used) >= 3:
        fitted = fit(i_values, mu_values)
        mu_s, mu_2, i0, rms, bound = fitted
        print(f"fit over {len(used)} cases: mu_s {mu_s:.4f}, mu_2 {mu_2:.4f}, I_0 {i0:.4g}, "
              f"rms {rms:.4f}" + (" (I_0 on its bound: not determined)" if bound else ""))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax.semilogx(i_values, mu_values, "o", color="C0", label="spheresim, fitted")
    out = [r for r in rows if r["localized"]]
    if out:
        ax.semilogx([r["I"] for r in out], [r["mu"] for r in out], "o", mfc="none", color="C0",
                    label="spheresim, sheared at the walls (not fitted)")
    all_i = np.array([r["I"] for r in rows])
    grid = np.logspace(math.log10(all_i.min() / 3), math.log10(max(all_i.max() * 3, 3)), 200)
    if fitted:
        ax.semilogx(grid, mu_s + (mu_2 - mu_s) / (i0 / grid + 1), "-", color="C0",
                    label=f"μ(I) fit: μ_s {mu_s:.3f}, μ_2 {mu_2:.3f}, I_0 {i0:.3g}")
    gs, g2, gi = GLASS_BEADS
    ax.semilogx(grid, gs + (g2 - gs) / (gi / grid + 1), "--", color="0.5",
                label="glass beads, Jop et al. 2006 (experiment)")
    ax.set_xlabel("inertial number I = γ̇ d / √(σ/ρ)")
    ax.set_ylabel("μ_eff = τ / σ")
    ax.legend(fontsize=7)
    for r in rows:
        mid, mean = r["profile"]
        bx.plot(np.array(mean) / r["speed"], np.array(mid) / r["H"],
                label=f"φ {r['phi']}, V {r['speed']} m/s")
    bx.set_xlabel("mean v_x / V")
    bx.set_ylabel("y / H")
    bx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "mu_of_i.png"), dpi=110)
    print(f"wrote {os.path.join(a.out, 'mu_of_i.png')}")


if __name__ == "__main__":
    main()
