//! The `spheresim` Python module: scenes from files, built-ins or numpy arrays, a simulation
//! stepped without the GIL, its state as numpy arrays, diagnostics and checkpoints
//! (docs/python.md). SI units throughout.

mod adapter;

use glam::DVec3;
use numpy::ndarray::{Array1, Array2};
use numpy::{AllowTypeChange, IntoPyArray, PyArrayLikeDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use spheresim::scene::{ContactModel, Material, Origins, Sphere, Surface, sphere_volume};
use spheresim::{Backend, Diagnostics, Precision, Scene, SceneError, SimError, Snapshot};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

// ---------------------------------------------------------------------------------------------
// Exceptions

/// The module's exception classes, defined in Python so that they can have two bases
/// (`SceneError` is also a `ValueError`, `SimulationError` a `RuntimeError`).
const EXCEPTIONS: &std::ffi::CStr = c"
class SpheresimError(Exception):
    '''Base class of every error spheresim raises itself.'''

class SceneError(SpheresimError, ValueError):
    '''A scene, or a state set on a simulation, failed the scene checks (the message names the
    item and the reason), or a built-in scene name is unknown.'''

class SimulationError(SpheresimError, RuntimeError):
    '''A simulation could not start (no GPU adapter, a backend that cannot take the scene) or
    stopped (a non-finite or runaway state).'''

class CheckpointError(SpheresimError):
    '''A checkpoint file is foreign, of another format version, truncated, corrupt, cannot be
    resumed, or cannot be written.'''
";

const EXCEPTION_NAMES: [&str; 4] = [
    "SpheresimError",
    "SceneError",
    "SimulationError",
    "CheckpointError",
];

/// The classes of [`EXCEPTIONS`], in the order of [`EXCEPTION_NAMES`].
static EXCEPTION_TYPES: PyOnceLock<Vec<Py<PyType>>> = PyOnceLock::new();

/// An exception of the module's class `name` (one of [`EXCEPTION_NAMES`]) with `message`.
fn error(py: Python<'_>, name: &str, message: String) -> PyErr {
    let i = EXCEPTION_NAMES
        .iter()
        .position(|n| *n == name)
        .expect("a known exception name");
    match EXCEPTION_TYPES.get(py) {
        Some(types) => PyErr::from_type(types[i].bind(py).clone(), message),
        None => pyo3::exceptions::PyRuntimeError::new_err(message),
    }
}

fn scene_error(py: Python<'_>, e: SceneError) -> PyErr {
    match e {
        // An unreadable file is an OSError, as Python's own open() raises.
        SceneError::Io { ref error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        SceneError::Io { .. } => PyOSError::new_err(e.to_string()),
        e => error(py, "SceneError", e.to_string()),
    }
}

fn sim_error(py: Python<'_>, e: SimError) -> PyErr {
    error(py, "SimulationError", e.to_string())
}

fn failure(py: Python<'_>, e: adapter::Failure, path: &std::path::Path) -> PyErr {
    use spheresim::checkpoint::CheckpointError as C;
    match e {
        adapter::Failure::Sim(e) => sim_error(py, e),
        adapter::Failure::Checkpoint(e @ C::Read { .. }) if !path.exists() => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        adapter::Failure::Checkpoint(e @ C::Read { .. }) => PyOSError::new_err(e.to_string()),
        adapter::Failure::Checkpoint(e) => error(py, "CheckpointError", e.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Arrays

/// `values` as an `(N, 3)` array of the engine's precision (`f32`: float32, else float64).
/// Values a float32 engine holds are f32 values widened to f64, so narrowing them is exact.
fn vec3_array<'py>(py: Python<'py>, values: &[DVec3], f32: bool) -> Bound<'py, PyAny> {
    let n = values.len();
    if f32 {
        let flat = values
            .iter()
            .flat_map(|v| [v.x as f32, v.y as f32, v.z as f32])
            .collect();
        let a = Array2::from_shape_vec((n, 3), flat).expect("3 values a row");
        a.into_pyarray(py).into_any()
    } else {
        let flat = values.iter().flat_map(|v| v.to_array()).collect();
        let a = Array2::from_shape_vec((n, 3), flat).expect("3 values a row");
        a.into_pyarray(py).into_any()
    }
}

/// `values` as an `(N,)` array of the engine's precision.
fn scalar_array<'py>(py: Python<'py>, values: &[f64], f32: bool) -> Bound<'py, PyAny> {
    if f32 {
        let a: Array1<f32> = values.iter().map(|&v| v as f32).collect();
        a.into_pyarray(py).into_any()
    } else {
        Array1::from(values.to_vec()).into_pyarray(py).into_any()
    }
}

/// Reads an array-like of shape `(n, 3)` (any numeric dtype; converted to float64).
///
/// # Errors
/// `ValueError` naming `what` when the shape is not `(n, 3)`; `TypeError` when numpy cannot
/// make a float array of it.
fn read_vec3(what: &str, value: &Bound<'_, PyAny>, n: Option<usize>) -> PyResult<Vec<DVec3>> {
    let a: PyArrayLikeDyn<'_, f64, AllowTypeChange> = value.extract()?;
    let shape = a.shape().to_vec();
    if shape.len() != 2 || shape[1] != 3 || n.is_some_and(|n| shape[0] != n) {
        let want = n.map_or("(N, 3)".to_string(), |n| format!("({n}, 3)"));
        return Err(PyValueError::new_err(format!(
            "{what}: expected an array of shape {want}, got shape {}",
            shape_text(&shape)
        )));
    }
    let a = a.as_array();
    Ok(a.rows()
        .into_iter()
        .map(|r| DVec3::new(r[0], r[1], r[2]))
        .collect())
}

/// Reads an array-like of shape `(n,)`, or a scalar given to all `n` spheres.
fn read_scalars(what: &str, value: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<f64>> {
    let a: PyArrayLikeDyn<'_, f64, AllowTypeChange> = value.extract()?;
    let shape = a.shape().to_vec();
    let a = a.as_array();
    match shape.as_slice() {
        [] => Ok(vec![a.iter().copied().next().unwrap_or(f64::NAN); n]),
        [m] if *m == n => Ok(a.iter().copied().collect()),
        _ => Err(PyValueError::new_err(format!(
            "{what}: expected a number or an array of shape ({n},), got shape {}",
            shape_text(&shape)
        ))),
    }
}

fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Scene

/// A vector (x, y, z) as Python passes it.
type Vec3 = (f64, f64, f64);

/// A scene: spheres, walls, materials and simulation settings, in SI units (m, kg, s).
///
/// Build one with `Scene.from_file`, `Scene.builtin` or `Scene.from_arrays`; `Simulation(scene)`
/// checks it and steps a copy.
#[pyclass(name = "Scene", module = "spheresim")]
#[derive(Clone)]
struct PyScene {
    scene: Scene,
    /// Where each item of a scene file was defined, for check errors that name file lines.
    origins: Option<Origins>,
}

#[pymethods]
impl PyScene {
    /// Reads a TOML scene file (docs/scene-files.md). Its values are checked as it loads;
    /// overlaps are checked when a `Simulation` starts.
    ///
    /// Raises `FileNotFoundError`/`OSError` when the file cannot be read, `SceneError` naming the
    /// file, table and line of each problem otherwise.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let (scene, origins) = adapter::load(&path).map_err(|e| scene_error(py, e))?;
        Ok(Self {
            scene,
            origins: Some(origins),
        })
    }

    /// A built-in scene (`spheresim scenes` lists them), with `particles` spheres (default: the
    /// scene's own count; `wall-break` matches it to within a few per cent).
    ///
    /// Raises `SceneError` for an unknown name or a count the scene cannot take.
    #[staticmethod]
    #[pyo3(signature = (name, particles = None))]
    fn builtin(py: Python<'_>, name: &str, particles: Option<usize>) -> PyResult<Self> {
        let scene = adapter::builtin(name, particles).map_err(|e| scene_error(py, e))?;
        Ok(Self {
            scene,
            origins: None,
        })
    }

    /// A scene from arrays: `positions` (N, 3) in m, `velocities` (N, 3) in m/s (None: at
    /// rest), `radii` (N,) in m, `masses` (N,) in kg (None: each sphere's material density
    /// times its volume), `materials` (a preset name for all spheres, or one name or None per
    /// sphere: steel, glass, wood, ivory, rubber), time step `dt` in s, `steps` (what
    /// `spheresim run` would take), uniform `gravity` in m/s², `restitution` of spheres and
    /// walls without a material, `contact` law (impulse, spring-dashpot, hertz), spring
    /// `stiffness` in N/m, Newton's constant `g_const` in m³ kg⁻¹ s⁻² and `softening` in m for
    /// mutual gravity, `walls`, the (min, max) corners of a box of six walls in m, and
    /// `periodic`, three booleans (x, y, z) for periodic boundaries over the box `domain`, its
    /// (min, max) corners in m (docs/open-systems.md), with `images` (N, 3) integers, the box
    /// lengths each sphere has already crossed (None: zeros), and `wall_forces`, whether each
    /// wall's force is recorded (`Simulation.wall_forces`; soft laws).
    ///
    /// Raises `ValueError` for a wrong shape or an unknown contact law, `SceneError` for a value
    /// that fails the scene checks (a NaN velocity, a radius ≤ 0, …) or an unknown material.
    #[staticmethod]
    #[pyo3(signature = (
        positions, velocities, radii, masses = None, materials = None, *, dt = 1e-4,
        steps = 1000, gravity = (0.0, 0.0, 0.0), restitution = 1.0, contact = "impulse",
        stiffness = 1e4, g_const = 0.0, softening = 0.0, walls = None, periodic = None,
        domain = None, images = None, wall_forces = false, name = "arrays"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn from_arrays(
        py: Python<'_>,
        positions: &Bound<'_, PyAny>,
        velocities: Option<&Bound<'_, PyAny>>,
        radii: &Bound<'_, PyAny>,
        masses: Option<&Bound<'_, PyAny>>,
        materials: Option<&Bound<'_, PyAny>>,
        dt: f64,
        steps: u64,
        gravity: Vec3,
        restitution: f64,
        contact: &str,
        stiffness: f64,
        g_const: f64,
        softening: f64,
        walls: Option<(Vec3, Vec3)>,
        periodic: Option<(bool, bool, bool)>,
        domain: Option<(Vec3, Vec3)>,
        images: Option<&Bound<'_, PyAny>>,
        wall_forces: bool,
        name: &str,
    ) -> PyResult<Self> {
        let x = read_vec3("positions", positions, None)?;
        let n = x.len();
        let v = match velocities {
            Some(v) if !v.is_none() => read_vec3("velocities", v, Some(n))?,
            _ => vec![DVec3::ZERO; n],
        };
        let r = read_scalars("radii", radii, n)?;
        let image = match images {
            Some(a) if !a.is_none() => read_vec3("images", a, Some(n))?
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let c = x.to_array();
                    if c.iter()
                        .all(|c| c.fract() == 0.0 && c.abs() <= i32::MAX as f64)
                    {
                        Ok(c.map(|c| c as i32))
                    } else {
                        Err(PyValueError::new_err(format!(
                            "images: row {i} is {c:?}, expected three integers"
                        )))
                    }
                })
                .collect::<PyResult<Vec<[i32; 3]>>>()?,
            _ => vec![[0; 3]; n],
        };
        let m = match masses {
            Some(m) if !m.is_none() => Some(read_scalars("masses", m, n)?),
            _ => None,
        };
        let names: Vec<Option<String>> = match materials {
            None => vec![None; n],
            Some(m) if m.is_none() => vec![None; n],
            Some(m) => match m.extract::<String>() {
                Ok(s) => vec![Some(s); n],
                Err(_) => {
                    let list: Vec<Option<String>> = m.extract()?;
                    if list.len() != n {
                        return Err(PyValueError::new_err(format!(
                            "materials: expected one name (or None) per sphere, {n} in all, got {}",
                            list.len()
                        )));
                    }
                    list
                }
            },
        };
        let mut scene = Scene {
            name: name.to_string(),
            ..Default::default()
        };
        let sim = &mut scene.sim;
        sim.dt = dt;
        sim.steps = steps;
        sim.gravity = DVec3::from(gravity);
        sim.restitution = restitution;
        sim.contact = match contact {
            "impulse" => ContactModel::Impulse,
            "spring-dashpot" => ContactModel::SpringDashpot,
            "hertz" => ContactModel::Hertz,
            other => {
                return Err(PyValueError::new_err(format!(
                    "contact: unknown law {other:?}; expected impulse, spring-dashpot or hertz"
                )));
            }
        };
        sim.stiffness = stiffness;
        sim.g_const = g_const;
        sim.softening = softening;
        sim.wall_forces = wall_forces;
        match (periodic, domain) {
            (Some((x, y, z)), Some((lo, hi))) => {
                sim.periodic =
                    spheresim::scene::Periodic::new([x, y, z], DVec3::from(lo), DVec3::from(hi))
            }
            (Some(_), None) => {
                return Err(PyValueError::new_err(
                    "periodic: the periodic axes need the box they repeat: pass domain=(min, max)",
                ));
            }
            (None, Some(_)) => {
                return Err(PyValueError::new_err(
                    "domain: the periodic box is read only with periodic=(x, y, z)",
                ));
            }
            (None, None) => {}
        }
        let presets = Material::presets();
        for (i, name) in names.iter().enumerate() {
            let material = match name {
                None => None,
                Some(name) => Some(match scene.materials.iter().position(|m| &m.name == name) {
                    Some(k) => k,
                    None => {
                        let Some(p) = presets.iter().find(|p| &p.name == name) else {
                            let known: Vec<&str> =
                                presets.iter().map(|p| p.name.as_str()).collect();
                            return Err(error(
                                py,
                                "SceneError",
                                format!(
                                    "scene {}: sphere {i}: unknown material {name:?}; the presets are {}{}",
                                    scene.name,
                                    known.join(", "),
                                    spheresim::scene::check::suggestion(
                                        name,
                                        known.iter().copied()
                                    )
                                ),
                            ));
                        };
                        scene.materials.push(p.clone());
                        scene.materials.len() - 1
                    }
                }),
            };
            let mat = material.map(|k| &scene.materials[k]);
            let mass = match (&m, mat) {
                (Some(m), _) => m[i],
                (None, Some(mat)) => mat.density * sphere_volume(r[i]),
                (None, None) => {
                    return Err(error(
                        py,
                        "SceneError",
                        format!(
                            "scene {}: sphere {i} has no mass: pass masses, or a material whose \
                             density gives it",
                            scene.name
                        ),
                    ));
                }
            };
            scene.spheres.push(Sphere {
                position: x[i],
                velocity: v[i],
                angular_velocity: DVec3::ZERO,
                radius: r[i],
                mass,
                restitution: mat.map_or(restitution, |m| m.restitution),
                material,
                fixed: false,
                surface: mat.map_or(scene.sim.surface, Surface::of),
                image: image[i],
            });
        }
        if let Some((lo, hi)) = walls {
            let surface = scene.sim.surface;
            scene.planes.extend(Scene::box_planes(
                DVec3::from(lo),
                DVec3::from(hi),
                restitution,
                surface,
            ));
        }
        // The value checks now, so that a bad array fails here; overlaps when it starts.
        adapter::check(&scene, None, true).map_err(|e| scene_error(py, e))?;
        Ok(Self {
            scene,
            origins: None,
        })
    }

    /// The scene's name (built-in name, file stem, or `name` of `from_arrays`).
    #[getter]
    fn name(&self) -> &str {
        &self.scene.name
    }

    /// Time step, s.
    #[getter]
    fn dt(&self) -> f64 {
        self.scene.sim.dt
    }

    /// Sets the time step, s (checked when a `Simulation` starts).
    #[setter]
    fn set_dt(&mut self, dt: f64) {
        self.scene.sim.dt = dt;
    }

    /// The scene's own step count: what `spheresim run` takes without `--steps`.
    #[getter]
    fn steps(&self) -> u64 {
        self.scene.sim.steps
    }

    /// Sets the scene's own step count.
    #[setter]
    fn set_steps(&mut self, steps: u64) {
        self.scene.sim.steps = steps;
    }

    /// Uniform gravitational field (x, y, z), m/s².
    #[getter]
    fn gravity(&self) -> (f64, f64, f64) {
        self.scene.sim.gravity.into()
    }

    /// Centres as given, (N, 3) float64, m.
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let x: Vec<DVec3> = self.scene.spheres.iter().map(|s| s.position).collect();
        vec3_array(py, &x, false)
    }

    /// Velocities as given, (N, 3) float64, m/s.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v: Vec<DVec3> = self.scene.spheres.iter().map(|s| s.velocity).collect();
        vec3_array(py, &v, false)
    }

    /// Radii, (N,) float64, m.
    #[getter]
    fn radii<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let r: Vec<f64> = self.scene.spheres.iter().map(|s| s.radius).collect();
        scalar_array(py, &r, false)
    }

    /// Masses, (N,) float64, kg (`inf` for fixed spheres given without a mass).
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m: Vec<f64> = self.scene.spheres.iter().map(|s| s.mass).collect();
        scalar_array(py, &m, false)
    }

    /// Number of spheres.
    fn __len__(&self) -> usize {
        self.scene.spheres.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Scene({:?}: {} spheres, {} planes, dt = {} s)",
            self.scene.name,
            self.scene.spheres.len(),
            self.scene.planes.len(),
            self.scene.sim.dt
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Simulation

/// What a simulation holds besides the engine.
struct State {
    sim: spheresim::Simulation,
    /// The scene it runs: the starting one, or the state last set on it.
    scene: Scene,
    /// Diagnostics at step 0 (for checkpoints).
    initial: Diagnostics,
    allow_overlap: bool,
    /// The last snapshot, read again (`snapshot_into`, into the same vectors) after a step or
    /// set: reading the state arrays allocates no snapshot per call.
    snapshot: Snapshot,
    /// Whether `snapshot` is the current state.
    fresh: bool,
    notice: Option<String>,
}

impl State {
    fn snapshot(&mut self) -> &Snapshot {
        if !self.fresh {
            self.sim.snapshot_into(&mut self.snapshot);
            self.fresh = true;
        }
        &self.snapshot
    }

    fn f32(&self) -> bool {
        self.sim.precision() == Precision::F32
    }

    /// The scene as it runs now: with outflows or insertions, the one the last pass left.
    fn current_scene(&self) -> &Scene {
        self.sim.open_scene().unwrap_or(&self.scene)
    }

    /// Continues from the current scene with the state now (`Sphere::take_state`: the periodic
    /// images keep counting where they were), changed by `change(sphere, index)`, after the
    /// checks every scene gets.
    fn restart(&mut self, py: Python<'_>, change: impl Fn(&mut Sphere, usize)) -> PyResult<()> {
        let snap = self.snapshot().clone();
        let mut scene = self.current_scene().clone();
        for (i, s) in scene.spheres.iter_mut().enumerate() {
            s.take_state(&snap, i);
            change(s, i);
        }
        adapter::check(&scene, None, self.allow_overlap).map_err(|e| scene_error(py, e))?;
        self.sim = adapter::restart(&mut self.sim, &scene).map_err(|e| sim_error(py, e))?;
        self.scene = scene;
        self.fresh = false;
        Ok(())
    }
}

/// A running simulation of a scene on one backend ("cpu", "gpu", or "event") and precision.
///
/// The state arrays (`positions`, `velocities`, `angular_velocities`, `radii`, `masses`) are
/// numpy arrays of the engine's precision: float32 for "f32", float64 for "f64", in input order.
#[pyclass(name = "Simulation", module = "spheresim")]
struct PySimulation {
    state: Mutex<State>,
}

impl PySimulation {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic inside the engine leaves the lock poisoned; the state is then the engine's
        // last, which reads fine.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn parse_backend(s: &str) -> PyResult<Backend> {
    Ok(match s {
        "auto" => Backend::Auto,
        "gpu" => Backend::Gpu,
        "cpu" => Backend::Cpu,
        "event" => Backend::Event,
        other => {
            return Err(PyValueError::new_err(format!(
                "backend: unknown {other:?}; expected auto, gpu, cpu or event"
            )));
        }
    })
}

fn parse_precision(s: &str) -> PyResult<Precision> {
    Ok(match s {
        "f32" => Precision::F32,
        "f64" => Precision::F64,
        other => {
            return Err(PyValueError::new_err(format!(
                "precision: unknown {other:?}; expected f32 or f64"
            )));
        }
    })
}

fn precision_name(p: Precision) -> &'static str {
    match p {
        Precision::F32 => "f32",
        Precision::F64 => "f64",
    }
}

