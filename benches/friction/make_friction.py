#!/usr/bin/env python3
"""Write the initial state of the "friction" benchmark scene in two forms.

The scene (benches/friction/README.md): an nx x ny x nz column of glass-like beads of radius
r = 5 mm on a cubic lattice of spacing 2r (neighbours touch), each centre moved by a uniform
random offset in [0, 0.005 r) per coordinate, at rest, the bottom layer's centres at
z = r + offset above the floor z = 0, inside a box whose side walls touch the outer spheres.
Gravity compresses the column and the cubic lattice buckles into a denser packing: every
sphere has contacts from the first step on.

Outputs, in --out-dir (default: this script's directory):

  friction.csv   spheresim state CSV (docs/output.md "State CSV"): id,x,y,z,vx,vy,vz,radius,
                 mass, floats written with repr() so that they read back to the identical double;
  friction.data  LIGGGHTS read_data file for atom_style granular: "Atoms" lines
                 "id type diameter density x y z" (1-based ids, type 1) and a "Velocities"
                 section. Type 2 is the walls' material type (fix wall/gran ... type 2).
  friction.toml  the spheresim scene: its [simulation] and [[material]] and this size's box
                 (the LIGGGHTS input takes the box as -var lx, -var ly).

Sphere i (0-based) sits at lattice point (i % nx, (i // nx) % ny, i // (nx ny)); spheresim id
i is LIGGGHTS atom id i + 1. Standard library only; the same --seed gives the same files on
every machine.
"""

import argparse
import math
import os
import random
import sys

RADIUS = 0.005  # m
SPACING = 2.0 * RADIUS  # m, neighbours touch
JITTER = 0.005 * RADIUS  # m, offsets uniform in [0, JITTER) per coordinate
DENSITY = 2500.0  # kg/m^3
MASS = DENSITY * 4.0 / 3.0 * math.pi * RADIUS**3  # kg


def box(nx, ny, nz):
    """The container: side walls touching the lattice, the lid far above (m)."""
    return (nx * SPACING, ny * SPACING, 2.0 * nz * SPACING)


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


def write_atomic(path, chunks):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="\n") as f:
        for c in chunks:
            f.write(c)
    os.replace(tmp, path)


def csv_rows(pos):
    yield "id,x,y,z,vx,vy,vz,radius,mass\n"
    for n, (x, y, z) in enumerate(pos):
        yield "%d,%r,%r,%r,0.0,0.0,0.0,%r,%r\n" % (n, x, y, z, RADIUS, MASS)


def data_lines(pos, nx, ny, nz, seed):
    lx, ly, lz = box(nx, ny, nz)
    yield "LIGGGHTS data: friction benchmark, %dx%dx%d, seed %d\n\n" % (nx, ny, nz, seed)
    yield "%d atoms\n2 atom types\n\n" % len(pos)
    # The simulation box holds the column with a margin (boundary f f f; gravity only
    # compresses it). Not up to spheresim's lid: LIGGGHTS splits the box between MPI
    # processes, and the empty upper half would leave one of two processes idle.
    top = nz * SPACING + 2.0 * RADIUS
    yield "-0.01 %r xlo xhi\n-0.01 %r ylo yhi\n-0.01 %r zlo zhi\n\n" % (lx + 0.01, ly + 0.01, top)
    yield "Atoms\n\n"
    for n, (x, y, z) in enumerate(pos):
        yield "%d 1 %r %r %r %r %r\n" % (n + 1, 2.0 * RADIUS, DENSITY, x, y, z)
    yield "\nVelocities\n\n"
    for n in range(len(pos)):
        yield "%d 0 0 0 0 0 0\n" % (n + 1)


TOML = """# The "friction" benchmark scene (benches/friction/README.md), written by make_friction.py for
# a %(nx)dx%(ny)dx%(nz)d column: glass-like beads (r = 5 mm, 2500 kg/m^3, E = 10 MPa, nu = 0.3,
# e = 0.5, mu = 0.5), Hertz normal force with tangential history and rotation, under gravity in
# a box; dt = 50 us. benches/friction/friction.in is the same scene for LIGGGHTS 3.8.

[simulation]
dt = 5e-5                        # s
steps = %(steps)d
gravity = [0.0, 0.0, -9.81]      # m/s^2
contact = "hertz"
damping = "%(damping)s"
rotation = true

[[material]]
name = "bead"
restitution = 0.5
density = 2500.0                 # kg/m^3 (the CSV gives the mass it implies)
youngs_modulus = 1e7             # Pa
poisson_ratio = 0.3
friction = 0.5

[[particles_file]]
path = "friction.csv"            # relative to this file's directory
material = "bead"

[[box_container]]                # side walls touch the lattice; the lid is far above
min = [0.0, 0.0, 0.0]
max = [%(lx)r, %(ly)r, %(lz)r]
material = "bead"
"""


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nx", type=int, default=32)
    p.add_argument("--ny", type=int, default=32)
    p.add_argument("--nz", type=int, default=64)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--damping", choices=["flores", "hunt-crossley"], default="hunt-crossley")
    p.add_argument("--out-dir", default=os.path.dirname(os.path.abspath(__file__)))
    a = p.parse_args()
    if min(a.nx, a.ny, a.nz) < 1:
        sys.exit("error: --nx, --ny and --nz must be at least 1")
    os.makedirs(a.out_dir, exist_ok=True)
    pos = positions(a.nx, a.ny, a.nz, a.seed)
    csv = os.path.join(a.out_dir, "friction.csv")
    data = os.path.join(a.out_dir, "friction.data")
    write_atomic(csv, csv_rows(pos))
    write_atomic(data, data_lines(pos, a.nx, a.ny, a.nz, a.seed))
    lx, ly, lz = box(a.nx, a.ny, a.nz)
    toml = os.path.join(a.out_dir, "friction.toml")
    write_atomic(toml, [TOML % dict(nx=a.nx, ny=a.ny, nz=a.nz, steps=a.steps, damping=a.damping,
                                    lx=lx, ly=ly, lz=lz)])
    print("wrote %d spheres (%dx%dx%d, seed %d): %s, %s, %s (box %r x %r x %r m)"
          % (len(pos), a.nx, a.ny, a.nz, a.seed, csv, data, toml, lx, ly, lz))


if __name__ == "__main__":
    main()
