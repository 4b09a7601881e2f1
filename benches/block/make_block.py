#!/usr/bin/env python3
"""Write the initial state of the "block" benchmark scene in two forms.

The scene (after NVIDIA Warp's DEM example): an nx x ny x nz block of spheres of radius
r = 0.1 m on a cubic lattice of spacing 2r = 0.2 m (neighbours touch), each centre moved by a
uniform random offset in [0, 0.05 r) per coordinate, mass 1/64 kg each, all moving at
15 m/s along +x, the bottom layer's centres at z = r + offset above the floor z = 0.

Outputs, in --out-dir (default: this script's directory, beside block.toml):

  block.csv   spheresim state CSV (docs/output.md "State CSV"): id,x,y,z,vx,vy,vz,radius,mass,
              floats written with repr() so that they read back to the identical double;
  block.data  LIGGGHTS read_data file for atom_style granular: "Atoms" lines
              "id type diameter density x y z" (1-based ids, type 1) and a "Velocities"
              section "id vx vy vz omegax omegay omegaz". Density rho = m / ((4/3) pi r^3),
              so that LIGGGHTS' mass (4/3) pi r^3 rho is 1/64 kg. The file declares 2 atom
              types: type 2 is the material type of the floor (fix wall/gran ... type 2), so
              that the floor can get its own damping coefficient (block.in).

Sphere i (0-based) sits at lattice point (i % nx, (i // nx) % ny, i // (nx ny)): x varies
fastest, as in spheresim's [[block]]. spheresim id i is LIGGGHTS atom id i + 1.

Standard library only. The same --seed (default 42) and size give the same files on every
machine (Python's random.Random is a Mersenne Twister with a documented, stable algorithm).
"""

import argparse
import math
import os
import random
import sys

RADIUS = 0.1  # m
SPACING = 2.0 * RADIUS  # m, neighbours touch
JITTER = 0.05 * RADIUS  # m, offsets uniform in [0, JITTER) per coordinate
MASS = 1.0 / 64.0  # kg
VELOCITY = (15.0, 0.0, 0.0)  # m/s


def density():
    """kg/m^3 such that (4/3) pi r^3 rho = MASS."""
    return MASS / (4.0 / 3.0 * math.pi * RADIUS**3)


def positions(nx, ny, nz, seed):
    rng = random.Random(seed)
    out = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                x = RADIUS + i * SPACING + rng.random() * JITTER
                y = RADIUS + j * SPACING + rng.random() * JITTER
                z = RADIUS + k * SPACING + rng.random() * JITTER
                out.append((x, y, z))
    return out


def write_atomic(path, text_chunks):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="\n") as f:
        for chunk in text_chunks:
            f.write(chunk)
    os.replace(tmp, path)


def csv_rows(pos):
    vx, vy, vz = VELOCITY
    yield "id,x,y,z,vx,vy,vz,radius,mass\n"
    for n, (x, y, z) in enumerate(pos):
        yield "%d,%r,%r,%r,%r,%r,%r,%r,%r\n" % (n, x, y, z, vx, vy, vz, RADIUS, MASS)


def data_lines(pos, nx, ny, nz, seed):
    rho = density()
    vx, vy, vz = VELOCITY
    # A box that holds the block for the 64 steps (1/60 s: 0.25 m of drift along +x) with
    # room to spare; boundary f f f in block.in, so atoms that leave it would be lost
    # (the thermo "atoms" column shows that none are).
    xhi = nx * SPACING + 2.0
    yhi = ny * SPACING + 1.0
    zhi = nz * SPACING + 1.0
    yield "LIGGGHTS data file: spheresim benches/block, %dx%dx%d block, seed %d\n\n" % (
        nx, ny, nz, seed)
    yield "%d atoms\n2 atom types\n\n" % len(pos)
    yield "%r %r xlo xhi\n%r %r ylo yhi\n%r %r zlo zhi\n\n" % (
        -1.0, xhi, -1.0, yhi, -0.5, zhi)
    yield "Atoms\n\n"
    for n, (x, y, z) in enumerate(pos):
        yield "%d 1 %r %r %r %r %r\n" % (n + 1, 2.0 * RADIUS, rho, x, y, z)
    yield "\nVelocities\n\n"
    for n in range(len(pos)):
        yield "%d %r %r %r 0.0 0.0 0.0\n" % (n + 1, vx, vy, vz)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nx", type=int, default=32, help="spheres along x (default 32)")
    p.add_argument("--ny", type=int, default=64, help="spheres along y (default 64)")
    p.add_argument("--nz", type=int, default=32, help="spheres along z (default 32)")
    p.add_argument("--seed", type=int, default=42, help="seed of the offsets (default 42)")
    p.add_argument("--out-dir", default=here,
                   help="directory for block.csv and block.data (default: %(default)s)")
    a = p.parse_args(argv)
    if min(a.nx, a.ny, a.nz) < 1:
        p.error("--nx, --ny and --nz must be at least 1")
    os.makedirs(a.out_dir, exist_ok=True)
    pos = positions(a.nx, a.ny, a.nz, a.seed)
    csv_path = os.path.join(a.out_dir, "block.csv")
    data_path = os.path.join(a.out_dir, "block.data")
    write_atomic(csv_path, csv_rows(pos))
    write_atomic(data_path, data_lines(pos, a.nx, a.ny, a.nz, a.seed))
    print("wrote %d spheres (%dx%dx%d, seed %d): %s, %s (density %r kg/m^3)"
          % (len(pos), a.nx, a.ny, a.nz, a.seed, csv_path, data_path, density()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
