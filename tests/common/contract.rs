//! The GPU = CPU contract a test checks, by adapter class (docs/performance.md, "GPU against
//! CPU on hardware").
//!
//! - **Bit for bit**, on a software adapter (lavapipe, WARP, SwiftShader): it rounds every
//!   operation as the CPU twin does, so the states and every counter are equal.
//! - **Hardware**, on a real GPU, whose driver may contract `a*b+c` into one fused
//!   multiply–add (WGSL permits it, nothing can forbid it):
//!   - the same device repeats itself bit for bit (a second GPU run of the same steps);
//!   - the GPU agrees with the CPU's f32 run within what f32 rounding itself does to the same
//!     steps (`ROUNDING_FACTOR` times that, plus a floor of two roundings of the state,
//!     `2 ε (|x| + |v| dt)`), measured as the largest difference of the CPU's f32 run from three
//!     references: its f64 run, and two f32 runs whose initial positions are moved by two ulps
//!     either way (in a chaotic scene one sample of the divergence says little: benches/RESULTS.md,
//!     the H200 runs);
//!   - the statistics (collisions, contacts, energies, momentum) likewise, each within
//!     `ROUNDING_FACTOR` times its own largest difference plus a stated floor.
//!
//! `SPHERESIM_TEST_CONTRACT=hardware` checks the hardware contract on any adapter, and
//! `SPHERESIM_TEST_FUSED_DRIFT=1` computes every GPU drift as an explicit `fma`
//! (`GpuOptions::fused_drift`), which lavapipe honours: together they emulate a hardware
//! adapter's rounding on lavapipe.

use spheresim::gpu::GpuOptions;
use spheresim::scene::Scene;
use spheresim::state::Snapshot;
use spheresim::{Backend, Diagnostics, Precision, Simulation};

/// f32's machine epsilon, 2⁻²³: one rounding moves `x` by at most `ε |x| / 2`.
pub const EPS: f64 = f32::EPSILON as f64;

/// How far the GPU may be from the CPU's f32 run, in units of the CPU's own f32-against-f64
/// difference. A fused product skips one rounding of a sum whose terms already carry one, so
/// one f32 rounding error per operation bounds it; 4 leaves room for the few operations in a
/// row (the drift, then the force from the drifted position) that a driver may fuse.
pub const ROUNDING_FACTOR: f64 = 4.0;

/// Pairs within rounding of touching (a resting lattice starts with its spheres exactly in
/// contact) may be counted on one backend only: this many such contacts or collisions are
/// allowed beyond `ROUNDING_FACTOR` times the f32-against-f64 difference.
pub const COUNT_SLACK: u64 = 2;

/// The contract a test checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contract {
    /// Software adapter: GPU = CPU bit for bit.
    BitForBit,
    /// Hardware adapter: run to run bit for bit, GPU against CPU within f32 rounding.
    Hardware,
}

impl Contract {
    /// The name printed with each test.
    pub fn name(self) -> &'static str {
        match self {
            Contract::BitForBit => "bit-for-bit",
            Contract::Hardware => "hardware",
        }
    }
}

/// The GPU options of every GPU run in the tests: `fused_drift` under
/// `SPHERESIM_TEST_FUSED_DRIFT=1`.
pub fn test_gpu_options() -> GpuOptions {
    GpuOptions {
        fused_drift: std::env::var("SPHERESIM_TEST_FUSED_DRIFT").is_ok_and(|v| v == "1"),
        ..GpuOptions::default()
    }
}

/// The contract `test` checks on this machine's adapter, printed as `contract: NAME on
/// ADAPTER (test)`; `None` where the GPU tests skip (no adapter and `CI` unset).
///
/// # Panics
/// With `CI=true` and no adapter, or an unknown `SPHERESIM_TEST_CONTRACT`.
pub fn gpu_contract(test: &str) -> Option<Contract> {
    let (name, software) = super::usable_adapter()?;
    let contract = match std::env::var("SPHERESIM_TEST_CONTRACT").as_deref() {
        Ok("hardware") => Contract::Hardware,
        Ok("bit-for-bit") => Contract::BitForBit,
        Ok(other) => panic!("SPHERESIM_TEST_CONTRACT={other}: use hardware or bit-for-bit"),
        Err(_) if *software => Contract::BitForBit,
        Err(_) => Contract::Hardware,
    };
    let fused = if test_gpu_options().fused_drift {
        ", drift fused"
    } else {
        ""
    };
    eprintln!("contract: {} on {name}{fused} ({test})", contract.name());
    Some(contract)
}

/// A GPU run and its CPU twin in f32, stepped together; for the hardware contract also a second
/// GPU run (run-to-run identity) and the rounding references (the scale of f32 rounding).
pub struct Twins {
    /// The contract checked.
    pub contract: Contract,
    /// The GPU run.
    pub gpu: Simulation,
    /// The CPU twin in f32.
    pub cpu: Simulation,
    /// Hardware contract: the same GPU run again.
    pub gpu_again: Option<Simulation>,
    /// Hardware contract: the CPU in f64, then in f32 from positions moved by two ulps up and
    /// down.
    pub refs: Vec<Simulation>,
    dt: f64,
}

