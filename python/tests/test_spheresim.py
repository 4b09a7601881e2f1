"""Tests of the spheresim Python package (docs/python.md).

The bit-for-bit tests need the `spheresim` command-line binary: $SPHERESIM_BIN, else
$CARGO_TARGET_DIR/debug/spheresim, else target/debug/spheresim of this repository (what
`cargo test` builds). Without it they skip, except under CI=true, where they fail. The GPU test
needs an adapter (lavapipe in CI); likewise it skips without one unless CI=true.
"""

import csv
import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

import spheresim

REPO = pathlib.Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "") not in ("", "0", "false")


def cli_binary():
    candidates = []
    if os.environ.get("SPHERESIM_BIN"):
        candidates.append(pathlib.Path(os.environ["SPHERESIM_BIN"]))
    if os.environ.get("CARGO_TARGET_DIR"):
        candidates.append(pathlib.Path(os.environ["CARGO_TARGET_DIR"]) / "debug" / "spheresim")
    candidates.append(REPO / "target" / "debug" / "spheresim")
    for c in candidates:
        if c.is_file():
            return c
    message = "no spheresim binary (tried %s); build it with cargo build" % ", ".join(map(str, candidates))
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def small_scene(**kw):
    """Three spheres on a line, the first moving at 2 m/s towards the others."""
    x = np.array([[0.0, 0.0, 0.0], [0.25, 0.0, 0.0], [0.5, 0.0, 0.0]])
    v = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    return spheresim.Scene.from_arrays(x, v, 0.1, masses=[1.0, 2.0, 3.0], dt=1e-3, **kw)


# --- shapes and dtypes ---------------------------------------------------------------------


@pytest.mark.parametrize("precision, dtype", [("f32", np.float32), ("f64", np.float64)])
def test_state_arrays_have_the_engines_precision_and_shape(precision, dtype):
    scene = spheresim.Scene.builtin("box-gas", particles=50)
    sim = spheresim.Simulation(scene, backend="cpu", precision=precision)
    sim.step(3)
    n = len(scene)
    assert len(sim) == n and sim.step_count == 3 and sim.precision == precision
    for name in ("positions", "velocities", "angular_velocities"):
        a = getattr(sim, name)
        assert a.shape == (n, 3), name
        assert a.dtype == dtype, name
    for name in ("radii", "masses"):
        a = getattr(sim, name)
        assert a.shape == (n,) and a.dtype == dtype, name
    assert sim.time == pytest.approx(3 * scene.dt)


def test_from_arrays_keeps_the_given_values():
    scene = small_scene(gravity=(0.0, 0.0, -9.81), walls=((-1, -1, -1), (1, 1, 1)))
    assert len(scene) == 3
    assert scene.positions[1, 0] == 0.25 and scene.velocities[0, 0] == 2.0
    assert list(scene.masses) == [1.0, 2.0, 3.0] and list(scene.radii) == [0.1] * 3
    assert scene.gravity == (0.0, 0.0, -9.81)
    sim = spheresim.Simulation(scene, backend="cpu", precision="f64")
    np.testing.assert_array_equal(sim.positions, scene.positions)


def free_periodic_sphere():
    """One free sphere at 3.25 m/s along x in a unit box periodic in x and y, 1000 steps of
    1 ms, with its start arrays: past the faces at 0.5, 1.5 and 2.5 m (docs/open-systems.md)."""
    x = np.array([[0.1, 0.2, 0.0]])
    v = np.array([[3.25, 0.0, 0.0]])
    scene = spheresim.Scene.from_arrays(
        x, v, 0.05, 1.0, dt=1e-3, steps=1000, periodic=(True, True, False),
        domain=((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)))
    return spheresim.Simulation(scene, backend="cpu", precision="f64"), x, v


