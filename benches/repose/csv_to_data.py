#!/usr/bin/env python3
"""Writes a LIGGGHTS data file (atom_style granular) from a spheresim snapshot CSV.

    python3 csv_to_data.py SNAPSHOT.csv OUT.data --fixed-from K

Spheres with id >= K get atom type 2 (the fixed carpet of the `pile` scene: its first n
spheres move, the rest are fixed); the others type 1. Both types carry the same material.
Columns read: id, x, y, z, radius, mass (SI units). The box is the spheres' bounding box
padded by 100 diameters sideways and 40 upward: a grain that rolls off the carpet runs
on over the bare floor (at mur = 0.1 one leaves a box padded by 20 diameters in 1 s).
"""
import argparse
import csv
import math
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("out")
    ap.add_argument("--fixed-from", type=int, required=True)
    a = ap.parse_args()
    rows = []
    with open(a.csv, newline="") as f:
        for row in csv.DictReader(f):
            rows.append(row)
    if not rows:
        sys.exit(f"{a.csv}: no spheres")
    atoms = []
    for row in rows:
        i = int(row["id"])
        x, y, z = (float(row[k]) for k in ("x", "y", "z"))
        r, m = float(row["radius"]), float(row["mass"])
        density = m / (4.0 / 3.0 * math.pi * r**3)
        kind = 2 if i >= a.fixed_from else 1
        atoms.append((i + 1, kind, 2.0 * r, density, x, y, z))
    d = max(at[2] for at in atoms)
    lo = [min(at[4 + k] for at in atoms) - 100 * d for k in range(3)]
    hi = [max(at[4 + k] for at in atoms) + 100 * d for k in range(3)]
    lo[2] = -d
    hi[2] += 40 * d
    with open(a.out, "w") as f:
        f.write(f"spheresim snapshot {a.csv}\n\n{len(atoms)} atoms\n2 atom types\n\n")
        for k, ax in enumerate("xyz"):
            f.write(f"{lo[k]!r} {hi[k]!r} {ax}lo {ax}hi\n")
        f.write("\nAtoms\n\n")
        for at in atoms:
            f.write("%d %d %r %r %r %r %r\n" % at)


if __name__ == "__main__":
    main()