#[pymethods]
impl PySimulation {
    /// Checks `scene` and sets it up on `backend`: "auto" (the GPU when a hardware adapter
    /// opens, else the CPU, with a `notice`), "gpu" (wgpu, f32 only), "cpu" (the reference
    /// backend), or "event" (the exact event-driven solver, f64); `precision` "f32" or "f64"
    /// (CPU). `allow_overlap` accepts initial overlaps deeper than 1 % of the smaller radius.
    ///
    /// Raises `SceneError` when the scene fails its checks, `SimulationError` when the backend
    /// cannot run it (no GPU adapter, f64 on the GPU, …), `ValueError` for an unknown name.
    #[new]
    #[pyo3(signature = (scene, backend = "auto", precision = "f32", *, allow_overlap = false))]
    fn new(
        py: Python<'_>,
        scene: &PyScene,
        backend: &str,
        precision: &str,
        allow_overlap: bool,
    ) -> PyResult<Self> {
        let (backend, precision) = (parse_backend(backend)?, parse_precision(precision)?);
        let scene = scene.clone();
        adapter::check(&scene.scene, scene.origins.as_ref(), allow_overlap)
            .map_err(|e| scene_error(py, e))?;
        let mut sim = py
            .detach(|| adapter::start(&scene.scene, backend, precision))
            .map_err(|e| sim_error(py, e))?;
        let initial = sim.diagnostics();
        let notice = sim.notice().map(str::to_string);
        Ok(Self {
            state: Mutex::new(State {
                sim,
                scene: scene.scene,
                initial,
                allow_overlap,
                snapshot: Snapshot::default(),
                fresh: false,
                notice,
            }),
        })
    }

