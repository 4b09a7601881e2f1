"""REBOUND's tree acceleration error against a direct sum: python3 rebound_error.py SNAPSHOT.csv
THETA. Gravity is evaluated once at the snapshot's positions (a leapfrog step with dt = 0), then
every 10th body's acceleration is compared with the softened direct sum over all bodies (numpy),
as `spheresim validate tree-error` does for spheresim's tree."""
import sys, csv
import numpy as np
import rebound
path, theta = sys.argv[1], float(sys.argv[2])
d = np.loadtxt(path, delimiter=",", skiprows=1)
x, m = d[:, 1:4], d[:, 8]
sim = rebound.Simulation()
sim.G = 1.0
sim.gravity = "tree"
sim.opening_angle2 = theta * theta
sim.softening = 0.01
sim.integrator = "leapfrog"
sim.dt = 0.0  # gravity at the given positions: drifts of zero length
sim.root_size = 4.0 * np.abs(x).max()
sim.N_root_x = sim.N_root_y = sim.N_root_z = 1
sim.boundary = "open"
for k in range(len(m)):
    sim.add(m=m[k], x=x[k, 0], y=x[k, 1], z=x[k, 2])
sim.steps(1)
a = np.array([[p.ax, p.ay, p.az] for p in sim.particles])
# rebound may reorder particles in its tree: match by position
xr = np.array([[p.x, p.y, p.z] for p in sim.particles])
assert np.allclose(xr, x), "order changed"
sample = np.arange(0, len(m), 10)
eps2 = 1e-4
err = []
for s0 in range(0, len(sample), 200):
    idx = sample[s0:s0 + 200]
    dx = x[None, :, :] - x[idx, None, :]
    r2 = (dx ** 2).sum(-1) + eps2
    inv3 = r2 ** -1.5
    ad = (dx * (m[None, :, None] * inv3[:, :, None])).sum(1)
    err.extend(np.linalg.norm(a[idx] - ad, axis=1) / np.linalg.norm(ad, axis=1))
err = np.sort(np.array(err))
print(f"rebound theta {theta}: median {err[len(err)//2]:.2e} p99 {err[len(err)*99//100]:.2e} max {err[-1]:.2e} over {len(err)} bodies")
