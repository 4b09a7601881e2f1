//! [`RunReport`]: what a run did, the summary `spheresim run` prints and its warnings.

use super::signal::{SIGINT, stop_signal};
use crate::{Diagnostics, StepStats};
use std::fmt;
use std::path::PathBuf;

/// The summary warns when (E + dissipated) moved by more than this fraction of the energy scale.
pub const ENERGY_DRIFT_WARNING: f64 = 0.05;

/// The summary warns when the momentum of a scene that conserves it (no walls, fixed spheres,
/// uniform field or drag) moved by more than this fraction of `Σ m|v|`
/// ([`Diagnostics::momentum_change_relative`]).
pub const MOMENTUM_DRIFT_WARNING: f64 = 1e-2;

/// What a run did: its statistics, the diagnostics at the start and end, and the files written.
/// `Display` prints the summary `spheresim run` shows.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Spheres.
    pub particles: usize,
    /// Stopped before the last step (Ctrl-C, SIGTERM, SIGHUP or the stop flag).
    pub interrupted: bool,
    /// The energy ledger balances: no drag, whose losses it does not book.
    pub balanced: bool,
    /// Nothing outside the spheres acts on them (no walls, fixed spheres, uniform field or
    /// drag), so their momentum is conserved.
    pub momentum_conserved: bool,
    /// A soft contact law (spring–dashpot or Hertz) was used.
    pub soft: bool,
    /// The mutual-gravity solver and the tree's θ; `None` when G = 0.
    pub gravity: Option<(crate::scene::GravitySolver, Option<f64>)>,
    /// The checkpoint file and step the run was resumed from (`--resume`).
    pub resumed_from: Option<(PathBuf, u64)>,
    /// Steps and wall-clock time of this invocation's stepping (after the checkpoint when
    /// resumed).
    pub stats: StepStats,
    /// Diagnostics before the first step.
    pub initial: Diagnostics,
    /// Diagnostics after the last step.
    pub fin: Diagnostics,
    /// Seconds by stage, named as [`crate::setup::STAGES`] (empty where not measured).
    pub stage_seconds: Vec<(String, f64)>,
    /// Files written: (what, path).
    pub files: Vec<(&'static str, PathBuf)>,
    /// The force the spheres exerted on each wall in the last step, N (planes, then
    /// containers); empty without `wall_forces`.
    pub wall_forces: Vec<glam::DVec3>,
    /// True when the scene has outflows or insertions: the summary says what they did.
    pub outflow: bool,
    /// Spheres at the end of the run (fewer than `particles` once outflows removed some).
    pub particles_left: usize,
}

impl RunReport {
    /// Exit status of `spheresim run`: 0, or when interrupted 128 + the signal that stopped it
    /// ([`stop_signal`]): 130 after SIGINT (also when the stop flag was set without a signal),
    /// 143 after SIGTERM, 129 after SIGHUP, as a shell reports a process killed by it.
    pub fn exit_code(&self) -> i32 {
        if self.interrupted {
            128 + stop_signal().unwrap_or(SIGINT)
        } else {
            0
        }
    }