    /// Advances `n` steps of `dt` (default 1), with the GIL released: other Python threads run
    /// meanwhile.
    ///
    /// Raises `SimulationError` when the state becomes non-finite or blows up (the message
    /// names the step, the sphere and the likely cause); the state is then the one it stopped in.
    #[pyo3(signature = (n = 1))]
    fn step(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        let result = py.detach(|| {
            let mut st = self.lock();
            st.fresh = false;
            st.sim.step(n)
        });
        result.map_err(|e| sim_error(py, e))
    }

    /// Steps done since the scene's start.
    #[getter]
    fn step_count(&self) -> u64 {
        self.lock().sim.steps_done()
    }

    /// Simulated time since the scene's start, s.
    #[getter]
    fn time(&self) -> f64 {
        self.lock().sim.time()
    }

    /// Time step, s.
    #[getter]
    fn dt(&self) -> f64 {
        self.lock().scene.sim.dt
    }

    /// The backend running: "gpu", "cpu" or "event" (never "auto").
    #[getter]
    fn backend(&self) -> String {
        self.lock().sim.backend().to_string()
    }

    /// The precision the engine computes in: "f32" or "f64".
    #[getter]
    fn precision(&self) -> &'static str {
        precision_name(self.lock().sim.precision())
    }

    /// The device, e.g. the GPU's name or the CPU's thread count.
    #[getter]
    fn adapter(&self) -> String {
        self.lock().sim.adapter()
    }

    /// Why "auto" did not take the GPU, that "gpu" runs on a software adapter, or why a resume
    /// is not bit for bit; None otherwise.
    #[getter]
    fn notice(&self) -> Option<String> {
        self.lock().notice.clone()
    }

    /// A copy of the scene this simulation runs (with any state set on it since; with outflows
    /// or insertions, the spheres present at the last pass).
    #[getter]
    fn scene(&self) -> PyScene {
        PyScene {
            scene: self.lock().current_scene().clone(),
            origins: None,
        }
    }

    /// Each sphere's id, (N,), uint64, in the order of the state arrays: `0, 1, …, N − 1`
    /// unless outflows removed spheres or insertions added some; a sphere keeps its id for
    /// the whole run (docs/open-systems.md).
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.lock().sim.ids().into_pyarray(py).into_any()
    }

    /// Centres, (N, 3), m. Setting them (an (N, 3) array) restarts the engine from the new
    /// state after the scene checks: step count, time, collisions and dissipated energy go on,
    /// and so do the periodic images (`images`), the orientations and the contacts' history.
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let mut st = self.lock();
        let f32 = st.f32();
        vec3_array(py, &st.snapshot().position, f32)
    }

    #[setter]
    fn set_positions(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut st = self.lock();
        let x = read_vec3("positions", value, Some(st.sim.particles()))?;
        st.restart(py, |s, i| s.position = x[i])
    }

    /// Velocities, (N, 3), m/s. Setting them works as setting `positions`.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let mut st = self.lock();
        let f32 = st.f32();
        vec3_array(py, &st.snapshot().velocity, f32)
    }

    #[setter]
    fn set_velocities(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut st = self.lock();
        let v = read_vec3("velocities", value, Some(st.sim.particles()))?;
        st.restart(py, |s, i| s.velocity = v[i])
    }

    /// Angular velocities ω, (N, 3), rad/s (zero without `rotation`).
    #[getter]
    fn angular_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let mut st = self.lock();
        let f32 = st.f32();
        let snap = st.snapshot();
        let w: Vec<DVec3> = (0..snap.len())
            .map(|i| snap.angular_velocity_of(i))
            .collect();
        vec3_array(py, &w, f32)
    }

    /// Radii, (N,), m.
    #[getter]
    fn radii<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let mut st = self.lock();
        let f32 = st.f32();
        scalar_array(py, &st.snapshot().radius, f32)
    }

    /// Masses, (N,), kg (`inf` for fixed spheres).
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let mut st = self.lock();
        let f32 = st.f32();
        scalar_array(py, &st.snapshot().mass, f32)
    }

    /// Periodic images, (N, 3), int32: the box lengths each sphere has crossed along x, y, z
    /// (+1 through the upper face), so that its unwrapped centre is `positions + images × (max
    /// − min)`; zeros without periodic boundaries (docs/open-systems.md).
    #[getter]
    fn images<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let mut st = self.lock();
        let snap = st.snapshot();
        let n = snap.len();
        let flat: Vec<i32> = if snap.image.len() == n {
            snap.image.iter().flatten().copied().collect()
        } else {
            vec![0; 3 * n]
        };
        let a = Array2::from_shape_vec((n, 3), flat).expect("3 values a row");
        a.into_pyarray(py).into_any()
    }

    /// The force the spheres exerted on each wall in the last step, (W, 3), N: the box's six
    /// walls (x min, x max, y min, y max, z min, z max) of `walls`, the scene's planes then its
    /// containers otherwise; an empty (0, 3) array unless the scene records wall forces.
    #[getter]
    fn wall_forces<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let f = py.detach(|| self.lock().sim.wall_forces());
        let flat: Vec<f64> = f.iter().flat_map(|w| w.to_array()).collect();
        let a = Array2::from_shape_vec((f.len(), 3), flat).expect("3 values a row");
        a.into_pyarray(py).into_any()
    }

    /// Diagnostics of the current state, a dict with the columns of `diagnostics.csv`
    /// (docs/output.md): step, time (s), kinetic, potential_uniform, potential_gravity,
    /// potential_spring, total (J), px, py, pz (kg·m/s), lx, ly, lz (kg·m²/s), contacts,
    /// collisions, dissipated, kinetic_rotational (J); and energy_balance = total + dissipated
    /// (J), momentum_magnitude_sum Σ m|v| (kg·m/s), friction_history_dropped and
    /// neighbour_rebuilds.
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = py.detach(|| self.lock().sim.diagnostics());
        let out = PyDict::new(py);
        out.set_item("step", d.step)?;
        out.set_item("time", d.time)?;
        out.set_item("kinetic", d.kinetic)?;
        out.set_item("potential_uniform", d.potential_uniform)?;
        out.set_item("potential_gravity", d.potential_gravity)?;
        out.set_item("potential_spring", d.potential_spring)?;
        out.set_item("total", d.total_energy())?;
        for (k, v) in ["px", "py", "pz"].iter().zip(d.momentum.to_array()) {
            out.set_item(k, v)?;
        }
        for (k, v) in ["lx", "ly", "lz"].iter().zip(d.angular_momentum.to_array()) {
            out.set_item(k, v)?;
        }
        out.set_item("contacts", d.contacts)?;
        out.set_item("collisions", d.collisions)?;
        out.set_item("dissipated", d.dissipated)?;
        out.set_item("kinetic_rotational", d.kinetic_rotational)?;
        out.set_item("energy_balance", d.energy_balance())?;
        out.set_item("momentum_magnitude_sum", d.momentum_magnitude_sum)?;
        out.set_item("friction_history_dropped", d.friction_history_dropped)?;
        out.set_item("neighbour_rebuilds", d.neighbour_rebuilds)?;
        out.set_item("removed_spheres", d.removed_spheres)?;
        out.set_item("removed_mass", d.removed_mass)?;
        out.set_item("removed_energy", d.removed_energy)?;
        out.set_item("inserted_spheres", d.inserted_spheres)?;
        out.set_item("inserted_mass", d.inserted_mass)?;
        out.set_item("inserted_energy", d.inserted_energy)?;
        out.set_item("insertion_failures", d.insertion_failures)?;
        Ok(out)
    }

    /// Writes a checkpoint of the current state to `path` (atomically), in the format of
    /// `spheresim run --checkpoint` (docs/long-runs.md). `Simulation.resume(path)` continues
    /// it bit for bit on the same backend and precision.
    ///
    /// Raises `SimulationError` on the event-driven solver (it saves no state),
    /// `CheckpointError` when the file cannot be written.
    fn checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let result = py.detach(|| {
            let mut st = self.lock();
            let st = &mut *st;
            adapter::checkpoint(&mut st.sim, &st.scene, st.initial, &path)
        });
        result.map_err(|e| failure(py, e, &path))
    }

    /// Continues a checkpoint file (written by `checkpoint` or by `spheresim run
    /// --checkpoint`) on `backend` and `precision` (default: the checkpoint's). On its own
    /// backend and precision it continues bit for bit; otherwise `notice` says what changed.
    ///
    /// Raises `FileNotFoundError`/`OSError` when it cannot be read, `CheckpointError` when it is
    /// not a usable checkpoint, `SimulationError` when the backend cannot run it.
    #[staticmethod]
    #[pyo3(signature = (path, backend = None, precision = None))]
    fn resume(
        py: Python<'_>,
        path: PathBuf,
        backend: Option<&str>,
        precision: Option<&str>,
    ) -> PyResult<Self> {
        let backend = backend.map(parse_backend).transpose()?;
        let precision = precision.map(parse_precision).transpose()?;
        let r = py
            .detach(|| adapter::resume(&path, backend, precision))
            .map_err(|e| failure(py, e, &path))?;
        let notice = r.notice.or_else(|| r.sim.notice().map(str::to_string));
        Ok(Self {
            state: Mutex::new(State {
                sim: r.sim,
                scene: r.scene,
                initial: r.initial,
                allow_overlap: true,
                snapshot: Snapshot::default(),
                fresh: false,
                notice,
            }),
        })
    }

    /// Number of spheres.
    fn __len__(&self) -> usize {
        self.lock().sim.particles()
    }

    fn __repr__(&self) -> String {
        let st = self.lock();
        format!(
            "Simulation({:?}: {} spheres, backend {} on {}, {}, step {})",
            st.scene.name,
            st.sim.particles(),
            st.sim.backend(),
            st.sim.adapter(),
            precision_name(st.sim.precision()),
            st.sim.steps_done()
        )
    }
}

/// The names of the built-in scenes, as `Scene.builtin` takes them.
#[pyfunction]
fn builtin_scenes() -> Vec<&'static str> {
    spheresim::scene::builtin::names()
}

/// spheresim: many colliding, gravitating spheres on a GPU or the CPU (docs/python.md).
#[pymodule]
#[pyo3(name = "spheresim")]
fn spheresim_python(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let ns = PyDict::new(py);
    py.run(EXCEPTIONS, Some(&ns), None)?;
    let mut types = Vec::new();
    for name in EXCEPTION_NAMES {
        let t = ns
            .get_item(name)?
            .expect("defined above")
            .cast_into::<PyType>()?;
        t.setattr("__module__", "spheresim")?;
        m.add(name, &t)?;
        types.push(t.unbind());
    }
    // A second import (another interpreter) keeps the first classes.
    let _ = EXCEPTION_TYPES.set(py, types);
    m.add_class::<PyScene>()?;
    m.add_class::<PySimulation>()?;
    m.add_function(wrap_pyfunction!(builtin_scenes, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
