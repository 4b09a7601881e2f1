//! Run statistics JSON (`--stats-json FILE`; keys in docs/output.md, a contract).
//!
//! # Format
//!
//! One pretty-printed JSON object, the fields of [`RunStats`] in declaration order, for example
//!
//! ```json
//! {
//!   "spheresim_version": "0.1.0",
//!   "scene": "wall-break",
//!   "backend": "gpu",
//!   "adapter": "NVIDIA H200 (Vulkan)",
//!   "precision": "f32",
//!   "particles": 1000000,
//!   "steps": 1000,
//!   "dt": 0.0001,
//!   "simulated_time": 0.1,
//!   "wall_seconds": 2.5,
//!   "particle_steps_per_second": 400000000.0,
//!   "collisions": 123456,
//!   "contacts_initial": 0,
//!   "contacts_final": 5321,
//!   "kinetic_energy_initial": 200.0,
//!   "kinetic_energy_final": 150.0,
//!   "rotational_kinetic_energy_initial": 0.0,
//!   "rotational_kinetic_energy_final": 0.0,
//!   "total_energy_initial": 200.0,
//!   "total_energy_final": 199.9,
//!   "energy_drift_relative": -0.0005,
//!   "dissipated_energy": 0.1,
//!   "energy_balance_change_relative": 0.0,
//!   "friction_history_dropped": 0,
//!   "momentum_initial": [0.0, 20.0, 0.0],
//!   "momentum_final": [0.0, 20.0, 0.0],
//!   "momentum_magnitude_sum_initial": 35.2,
//!   "momentum_magnitude_sum_final": 30.1,
//!   "momentum_change_relative": 0.0,
//!   "angular_momentum_initial": [0.0, 0.0, 0.0],
//!   "angular_momentum_final": [0.0, 0.0, 0.0],
//!   "interrupted": false,
//!   "resumed_from_step": null,
//!   "neighbour_rebuilds": 12,
//!   "gravity_solver": "none",
//!   "theta": null,
//!   "wall_forces_final": null,
//!   "removed_spheres": 0,
//!   "removed_mass": 0.0,
//!   "removed_energy": 0.0,
//!   "inserted_spheres": 0,
//!   "inserted_mass": 0.0,
//!   "inserted_energy": 0.0,
//!   "insertion_failures": 0
//! }
//! ```
//!
//! Integers are JSON integers, reals JSON numbers, 3-vectors `[x, y, z]` arrays.
//!
//! **Non-finite numbers**: JSON has no NaN or infinity, so any non-finite real (a blown-up run,
//! or `particle_steps_per_second` when `wall_seconds` is 0) is written as `null`; so is
//! `energy_drift_relative` when the initial total energy is 0 or non-finite. Readers must accept
//! `null` wherever a number is expected.

use std::path::Path;

use glam::DVec3;
use serde::Serialize;

use super::atomic::write_atomic;
use super::error::OutputError;
use crate::Diagnostics;