impl Twins {
    /// The runs of `scene` under `contract`, with the tests' GPU options.
    pub fn new(scene: &Scene, contract: Contract) -> Self {
        Self::with_options(scene, contract, test_gpu_options())
    }

    /// As [`Twins::new`], with `opts` for the GPU runs.
    pub fn with_options(scene: &Scene, contract: Contract, opts: GpuOptions) -> Self {
        let gpu = || {
            Simulation::with_gpu_options(scene, Backend::Gpu, Precision::F32, opts)
                .expect("GPU backend")
        };
        let cpu = |p| Simulation::new(scene, Backend::Cpu, p).expect("CPU backend");
        let hw = contract == Contract::Hardware;
        let moved = |f: f64| {
            let mut s = scene.clone();
            for sp in &mut s.spheres {
                sp.position *= 1.0 + f * 2.0 * EPS;
            }
            Simulation::new(&s, Backend::Cpu, Precision::F32).expect("CPU backend")
        };
        Self {
            contract,
            gpu: gpu(),
            cpu: cpu(Precision::F32),
            gpu_again: hw.then(gpu),
            refs: if hw {
                vec![cpu(Precision::F64), moved(1.0), moved(-1.0)]
            } else {
                Vec::new()
            },
            dt: scene.sim.dt,
        }
    }

    /// Steps every run `n` steps.
    ///
    /// # Panics
    /// When a run fails.
    pub fn step(&mut self, n: u64) {
        self.gpu.step(n).expect("GPU step");
        self.cpu.step(n).expect("CPU step");
        if let Some(g) = &mut self.gpu_again {
            g.step(n).expect("GPU step (again)");
        }
        for c in &mut self.refs {
            c.step(n).expect("CPU reference step");
        }
    }

    /// The states under the contract: equal (bit for bit), or equal run to run and within
    /// rounding of the CPU (hardware). `Ok` carries a line saying what was compared.
    pub fn states(&mut self, label: &str) -> Result<String, String> {
        let (g, c) = (self.gpu.snapshot(), self.cpu.snapshot());
        match self.contract {
            Contract::BitForBit => {
                if g == c {
                    Ok(format!("{label}: GPU = CPU bit for bit"))
                } else {
                    let (dx, dv) = g.max_difference(&c);
                    Err(format!(
                        "{label}: the states differ (|dx| {dx:e} m, |dv| {dv:e} m/s)"
                    ))
                }
            }
            Contract::Hardware => {
                let again = self.gpu_again.as_mut().expect("hardware twins").snapshot();
                if again != g {
                    let (dx, dv) = g.max_difference(&again);
                    return Err(format!(
                        "{label}: two GPU runs of the same steps differ (|dx| {dx:e} m, \
                         |dv| {dv:e} m/s)"
                    ));
                }
                let refs: Vec<Snapshot> = self.refs.iter_mut().map(|r| r.snapshot()).collect();
                within_rounding(label, &g, &c, &refs, self.dt)
            }
        }
    }

    /// The statistics under the contract (collisions, contacts, energies, momentum).
    pub fn statistics(&mut self, label: &str) -> Result<String, String> {
        let (g, c) = (self.gpu.diagnostics(), self.cpu.diagnostics());
        match self.contract {
            Contract::BitForBit => {
                let same = g.collisions == c.collisions
                    && g.contacts == c.contacts
                    && g.kinetic == c.kinetic
                    && g.dissipated == c.dissipated
                    && g.momentum == c.momentum;
                if same {
                    Ok(format!("{label}: statistics equal"))
                } else {
                    Err(format!("{label}: statistics differ: {g:?} against {c:?}"))
                }
            }
            Contract::Hardware => {
                let refs: Vec<Diagnostics> =
                    self.refs.iter_mut().map(|r| r.diagnostics()).collect();
                statistics_within_rounding(label, &g, &c, &refs)
            }
        }
    }

    /// [`Twins::states`], panicking with its reason; prints what it checked.
    pub fn assert_states(&mut self, label: &str) {
        let r = self.states(label);
        report(r, self.contract);
    }

    /// [`Twins::statistics`], panicking with its reason; prints what it checked.
    pub fn assert_statistics(&mut self, label: &str) {
        let r = self.statistics(label);
        report(r, self.contract);
    }
}

fn report(r: Result<String, String>, contract: Contract) {
    match r {
        Ok(line) => eprintln!("{} contract: {line}", contract.name()),
        Err(e) => panic!("{} contract: {e}", contract.name()),
    }
}