def test_periodic_boundaries_wrap_and_count_images():
    sim, x, v = free_periodic_sphere()
    assert sim.images.tolist() == [[0, 0, 0]]
    sim.step(1000)
    assert sim.images.tolist() == [[3, 0, 0]]
    unwrapped = sim.positions[0, 0] + sim.images[0, 0] * 1.0
    assert unwrapped == pytest.approx(0.1 + 3.25, abs=1e-9)
    assert -0.5 <= sim.positions[0, 0] < 0.5
    with pytest.raises(ValueError, match="domain"):
        spheresim.Scene.from_arrays(x, v, 0.05, 1.0, periodic=(True, False, False))
    # A new scene from this one's state goes on counting where it stopped.
    again = spheresim.Scene.from_arrays(
        sim.positions, sim.velocities, 0.05, 1.0, dt=1e-3, steps=1000,
        periodic=(True, True, False), domain=((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)),
        images=sim.images)
    more = spheresim.Simulation(again, backend="cpu", precision="f64")
    assert more.images.tolist() == [[3, 0, 0]]
    more.step(1000)
    # Unwrapped 0.1 + 2 × 3.25 = 6.6 m: seven box lengths above -0.4 m.
    assert more.images.tolist() == [[7, 0, 0]]
    with pytest.raises(ValueError, match="images"):
        spheresim.Scene.from_arrays(x, v, 0.05, 1.0, periodic=(True, True, False),
                                    domain=((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)),
                                    images=[[0.5, 0, 0]])


def test_setting_the_state_keeps_the_periodic_images():
    # The free sphere of the test above, turned back after its three crossings: the images
    # count on from 3, down to 0 where it started (they used to restart at the scene's).
    sim, _, _ = free_periodic_sphere()
    sim.step(1000)
    assert sim.images.tolist() == [[3, 0, 0]]
    sim.positions = sim.positions
    assert sim.images.tolist() == [[3, 0, 0]]
    sim.velocities = -sim.velocities
    assert sim.images.tolist() == [[3, 0, 0]]
    sim.step(1000)
    assert sim.images.tolist() == [[0, 0, 0]]
    unwrapped = sim.positions[0, 0] + sim.images[0, 0] * 1.0
    assert unwrapped == pytest.approx(0.1, abs=1e-9)


def test_setting_the_state_keeps_the_contacts_history():
    # examples/incline.toml: the rubber ball 0 rests on the 35° ramp, held by the tangential
    # spring of its friction. Setting the velocities to themselves starts the engine again;
    # the contacts keep their springs, so the balls go on as without it (to rounding; when the
    # history restarted, ball 0 slipped 0.2 mm down the ramp while its spring built up again).
    scene = spheresim.Scene.from_file(REPO / "examples" / "incline.toml")
    whole = spheresim.Simulation(scene, backend="cpu", precision="f64")
    whole.step(8000)
    parts = spheresim.Simulation(scene, backend="cpu", precision="f64")
    parts.step(4000)
    parts.velocities = parts.velocities
    parts.step(4000)
    assert np.abs(parts.positions - whole.positions).max() < 1e-9


def test_wall_forces_give_the_floor_the_weight_it_carries():
    # A 0.4 kg sphere dropped 1 cm onto the floor of a box (Hertz, restitution 0.5): after 1 s
    # at rest, the floor (the box's third wall, y min) carries its weight, straight down.
    x = np.array([[0.5, 0.06, 0.5]])
    scene = spheresim.Scene.from_arrays(
        x, None, 0.05, 0.4, dt=2e-5, steps=50000, gravity=(0.0, -9.81, 0.0),
        restitution=0.5, contact="hertz", walls=((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)),
        wall_forces=True)
    sim = spheresim.Simulation(scene, backend="cpu", precision="f64")
    assert sim.wall_forces.shape == (6, 3)
    sim.step(50000)
    f = sim.wall_forces
    assert f[2, 1] == pytest.approx(-0.4 * 9.81, rel=1e-6)
    assert np.abs(np.delete(f, 2, axis=0)).max() == 0.0
    off = spheresim.Simulation(small_scene(), backend="cpu", precision="f64")
    assert off.wall_forces.shape == (0, 3)


def test_a_material_gives_mass_from_its_density():
    x = np.array([[0.0, 0.0, 0.0]])
    scene = spheresim.Scene.from_arrays(x, None, 0.01, materials="steel")
    assert scene.masses[0] == pytest.approx(7850.0 * 4.0 / 3.0 * math.pi * 0.01**3)


