"""Times REBOUND's tree gravity on a spheresim snapshot (one thread): python3 rebound_step.py
SNAPSHOT.csv THETA STEPS. The snapshot's columns are spheresim's state CSV (id,x,y,z,vx,vy,vz,
radius,mass). Settings match spheresim's `plummer` scene: G = 1, Plummer softening 0.01,
leapfrog, dt = 1/256, opening angle THETA (REBOUND's geometric criterion, cell width over
distance, on its octree). The root box is four times the largest coordinate, so no body leaves
it in a few steps (the script prints N before and after)."""
import sys, time, csv, math
import rebound
path, theta, steps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
rows = list(csv.reader(open(path)))[1:]
sim = rebound.Simulation()
sim.G = 1.0
sim.gravity = "tree"
sim.opening_angle2 = theta * theta
sim.softening = 0.01
sim.integrator = "leapfrog"
sim.dt = 1.0 / 256
rmax = max(max(abs(float(r[1])), abs(float(r[2])), abs(float(r[3]))) for r in rows)
sim.root_size = 4.0 * rmax
sim.N_root_x = sim.N_root_y = sim.N_root_z = 1
sim.boundary = "open"
for r in rows:
    sim.add(m=float(r[8]), x=float(r[1]), y=float(r[2]), z=float(r[3]), vx=float(r[4]), vy=float(r[5]), vz=float(r[6]))
n = sim.N
sim.steps(1)  # warm-up: builds the tree
t = time.perf_counter()
sim.steps(steps)
dt = time.perf_counter() - t
print(f"rebound {rebound.__version__}: N {n} -> {sim.N} after {steps+1} steps, theta {theta}, {dt/steps*1e3:.1f} ms/step, {n*steps/dt:.3e} bodies/s (whole step: tree update, gravity, leapfrog)")