/// Hardware contract on states: `g` (GPU) against `c` (CPU f32) within `ROUNDING_FACTOR` times
/// the largest difference of `c` from the rounding references `refs`, plus a floor of two f32
/// roundings of each quantity.
pub fn within_rounding(
    label: &str,
    g: &Snapshot,
    c: &Snapshot,
    refs: &[Snapshot],
    dt: f64,
) -> Result<String, String> {
    let (dx, dv) = g.max_difference(c);
    let (rx, rv) = refs.iter().fold((0.0f64, 0.0f64), |(x, v), r| {
        let (a, b) = c.max_difference(r);
        (x.max(a), v.max(b))
    });
    let largest = |a: &[glam::DVec3]| a.iter().map(|v| v.length()).fold(0.0, f64::max);
    let reach = c
        .position
        .iter()
        .zip(&c.velocity)
        .map(|(x, v)| x.length() + v.length() * dt)
        .fold(0.0, f64::max);
    let tol_x = ROUNDING_FACTOR * rx + 2.0 * EPS * reach;
    let tol_v = ROUNDING_FACTOR * rv + 2.0 * EPS * largest(&c.velocity);
    let dw = max_diff(&g.angular_velocity, &c.angular_velocity);
    let rw = refs
        .iter()
        .map(|r| max_diff(&c.angular_velocity, &r.angular_velocity))
        .fold(0.0, f64::max);
    let tol_w = ROUNDING_FACTOR * rw + 2.0 * EPS * largest(&c.angular_velocity);
    let line = format!(
        "{label}: |dx| {dx:.3e} ≤ {tol_x:.3e} m, |dv| {dv:.3e} ≤ {tol_v:.3e} m/s, \
         |dω| {dw:.3e} ≤ {tol_w:.3e} rad/s (rounding references: {rx:.3e} m, {rv:.3e} m/s); \
         run to run bit for bit"
    );
    if dx <= tol_x && dv <= tol_v && dw <= tol_w && g.step == c.step {
        Ok(line)
    } else {
        Err(format!("outside rounding: {line}"))
    }
}

fn max_diff(a: &[glam::DVec3], b: &[glam::DVec3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (*p - *q).length())
        .fold(0.0, f64::max)
}

/// A count read off the diagnostics.
type Count = fn(&Diagnostics) -> u64;
/// An energy read off the diagnostics, J.
type Energy = fn(&Diagnostics) -> f64;

/// Hardware contract on statistics: each of `g` (GPU) against `c` (CPU f32) within
/// `ROUNDING_FACTOR` times its largest difference of `c` from the rounding references `refs`,
/// plus a floor: `COUNT_SLACK` for the counts, 64 f32 roundings of the energy scale for
/// energies, of the momentum scale for momentum.
pub fn statistics_within_rounding(
    label: &str,
    g: &Diagnostics,
    c: &Diagnostics,
    refs: &[Diagnostics],
) -> Result<String, String> {
    let spread = |f: &dyn Fn(&Diagnostics) -> f64| {
        refs.iter().map(|r| (f(c) - f(r)).abs()).fold(0.0, f64::max)
    };
    let mut bad = Vec::new();
    let counts: [(&str, Count); 2] = [
        ("collisions", |d| d.collisions),
        ("contacts", |d| d.contacts),
    ];
    for (name, f) in counts {
        let r = spread(&|d| f(d) as f64);
        let tol = (ROUNDING_FACTOR * r) as u64 + COUNT_SLACK;
        if f(g).abs_diff(f(c)) > tol {
            bad.push(format!(
                "{name} {} against {} (references: {r}, allowed {tol})",
                f(g),
                f(c)
            ));
        }
    }
    let scale = c.kinetic.abs()
        + c.kinetic_rotational.abs()
        + c.potential_uniform.abs()
        + c.potential_gravity.abs()
        + c.potential_spring.abs()
        + c.dissipated.abs();
    let energies: [(&str, Energy); 4] = [
        ("kinetic", |d| d.kinetic),
        ("rotational kinetic", |d| d.kinetic_rotational),
        ("gravity potential", |d| d.potential_gravity),
        ("dissipated", |d| d.dissipated),
    ];
    for (name, f) in energies {
        let tol = ROUNDING_FACTOR * spread(&|d| f(d)) + 64.0 * EPS * scale;
        if (f(g) - f(c)).abs() > tol {
            bad.push(format!(
                "{name} {:e} against {:e} J (allowed ±{tol:.3e})",
                f(g),
                f(c)
            ));
        }
    }
    let p_spread = refs
        .iter()
        .map(|r| (c.momentum - r.momentum).length())
        .fold(0.0, f64::max);
    let p_tol = ROUNDING_FACTOR * p_spread + 64.0 * EPS * c.momentum_magnitude_sum;
    let dp = (g.momentum - c.momentum).length();
    if dp > p_tol {
        bad.push(format!(
            "momentum differs by {dp:e} (allowed {p_tol:.3e}) kg m/s"
        ));
    }
    let line = format!(
        "{label}: collisions {} / {} (references {:?}), contacts {} / {}, kinetic {:e} / {:e} J \
         (references {:?}), dissipated {:e} / {:e} J, |dp| {dp:.3e} ≤ {p_tol:.3e}",
        g.collisions,
        c.collisions,
        refs.iter().map(|r| r.collisions).collect::<Vec<_>>(),
        g.contacts,
        c.contacts,
        g.kinetic,
        c.kinetic,
        refs.iter().map(|r| r.kinetic).collect::<Vec<_>>(),
        g.dissipated,
        c.dissipated
    );
    if bad.is_empty() {
        Ok(line)
    } else {
        Err(format!("{line}: {}", bad.join("; ")))
    }
}