/// Statistics of one run, serialised by [`write_stats_json`]. Units: SI (s, J, kg·m/s,
/// kg·m²/s). Energies and momenta leave out fixed (infinite-mass) spheres, as [`Diagnostics`]
/// does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunStats {
    /// Version of the crate that wrote the file.
    pub spheresim_version: String,
    /// Built-in scene name or scene file path.
    pub scene: String,
    /// Backend that ran: `"gpu"`, `"cpu"` or `"event"`.
    pub backend: String,
    /// Adapter description (GPU name and API) or a CPU description.
    pub adapter: String,
    /// Floating-point precision of the state: `"f32"` or `"f64"`.
    pub precision: String,
    /// Number of spheres at the start of the run (outflows may remove some: `removed_spheres`).
    pub particles: u64,
    /// Steps actually taken (fewer than asked when interrupted).
    pub steps: u64,
    /// Time step, s.
    pub dt: f64,
    /// Simulated time covered: final minus initial diagnostics time, s.
    pub simulated_time: f64,
    /// Wall-clock time of the stepping, s.
    pub wall_seconds: f64,
    /// `particles × steps / wall_seconds`.
    pub particle_steps_per_second: f64,
    /// Collisions during the run (final minus initial count).
    pub collisions: u64,
    /// Pairs touching at the start.
    pub contacts_initial: u64,
    /// Pairs touching at the end.
    pub contacts_final: u64,
    /// Kinetic energy at the start, J.
    pub kinetic_energy_initial: f64,
    /// Kinetic energy at the end, J.
    pub kinetic_energy_final: f64,
    /// Rotational kinetic energy Σ ½ I ω² at the start, J (0 without rotation).
    pub rotational_kinetic_energy_initial: f64,
    /// Rotational kinetic energy at the end, J.
    pub rotational_kinetic_energy_final: f64,
    /// Total mechanical energy at the start, J.
    pub total_energy_initial: f64,
    /// Total mechanical energy at the end, J.
    pub total_energy_final: f64,
    /// `(total_final − total_initial) / |total_initial|`; `null` when the initial total is 0
    /// or non-finite.
    pub energy_drift_relative: Option<f64>,
    /// Energy taken out by the contacts during the run, J: soft-contact damping and friction,
    /// and the kinetic energy inelastic impulses remove (see [`Diagnostics::dissipated`]);
    /// `total_energy_final + dissipated_energy` balances `total_energy_initial`.
    pub dissipated_energy: f64,
    /// Change of total + dissipated energy over the run, relative to the energies in play
    /// ([`Diagnostics::energy_balance_change_relative`]): the integration error for every
    /// contact law, meaningful also where the total energy is near zero.
    pub energy_balance_change_relative: f64,
    /// Contact-steps of the run whose friction history did not fit (see
    /// [`Diagnostics::friction_history_dropped`]); 0 when friction is fully tracked.
    pub friction_history_dropped: u64,
    /// Linear momentum at the start `[x, y, z]`, kg·m/s.
    pub momentum_initial: [f64; 3],
    /// Linear momentum at the end `[x, y, z]`, kg·m/s.
    pub momentum_final: [f64; 3],
    /// Σ m|v| at the start, kg·m/s ([`Diagnostics::momentum_magnitude_sum`]).
    pub momentum_magnitude_sum_initial: f64,
    /// Σ m|v| at the end, kg·m/s.
    pub momentum_magnitude_sum_final: f64,
    /// `|P_final − P_initial| / max(Σ m|v| initial, Σ m|v| final)`, 0 when both sums are 0
    /// ([`Diagnostics::momentum_change_relative`]): momentum conservation relative to the
    /// momenta present, meaningful also where the total momentum is near zero.
    pub momentum_change_relative: f64,
    /// Angular momentum about the origin at the start `[x, y, z]`, kg·m²/s.
    pub angular_momentum_initial: [f64; 3],
    /// Angular momentum about the origin at the end `[x, y, z]`, kg·m²/s.
    pub angular_momentum_final: [f64; 3],
    /// True when the run was stopped early (Ctrl-C).
    pub interrupted: bool,
    /// The step of the checkpoint this run was resumed from (`--resume`), `null` for a run from
    /// the scene's start. Counts, energies and times above still cover the whole run.
    pub resumed_from_step: Option<u64>,
    /// Neighbour-list rebuilds during the run ([`Diagnostics::neighbour_rebuilds`]): the CPU's
    /// list; every step on the GPU; 0 for the event solver.
    pub neighbour_rebuilds: u64,
    /// How mutual gravity was summed: `"direct"`, `"tree"`, or `"none"` when G = 0.
    pub gravity_solver: String,
    /// The tree's opening angle θ; `null` unless `gravity_solver` is `"tree"`.
    pub theta: Option<f64>,
    /// With `wall_forces`: the force the spheres exerted on each wall (planes, then containers)
    /// in the last step, N, `[x, y, z]` each ([`crate::Simulation::wall_forces`]); `null`
    /// without.
    pub wall_forces_final: Option<Vec<[f64; 3]>>,
    /// Spheres the outflows (`[[outflow]]`) removed during the run (0 without outflows).
    pub removed_spheres: u64,
    /// Their mass, kg.
    pub removed_mass: f64,
    /// The mechanical energy they took out, J ([`Diagnostics::removed_energy`]).
    pub removed_energy: f64,
    /// Spheres the insertions (`[[insert]]`) placed during the run (0 without insertions).
    pub inserted_spheres: u64,
    /// Their mass, kg.
    pub inserted_mass: f64,
    /// The mechanical energy they brought in, J ([`Diagnostics::inserted_energy`]).
    pub inserted_energy: f64,
    /// Spheres the insertions could not place during the run.
    pub insertion_failures: u64,
}

