//! Energy log: the diagnostics sampled during a run, one CSV row per sample.
//!
//! # Format
//!
//! Header exactly [`ENERGY_LOG_HEADER`], then one row per [`Diagnostics`] in the order given:
//!
//! | column | meaning | unit |
//! |---|---|---|
//! | `step`, `time` | step number, simulated time | –, s |
//! | `kinetic` | Σ ½ m v² (translational) | J |
//! | `potential_uniform`, `potential_gravity`, `potential_spring` | the potential energies | J |
//! | `total` | kinetic (both kinds) + all potentials | J |
//! | `px,py,pz` | linear momentum | kg·m/s |
//! | `lx,ly,lz` | angular momentum about the origin | kg·m²/s |
//! | `contacts` | pairs touching now | – |
//! | `collisions` | collisions since the start | – |
//! | `dissipated` | energy taken out by the contacts since the start (damping, friction, impulses) | J |
//! | `kinetic_rotational` | Σ ½ I ω², I = (2/5) m r² (0 without rotation) | J |
//! | `wall0_fx,wall0_fy,wall0_fz`, `wall1_fx`, … | with `wall_forces` only: the force the spheres exert on each wall in the row's step (planes, then containers) | N |
//! | `removed_spheres,removed_mass,removed_energy` | with `[[outflow]]`s or `[[insert]]`s only, after any wall columns: spheres the outflows removed since the start, their mass, the mechanical energy they took out | –, kg, J |
//! | `inserted_spheres,inserted_mass,inserted_energy,insertion_failures` | likewise: spheres the insertions placed since the start, their mass, the energy they brought in, and the spheres that found no place | –, kg, J, – |
//!
//! Numbers use the CSV's shortest round-trip digits ([`super::csv`]).

use std::path::Path;

use super::atomic::write_atomic;
use super::csv::push_f64;
use super::error::OutputError;
use crate::Diagnostics;

/// Header line of the energy log (without the line end).
pub const ENERGY_LOG_HEADER: &str = "step,time,kinetic,potential_uniform,potential_gravity,\
potential_spring,total,px,py,pz,lx,ly,lz,contacts,collisions,dissipated,kinetic_rotational";

/// Writes `samples` as the energy log CSV (format in the [module docs](self)) to `path`,
/// atomically. Call it again with the longer slice to extend the log; the file is replaced
/// whole each time, so it is always complete.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when it cannot be written.
pub fn write_energy_log(path: &Path, samples: &[Diagnostics]) -> Result<(), OutputError> {
    write_energy_log_with_walls(path, samples, &[])
}

/// [`write_energy_log`] with the walls' forces of each sample (`walls`, N, one row per sample,
/// as [`crate::Simulation::wall_forces`] gives them): their columns appear when the first row
/// has some.
///
/// # Errors
/// [`OutputError::Write`] naming `path` when it cannot be written.
pub fn write_energy_log_with_walls(
    path: &Path,
    samples: &[Diagnostics],
    walls: &[Vec<glam::DVec3>],
) -> Result<(), OutputError> {
    write_energy_log_open(path, samples, walls, false)
}

/// [`write_energy_log_with_walls`], with the open system's columns (`removed_spheres`,
/// `removed_mass`, `removed_energy`, `inserted_spheres`, `inserted_mass`, `inserted_energy`,
/// `insertion_failures`) at the end when `removed` (a scene with outflows or insertions).
///
/// # Errors
/// [`OutputError::Write`] naming `path` when it cannot be written.
pub fn write_energy_log_open(
    path: &Path,
    samples: &[Diagnostics],
    walls: &[Vec<glam::DVec3>],
    removed: bool,
) -> Result<(), OutputError> {
    let n_walls = walls.first().map_or(0, Vec::len);
    write_atomic(path, |w| {
        let mut buf = Vec::with_capacity(64 * 1024);
        buf.extend_from_slice(ENERGY_LOG_HEADER.as_bytes());
        for k in 0..n_walls {
            buf.extend_from_slice(format!(",wall{k}_fx,wall{k}_fy,wall{k}_fz").as_bytes());
        }
        if removed {
            buf.extend_from_slice(
                b",removed_spheres,removed_mass,removed_energy,inserted_spheres,inserted_mass,\
                  inserted_energy,insertion_failures",
            );
        }
        buf.push(b'\n');
        for (r, d) in samples.iter().enumerate() {
            buf.extend_from_slice(d.step.to_string().as_bytes());
            let p = d.momentum;
            let l = d.angular_momentum;
            for x in [
                d.time,
                d.kinetic,
                d.potential_uniform,
                d.potential_gravity,
                d.potential_spring,
                d.total_energy(),
                p.x,
                p.y,
                p.z,
                l.x,
                l.y,
                l.z,
            ] {
                buf.push(b',');
                push_f64(&mut buf, x);
            }
            buf.extend_from_slice(format!(",{},{},", d.contacts, d.collisions).as_bytes());
            push_f64(&mut buf, d.dissipated);
            buf.push(b',');
            push_f64(&mut buf, d.kinetic_rotational);
            for k in 0..n_walls {
                let f = walls.get(r).and_then(|row| row.get(k)).copied();
                for x in f.map_or([f64::NAN; 3], |f| f.to_array()) {
                    buf.push(b',');
                    push_f64(&mut buf, x);
                }
            }
            if removed {
                buf.extend_from_slice(format!(",{},", d.removed_spheres).as_bytes());
                push_f64(&mut buf, d.removed_mass);
                buf.push(b',');
                push_f64(&mut buf, d.removed_energy);
                buf.extend_from_slice(format!(",{},", d.inserted_spheres).as_bytes());
                push_f64(&mut buf, d.inserted_mass);
                buf.push(b',');
                push_f64(&mut buf, d.inserted_energy);
                buf.extend_from_slice(format!(",{}", d.insertion_failures).as_bytes());
            }
            buf.push(b'\n');
            if buf.len() >= 60 * 1024 {
                w.write_all(&buf)?;
                buf.clear();
            }
        }
        w.write_all(&buf)
    })
}