def test_diagnostics_has_the_diagnostics_csv_columns():
    sim = spheresim.Simulation(small_scene(), backend="cpu", precision="f64")
    sim.step(400)
    d = sim.diagnostics()
    columns = ("step time kinetic potential_uniform potential_gravity potential_spring total px py pz "
               "lx ly lz contacts collisions dissipated kinetic_rotational").split()
    assert all(c in d for c in columns), set(columns) - set(d)
    assert d["step"] == 400 and d["collisions"] >= 2
    # Momentum of an isolated system, and the energy ledger of elastic impulses.
    assert d["px"] == pytest.approx(2.0, rel=1e-12)
    assert d["total"] + d["dissipated"] == pytest.approx(0.5 * 1.0 * 2.0**2, rel=1e-9)
    v = sim.velocities
    m = sim.masses
    assert d["kinetic"] == pytest.approx(0.5 * float((m[:, None] * v * v).sum()), rel=1e-12)


# --- errors ----------------------------------------------------------------------------------


def test_a_missing_scene_file_is_a_file_not_found_error(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(FileNotFoundError, match="cannot read scene file .*nope.toml"):
        spheresim.Scene.from_file(missing)


def test_a_bad_scene_file_names_the_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[simulation]\ndt = -1\n\n[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n")
    with pytest.raises(spheresim.SceneError) as e:
        spheresim.Scene.from_file(bad)
    assert "bad.toml" in str(e.value) and "line 1" in str(e.value) and "dt" in str(e.value), e.value


def test_a_nan_velocity_is_refused_naming_the_sphere():
    x = np.zeros((2, 3))
    x[1, 0] = 1.0
    v = np.zeros((2, 3))
    v[1, 2] = np.nan
    with pytest.raises(spheresim.SceneError, match="sphere 1: velocity must be finite"):
        spheresim.Scene.from_arrays(x, v, 0.1, masses=1.0)


def test_wrong_shapes_are_value_errors():
    with pytest.raises(ValueError, match=r"positions: expected an array of shape \(N, 3\), got shape \(4, 2\)"):
        spheresim.Scene.from_arrays(np.zeros((4, 2)), None, 0.1, masses=1.0)
    with pytest.raises(ValueError, match=r"radii: .*\(2,\), got shape \(3,\)"):
        spheresim.Scene.from_arrays(np.zeros((2, 3)), None, [0.1, 0.1, 0.1], masses=1.0)


def test_unknown_names_are_refused():
    with pytest.raises(spheresim.SceneError, match="unknown built-in scene `wallbreak`.*did you mean `wall-break`"):
        spheresim.Scene.builtin("wallbreak")
    with pytest.raises(spheresim.SceneError, match='unknown material "stel".*did you mean `steel`'):
        spheresim.Scene.from_arrays(np.zeros((1, 3)), None, 0.1, materials="stel")
    with pytest.raises(ValueError, match="backend: unknown"):
        spheresim.Simulation(small_scene(), backend="tpu")
    # The error classes: every spheresim error is a SpheresimError.
    assert issubclass(spheresim.SceneError, spheresim.SpheresimError)
    assert issubclass(spheresim.SceneError, ValueError)
    assert issubclass(spheresim.SimulationError, spheresim.SpheresimError)


def test_an_overlap_is_refused_when_the_simulation_starts():
    x = np.array([[0.0, 0.0, 0.0], [0.15, 0.0, 0.0]])
    scene = spheresim.Scene.from_arrays(x, None, 0.1, masses=1.0)
    with pytest.raises(spheresim.SceneError, match="overlap"):
        spheresim.Simulation(scene, backend="cpu")
    spheresim.Simulation(scene, backend="cpu", allow_overlap=True)


def test_set_state_is_checked_and_a_refused_state_leaves_the_simulation_as_it_was():
    sim = spheresim.Simulation(small_scene(), backend="cpu", precision="f64")
    sim.step(5)
    before = sim.positions.copy(), sim.velocities.copy()
    bad = sim.velocities
    bad[2, 1] = np.inf
    with pytest.raises(spheresim.SceneError, match="sphere 2: velocity must be finite"):
        sim.velocities = bad
    with pytest.raises(ValueError, match=r"positions: expected an array of shape \(3, 3\), got shape \(2, 3\)"):
        sim.positions = np.zeros((2, 3))
    np.testing.assert_array_equal(sim.positions, before[0])
    np.testing.assert_array_equal(sim.velocities, before[1])
    assert sim.step_count == 5


def test_set_velocities_then_step_moves_with_the_new_velocities():
    sim = spheresim.Simulation(small_scene(), backend="cpu", precision="f64")
    sim.step(5)
    collisions = sim.diagnostics()["collisions"]
    x0 = sim.positions
    v = np.zeros((3, 3))
    v[:, 1] = [1.0, -1.0, 0.5]
    sim.velocities = v
    np.testing.assert_array_equal(sim.velocities, v)
    np.testing.assert_array_equal(sim.positions, x0)
    sim.step(10)
    # Free flight (no gravity, the spheres move apart along y): x = x0 + v t exactly to rounding.
    np.testing.assert_allclose(sim.positions, x0 + v * 10 * 1e-3, rtol=0, atol=1e-12)
    d = sim.diagnostics()
    assert d["step"] == 15 and d["collisions"] == collisions


def test_a_blow_up_is_a_simulation_error():
    # Two spheres approaching at 1e30 m/s: past the magnitude guard at the first step.
    x = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    v = np.array([[1e30, 0.0, 0.0], [0.0, 0.0, 0.0]])
    sim = spheresim.Simulation(spheresim.Scene.from_arrays(x, v, 0.1, masses=1.0), backend="cpu")
    with pytest.raises(spheresim.SimulationError, match="step 1"):
        sim.step(10)


# --- bit for bit against the command line ------------------------------------------------------


def read_state_csv(path):
    """The state CSV of `spheresim run --final` (docs/output.md): positions and velocities as the
    file prints them, parsed to float64 (each number has the fewest digits that read back to
    the identical 64-bit float, so float() recovers the engine's value exactly)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["id"]) for r in rows] == list(range(len(rows)))
    x = np.array([[float(r[k]) for k in ("x", "y", "z")] for r in rows])
    v = np.array([[float(r[k]) for k in ("vx", "vy", "vz")] for r in rows])
    return x, v


def compare_with_cli(tmp_path, backend, precision, scene_name, particles, steps):
    """Contract: the Python binding steps the same engine as `spheresim run`. For the same
    built-in scene, backend and precision, `Simulation.step` (here in uneven chunks) ends in the
    same state as the CLI's run, bit for bit: every position and velocity of the final CSV
    equals the Python array's value widened to float64. Both runs are deterministic (the CPU
    backend's order of operations is fixed; on one GPU adapter the shaders run the same
    operations in the same order), and the CLI's summaries and checks only read the state."""
    final = tmp_path / "final.csv"
    cmd = [str(cli_binary()), "run", scene_name, "--particles", str(particles), "--steps", str(steps),
           "--backend", backend, "--precision", precision, "--final", str(final), "-q"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    x_cli, v_cli = read_state_csv(final)

    sim = spheresim.Simulation(spheresim.Scene.builtin(scene_name, particles=particles),
                               backend=backend, precision=precision)
    first = steps // 3
    sim.step(first)
    sim.diagnostics()  # reads only
    sim.step(steps - first)
    x, v = sim.positions, sim.velocities
    assert x.dtype == (np.float32 if precision == "f32" else np.float64)
    assert x.shape == x_cli.shape
    # Exact equality, element by element; the run has to have moved things for this to mean much.
    assert np.array_equal(x.astype(np.float64), x_cli), np.abs(x - x_cli).max()
    assert np.array_equal(v.astype(np.float64), v_cli), np.abs(v - v_cli).max()
    assert sim.diagnostics()["collisions"] > 0


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_cpu_state_is_bit_for_bit_the_clis(tmp_path, precision):
    compare_with_cli(tmp_path, "cpu", precision, "wall-break", 120, 60)


def test_gpu_state_is_bit_for_bit_the_clis(tmp_path):
    try:
        spheresim.Simulation(small_scene(), backend="gpu")
    except spheresim.SimulationError as e:
        if IN_CI:
            raise
        pytest.skip("no GPU adapter: %s" % e)
    compare_with_cli(tmp_path, "gpu", "f32", "wall-break", 120, 60)


# --- checkpoints -------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_checkpoint_and_resume_continue_bit_for_bit(tmp_path, precision):
    scene = spheresim.Scene.builtin("wall-break", particles=120)
    straight = spheresim.Simulation(scene, backend="cpu", precision=precision)
    straight.step(50)

    first = spheresim.Simulation(scene, backend="cpu", precision=precision)
    first.step(20)
    path = tmp_path / "run.ckpt"
    first.checkpoint(path)
    first.step(7)  # moves on; the file keeps step 20
    resumed = spheresim.Simulation.resume(path)
    assert resumed.step_count == 20 and resumed.backend == "cpu" and resumed.precision == precision
    assert resumed.notice is None
    resumed.step(30)
    assert np.array_equal(resumed.positions, straight.positions)
    assert np.array_equal(resumed.velocities, straight.velocities)
    assert resumed.diagnostics() == straight.diagnostics()


def test_resume_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="cannot read checkpoint"):
        spheresim.Simulation.resume(tmp_path / "none.ckpt")
    foreign = tmp_path / "foreign.ckpt"
    foreign.write_bytes(b"not a checkpoint at all")
    with pytest.raises(spheresim.CheckpointError, match="is not a spheresim checkpoint"):
        spheresim.Simulation.resume(foreign)
    sim = spheresim.Simulation(small_scene(), backend="cpu")
    with pytest.raises(spheresim.CheckpointError, match="no/such/dir"):
        sim.checkpoint(tmp_path / "no" / "such" / "dir" / "x.ckpt")


def test_the_cli_resumes_a_python_checkpoint_bit_for_bit(tmp_path):
    """Contract: `Simulation.checkpoint` writes the file format of `spheresim run --checkpoint`,
    so `spheresim run --resume FILE --steps N` continues it on the same backend and precision
    bit for bit (docs/long-runs.md); its final CSV is the state Python reaches after as many
    steps."""
    sim = spheresim.Simulation(spheresim.Scene.builtin("wall-break", particles=120), backend="cpu")
    sim.step(20)
    path = tmp_path / "py.ckpt"
    sim.checkpoint(path)
    final = tmp_path / "final.csv"
    cmd = [str(cli_binary()), "run", "--resume", str(path), "--steps", "50", "--final", str(final), "-q"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    x_cli, v_cli = read_state_csv(final)
    sim.step(30)
    assert np.array_equal(sim.positions.astype(np.float64), x_cli)
    assert np.array_equal(sim.velocities.astype(np.float64), v_cli)


# --- open systems --------------------------------------------------------------------------------

OPEN_SCENE = """
[simulation]
dt = 2e-5
steps = 6000
gravity = [0.0, -9.81, 0.0]
contact = "hertz"

[[particle]]
position = [0.05, 0.01, 0.05]
radius = 0.01
material = "rubber"
fixed = true

[[box_container]]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.3, 0.1]
material = "rubber"

[[insert]]
min = [0.0, 0.15, 0.0]
max = [0.1, 0.3, 0.1]
radius = 0.005
count = 40
every = 1000
material = "rubber"
velocity = [0.0, -1.0, 0.0]
seed = 4

[[outflow]]
point = [0.0, 0.03, 0.0]
normal = [0.0, -1.0, 0.0]
every = 1500
"""


def test_an_open_system_keeps_ids_and_resumes_bit_for_bit(tmp_path):
    """Insertion and outflow from Python: the arrays follow the sphere count, the ids stay with
    their spheres, and a checkpoint taken after passes continues bit for bit."""
    path = tmp_path / "open.toml"
    path.write_text(OPEN_SCENE)
    scene = spheresim.Scene.from_file(path)
    straight = spheresim.Simulation(scene, backend="cpu")
    straight.step(6000)
    d = straight.diagnostics()
    assert d["inserted_spheres"] + d["insertion_failures"] == 6 * 40
    assert d["removed_spheres"] > 0
    assert len(straight) == 1 + d["inserted_spheres"] - d["removed_spheres"]
    ids = straight.ids
    assert ids.dtype == np.uint64 and len(ids) == len(straight) == straight.positions.shape[0]
    assert ids[0] == 0 and np.all(np.diff(ids.astype(np.int64)) > 0)
    assert ids[-1] == d["inserted_spheres"]  # new spheres take ids 1, 2, ...; the last stays

    first = spheresim.Simulation(scene, backend="cpu")
    first.step(3500)
    ck = tmp_path / "open.ckpt"
    first.checkpoint(ck)
    resumed = spheresim.Simulation.resume(ck)
    assert np.array_equal(resumed.ids, first.ids)
    resumed.step(2500)
    assert np.array_equal(resumed.ids, straight.ids)
    assert np.array_equal(resumed.positions, straight.positions)
    assert np.array_equal(resumed.velocities, straight.velocities)