impl RunStats {
    /// Builds the statistics of a run from its description and the diagnostics at its start
    /// (`initial`) and end (`final_`).
    ///
    /// `wall_seconds` is the stepping time in s, `dt` the time step in s, `steps` the steps
    /// actually taken. Derived values: `particle_steps_per_second = particles × steps /
    /// wall_seconds` (non-finite, so `null` in JSON, when `wall_seconds` is 0),
    /// `collisions = final_.collisions − initial.collisions`, `simulated_time = final_.time −
    /// initial.time`, `energy_drift_relative` and `momentum_change_relative` as documented on
    /// the fields.
    // The argument list is the documented contract other modules call; every argument is a
    // distinct, named quantity.
    #[allow(clippy::too_many_arguments)]
    pub fn from_diagnostics(
        scene: &str,
        backend: &str,
        adapter: &str,
        precision: &str,
        particles: usize,
        steps: u64,
        dt: f64,
        wall_seconds: f64,
        initial: &Diagnostics,
        final_: &Diagnostics,
        interrupted: bool,
    ) -> RunStats {
        let e0 = initial.total_energy();
        let e1 = final_.total_energy();
        let drift = (e0 != 0.0 && e0.is_finite()).then(|| (e1 - e0) / e0.abs());
        RunStats {
            spheresim_version: env!("CARGO_PKG_VERSION").to_string(),
            scene: scene.to_string(),
            backend: backend.to_string(),
            adapter: adapter.to_string(),
            precision: precision.to_string(),
            particles: particles as u64,
            steps,
            dt,
            simulated_time: final_.time - initial.time,
            wall_seconds,
            particle_steps_per_second: particles as f64 * steps as f64 / wall_seconds,
            collisions: final_.collisions.saturating_sub(initial.collisions),
            contacts_initial: initial.contacts,
            contacts_final: final_.contacts,
            kinetic_energy_initial: initial.kinetic,
            kinetic_energy_final: final_.kinetic,
            rotational_kinetic_energy_initial: initial.kinetic_rotational,
            rotational_kinetic_energy_final: final_.kinetic_rotational,
            total_energy_initial: e0,
            total_energy_final: e1,
            energy_drift_relative: drift,
            dissipated_energy: final_.dissipated - initial.dissipated,
            energy_balance_change_relative: final_.energy_balance_change_relative(initial),
            friction_history_dropped: final_
                .friction_history_dropped
                .saturating_sub(initial.friction_history_dropped),
            momentum_initial: arr(initial.momentum),
            momentum_final: arr(final_.momentum),
            momentum_magnitude_sum_initial: initial.momentum_magnitude_sum,
            momentum_magnitude_sum_final: final_.momentum_magnitude_sum,
            momentum_change_relative: final_.momentum_change_relative(initial),
            angular_momentum_initial: arr(initial.angular_momentum),
            angular_momentum_final: arr(final_.angular_momentum),
            interrupted,
            resumed_from_step: None,
            neighbour_rebuilds: final_
                .neighbour_rebuilds
                .saturating_sub(initial.neighbour_rebuilds),
            gravity_solver: "none".to_string(),
            theta: None,
            wall_forces_final: None,
            removed_spheres: final_
                .removed_spheres
                .saturating_sub(initial.removed_spheres),
            removed_mass: final_.removed_mass - initial.removed_mass,
            removed_energy: final_.removed_energy - initial.removed_energy,
            inserted_spheres: final_
                .inserted_spheres
                .saturating_sub(initial.inserted_spheres),
            inserted_mass: final_.inserted_mass - initial.inserted_mass,
            inserted_energy: final_.inserted_energy - initial.inserted_energy,
            insertion_failures: final_
                .insertion_failures
                .saturating_sub(initial.insertion_failures),
        }
    }

    /// The statistics as pretty-printed JSON text (non-finite numbers as `null`), with a
    /// trailing newline.
    pub fn to_json_pretty(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("RunStats always serialises");
        s.push('\n');
        s
    }
}

fn arr(v: DVec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// Writes `stats` as pretty JSON (format in the [module docs](self)) to `path`, atomically.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when it cannot be written.
pub fn write_stats_json(path: &Path, stats: &RunStats) -> Result<(), OutputError> {
    let text = stats.to_json_pretty();
    write_atomic(path, |w| w.write_all(text.as_bytes()))
}