    /// Warnings a user should see after the summary: (E + dissipated) moved by more than
    /// [`ENERGY_DRIFT_WARNING`] of the energy scale, or a conserved momentum by more than
    /// [`MOMENTUM_DRIFT_WARNING`] of `Σ m|v|`.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let drift = self.fin.energy_balance_change_relative(&self.initial);
        if self.balanced && (drift.is_nan() || drift.abs() > ENERGY_DRIFT_WARNING) {
            w.push(format!(
                "total + dissipated energy moved by {:+.2} % of the energy scale, more than the \
                 {:.0} % a trustworthy run keeps to: shorten {} or check the scene \
                 (docs/physics.md §7)",
                100.0 * drift,
                100.0 * ENERGY_DRIFT_WARNING,
                crate::naming::Setting::Dt
            ));
        }
        let moved = self.fin.momentum_change_relative(&self.initial);
        if self.momentum_conserved && (moved.is_nan() || moved > MOMENTUM_DRIFT_WARNING) {
            w.push(format!(
                "the momentum, which nothing outside the spheres changes here, moved by {:.2} % \
                 of Σ m|v|, more than the {:.0} % allowed (docs/physics.md §7)",
                100.0 * moved,
                100.0 * MOMENTUM_DRIFT_WARNING
            ));
        }
        w
    }
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (i, e) = (&self.initial, &self.fin);
        if let Some((path, step)) = &self.resumed_from {
            writeln!(
                f,
                "resumed at step {step} from {}; the figures below cover the whole run",
                path.display()
            )?;
        }
        writeln!(
            f,
            "{} {} steps of {} spheres in {:.3} s: {:.3e} particle-steps/s (stepping only)",
            if self.interrupted {
                "interrupted after"
            } else {
                "ran"
            },
            self.stats.steps,
            self.particles,
            self.stats.wall_seconds,
            self.stats.particle_steps_per_second
        )?;
        let (e0, e1) = (i.total_energy(), e.total_energy());
        writeln!(
            f,
            "  energy: total {e0:.6e} -> {e1:.6e} J, kinetic {:.6e} -> {:.6e} J (energy scale K + |U| {:.3e} J)",
            i.kinetic,
            e.kinetic,
            i.energy_scale().max(e.energy_scale())
        )?;
        let by = if self.soft {
            "contact damping and friction"
        } else {
            "inelastic impulses"
        };
        let balance = if self.outflow {
            "total + dissipated + removed - inserted"
        } else {
            "total + dissipated"
        };
        writeln!(
            f,
            "  dissipated by {by}: {:.6e} J; {balance} {:.6e} J (change {:+.3e} of the energy scale)",
            e.dissipated - i.dissipated,
            e.energy_balance(),
            e.energy_balance_change_relative(i)
        )?;
        writeln!(
            f,
            "  momentum: [{:.6e}, {:.6e}, {:.6e}] -> [{:.6e}, {:.6e}, {:.6e}] kg m/s (change {:.3e} of Σ|m v|)",
            i.momentum.x,
            i.momentum.y,
            i.momentum.z,
            e.momentum.x,
            e.momentum.y,
            e.momentum.z,
            e.momentum_change_relative(i)
        )?;
        writeln!(
            f,
            "  collisions: {} resolved, {} contacts now; neighbour list rebuilt {} times",
            e.collisions,
            e.contacts,
            e.neighbour_rebuilds.saturating_sub(i.neighbour_rebuilds)
        )?;
        if self.gravity.is_some() || self.soft {
            // The uniform field's potential is named apart from mutual gravity's, and each is
            // printed only where the scene has it.
            let mut terms = vec![format!("kinetic {:.4e} -> {:.4e}", i.kinetic, e.kinetic)];
            if i.potential_uniform != 0.0 || e.potential_uniform != 0.0 {
                terms.push(format!(
                    "uniform field {:.4e} -> {:.4e}",
                    i.potential_uniform, e.potential_uniform
                ));
            }
            if self.gravity.is_some() {
                terms.push(format!(
                    "gravitational {:.4e} -> {:.4e}",
                    i.potential_gravity, e.potential_gravity
                ));
            }
            terms.push(format!(
                "elastic {:.4e} -> {:.4e}",
                i.potential_spring, e.potential_spring
            ));
            terms.push(format!("dissipated {:.4e}", e.dissipated - i.dissipated));
            writeln!(f, "  energy ledger (start -> end, J): {}", terms.join(", "))?;
        }
        if i.kinetic_rotational != 0.0 || e.kinetic_rotational != 0.0 {
            writeln!(
                f,
                "  rotation: rotational kinetic energy {:.4e} -> {:.4e} J (counted in the totals)",
                i.kinetic_rotational, e.kinetic_rotational
            )?;
        }
        if self.outflow {
            writeln!(
                f,
                "  open system: {} spheres removed ({:.4e} kg, {:.4e} J), {} inserted ({:.4e} kg, \
                 {:.4e} J), {} could not be placed; {} spheres now",
                e.removed_spheres.saturating_sub(i.removed_spheres),
                e.removed_mass - i.removed_mass,
                e.removed_energy - i.removed_energy,
                e.inserted_spheres.saturating_sub(i.inserted_spheres),
                e.inserted_mass - i.inserted_mass,
                e.inserted_energy - i.inserted_energy,
                e.insertion_failures.saturating_sub(i.insertion_failures),
                self.particles_left
            )?;
            // A fill at set-up (`start = 0`) or the passes before a resume: part of the first
            // step's state, so not in the counts above.
            if i.inserted_spheres > 0 {
                writeln!(
                    f,
                    "  open system: {} spheres ({:.4e} kg) were inserted before this run's \
                     first step",
                    i.inserted_spheres, i.inserted_mass
                )?;
            }
        }
        if !self.wall_forces.is_empty() {
            let walls: Vec<String> = self
                .wall_forces
                .iter()
                .enumerate()
                .map(|(k, w)| format!("{k}: [{:.4e}, {:.4e}, {:.4e}]", w.x, w.y, w.z))
                .collect();
            writeln!(
                f,
                "  forces on the walls in the last step (N): {}",
                walls.join("; ")
            )?;
        }
        match self.gravity {
            Some((solver, Some(theta))) => {
                writeln!(f, "  mutual gravity: {solver}, opening angle θ = {theta}")?
            }
            Some((solver, None)) => writeln!(f, "  mutual gravity: {solver} sum")?,
            None => {}
        }
        let stages: Vec<String> = self
            .stage_seconds
            .iter()
            .filter(|(_, t)| *t > 0.0)
            .map(|(name, t)| format!("{name} {t:.2} s"))
            .collect();
        if !stages.is_empty() {
            writeln!(f, "  time by stage: {}", stages.join(", "))?;
        }
        for (what, path) in &self.files {
            writeln!(f, "  {what}: {}", path.display())?;
        }
        Ok(())
    }
}
