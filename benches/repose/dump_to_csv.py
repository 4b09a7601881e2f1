#!/usr/bin/env python3
"""Writes a spheresim snapshot CSV (id,x,y,z,vx,vy,vz,radius,mass) from the last frame of a
LIGGGHTS custom dump with the columns `id type x y z vx vy vz radius mass`, so that
`spheresim repose` can read it.

    python3 dump_to_csv.py DUMP OUT.csv
"""
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().splitlines()
    starts = [k for k, l in enumerate(lines) if l.startswith("ITEM: ATOMS")]
    if not starts:
        sys.exit(f"{sys.argv[1]}: no ITEM: ATOMS frame")
    head = lines[starts[-1]].split()[2:]
    col = {name: k for k, name in enumerate(head)}
    need = ["id", "x", "y", "z", "vx", "vy", "vz", "radius", "mass"]
    missing = [c for c in need if c not in col]
    if missing:
        sys.exit(f"{sys.argv[1]}: dump lacks columns {missing}")
    rows = []
    for l in lines[starts[-1] + 1:]:
        if l.startswith("ITEM:"):
            break
        v = l.split()
        rows.append([v[col[c]] for c in need])
    rows.sort(key=lambda r: int(r[0]))
    with open(sys.argv[2], "w") as f:
        f.write(",".join(need) + "\n")
        for r in rows:
            r[0] = str(int(r[0]) - 1)
            f.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
