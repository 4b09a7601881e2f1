//! Named validation cases (`spheresim validate`): each runs a small scene on one backend and
//! compares what it measures with an exact or analytic answer.
//!
//! A case is a [`Case`] in [`CASES`]: a name, a one-line description, the backends it applies
//! to, and a function that runs it on one backend and returns [`Row`]s — quantity, expected,
//! measured, error, tolerance, pass. Every tolerance is justified where it is set. The CPU
//! backend runs in f64, the GPU backend in f32 (its only precision), the event backend in f64.
//!
//! **Error.** `error = |measured − expected| / scale`, where the scale is stated per row
//! ([`Row::scale`]): the magnitude of the expected value, or a reference such as the approach
//! speed for velocities that may be zero. Counts compare exactly (scale 1, tolerance 0).
//!
//! To add a case: write `fn my_case(backend: Backend) -> Result<Vec<Row>, CaseError>` below,
//! build its scene with the helpers here (or a [`crate::scene::builtin`] scene), step it with
//! [`start`], produce rows with [`Row::new`] (expected value from a formula in
//! [`crate::physics`] or with its source in a comment, tolerance with its reason), and add a
//! [`Case`] to [`CASES`].

use glam::DVec3;

use crate::scene::{
    ContactModel, Plane, Scene, SimParams, Sphere, SphereContainer, Surface, builtin,
};
use crate::{Backend, Precision, SimError, Simulation, Snapshot};

mod cases;

pub use cases::CASES;

/// One compared quantity of one case on one backend.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Row {
    /// Case name.
    pub case: String,
    /// Backend that ran it: `cpu`, `gpu` or `event`.
    pub backend: String,
    /// What is compared, with units and parameters.
    pub quantity: String,
    /// The exact or analytic value.
    pub expected: f64,
    /// What the backend produced.
    pub measured: f64,
    /// The scale the error is relative to (same unit as the values; 1 for counts).
    pub scale: f64,
    /// `|measured − expected| / scale` (NaN when either is not finite).
    pub error: f64,
    /// Largest accepted error.
    pub tolerance: f64,
    /// `error ≤ tolerance`.
    pub pass: bool,
}

impl Row {
    /// A row with `error = |measured − expected| / scale` and `pass = error ≤ tolerance`
    /// (a non-finite value fails).
    pub fn new(
        quantity: impl Into<String>,
        expected: f64,
        measured: f64,
        scale: f64,
        tolerance: f64,
    ) -> Self {
        let error = (measured - expected).abs() / scale;
        Row {
            case: String::new(),
            backend: String::new(),
            quantity: quantity.into(),
            expected,
            measured,
            scale,
            error,
            tolerance,
            pass: error <= tolerance,
        }
    }
}

/// Why a case produced no rows on a backend.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseError {
    /// The backend cannot start here (no GPU adapter).
    Unavailable(String),
    /// The run failed (a simulation error): a failure of the case.
    Failed(String),
}

impl From<SimError> for CaseError {
    fn from(e: SimError) -> Self {
        match e {
            SimError::Gpu(g) => CaseError::Unavailable(g.to_string()),
            e => CaseError::Failed(e.to_string()),
        }
    }
}

/// A named validation case.
pub struct Case {
    /// Name on the command line.
    pub name: &'static str,
    /// One line: what is compared with what, and the source of the expected value.
    pub description: &'static str,
    /// Backends the case applies to.
    pub backends: &'static [Backend],
    /// Runs the case on one backend.
    pub run: fn(Backend) -> Result<Vec<Row>, CaseError>,
}

/// The outcome of one case on one backend.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Case name.
    pub case: &'static str,
    /// Backend.
    pub backend: Backend,
    /// Rows, or why there are none.
    pub result: Result<Vec<Row>, CaseError>,
}

impl Report {
    /// True when the case ran and every row passed.
    pub fn passed(&self) -> bool {
        matches!(&self.result, Ok(rows) if rows.iter().all(|r| r.pass))
    }
}

/// Looks up cases by name; all cases for an empty list.
///
/// # Errors
/// The first unknown name, with the known names.
pub fn select(names: &[String]) -> Result<Vec<&'static Case>, String> {
    if names.is_empty() {
        return Ok(CASES.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            CASES.iter().find(|c| c.name == n).ok_or_else(|| {
                format!(
                    "unknown validation case `{n}`; known cases: {}{}",
                    CASES.iter().map(|c| c.name).collect::<Vec<_>>().join(", "),
                    crate::scene::check::suggestion(n, CASES.iter().map(|c| c.name))
                )
            })
        })
        .collect()
}

/// Runs `case` on `backend` (which must be in `case.backends`), filling in the rows' case and
/// backend names.
pub fn run_case(case: &'static Case, backend: Backend) -> Report {
    let result = (case.run)(backend).map(|mut rows| {
        for r in &mut rows {
            r.case = case.name.to_string();
            r.backend = backend.to_string();
        }
        rows
    });
    Report {
        case: case.name,
        backend,
        result,
    }
}

/// Starts `scene` on `backend`: the CPU in f64, the GPU in f32, the event solver (f64).
pub fn start(scene: &Scene, backend: Backend) -> Result<Simulation, CaseError> {
    let precision = match backend {
        Backend::Gpu => Precision::F32,
        _ => Precision::F64,
    };
    Ok(Simulation::new(scene, backend, precision)?)
}

/// Steps `sim` to the end of its scene and returns the final state.
pub fn finish(sim: &mut Simulation, scene: &Scene) -> Result<Snapshot, CaseError> {
    let left = scene.sim.steps.saturating_sub(sim.steps_done());
    sim.step(left)?;
    Ok(sim.snapshot())
}

/// A free sphere with no material.
pub fn sphere(position: DVec3, velocity: DVec3, radius: f64, mass: f64, e: f64) -> Sphere {
    Sphere {
        position,
        velocity,
        angular_velocity: glam::DVec3::ZERO,
        radius,
        mass,
        restitution: e,
        material: None,
        fixed: false,
        surface: Surface::default(),
        image: [0; 3],
    }
}

/// A fixed sphere (infinite mass) at rest.
pub fn fixed(position: DVec3, radius: f64) -> Sphere {
    Sphere {
        fixed: true,
        mass: f64::INFINITY,
        ..sphere(position, DVec3::ZERO, radius, 1.0, 1.0)
    }
}

/// A plane through `point` with unit normal `normal` (into the domain).
pub fn plane(point: DVec3, normal: DVec3, e: f64) -> Plane {
    Plane {
        point,
        normal: normal.normalize(),
        restitution: e,
        surface: Surface::default(),
        velocity: DVec3::ZERO,
    }
}

/// A scene of these spheres and planes with `dt` (s), `steps` and otherwise default parameters
/// changed by `f`.
pub fn scene(
    name: &str,
    spheres: Vec<Sphere>,
    planes: Vec<Plane>,
    dt: f64,
    steps: u64,
    f: impl FnOnce(&mut SimParams),
) -> Scene {
    let mut sim = SimParams {
        dt,
        steps,
        ..SimParams::default()
    };
    f(&mut sim);
    Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: name.to_string(),
        sim,
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes,
    }
}

/// `s` with the soft contact law `model` and `surface` on every sphere, plane and container
/// and in `[simulation]`.
pub fn soft(mut s: Scene, model: ContactModel, surface: Surface) -> Scene {
    s.sim.contact = model;
    s.sim.surface = surface;
    for sp in &mut s.spheres {
        sp.surface = surface;
    }
    for p in &mut s.planes {
        p.surface = surface;
    }
    for c in &mut s.containers {
        c.surface = surface;
    }
    s
}

/// `n` pairs of spheres (r = 1 and 1.5 cm, 10 and 20 g, e = 0.7, μ = 0.5, E = 10 MPa) meeting
/// off-centre on crossing paths, some already spinning, with no field and no walls, rotation
/// on, under the soft law `model`; dt = 2 µs, 20 000 steps.
pub fn glancing(model: ContactModel, n: usize) -> Scene {
    let surface = Surface {
        youngs_modulus: 1e7,
        poisson_ratio: 0.3,
        friction: 0.5,
        ..Surface::default()
    };
    let r = 0.01;
    let mut spheres = Vec::new();
    // Pairs on crossing paths, each pair offset by half a radius, some already spinning.
    for k in 0..n {
        let y = k as f64 * 5.0 * r;
        let mut a = sphere(DVec3::new(-2.5 * r, y, 0.0), DVec3::X * 1.0, r, 0.01, 0.7);
        let mut b = sphere(
            DVec3::new(2.5 * r, y + 0.5 * r, 0.3 * r),
            DVec3::new(-0.5, 0.1 * k as f64, 0.0),
            1.5 * r,
            0.02,
            0.7,
        );
        a.angular_velocity = DVec3::new(0.0, 30.0 * k as f64, 10.0);
        b.angular_velocity = DVec3::new(-20.0, 0.0, 5.0 * k as f64);
        spheres.push(a);
        spheres.push(b);
    }
    let mut s = soft(
        scene("glancing", spheres, vec![], 2e-6, 20_000, |p| {
            p.rotation = true;
            p.stiffness = 2e4;
        }),
        model,
        surface,
    );
    s.sim.restitution = 0.7;
    s
}

/// A rubber-like surface, E = 10 MPa, ν = 0.45, friction `mu`: soft enough for short runs.
pub fn rubbery(mu: f64) -> Surface {
    Surface {
        youngs_modulus: 1e7,
        poisson_ratio: 0.45,
        friction: mu,
        rolling_friction: 0.0,
    }
}

/// 40 spheres (r = 1 cm, 4 g, e = 0.7) with velocities up to 3 m/s, under gravity, in a
/// spherical container of radius 0.1 m (e = 0.7): impulses at dt = 1e-4 s, or `model` with
/// [`rubbery`]`(0.3)` at dt = 2e-5 s; 500 steps.
pub fn container_gas(model: ContactModel) -> Scene {
    let (r, big) = (0.01, 0.1);
    let mut spheres = Vec::new();
    let mut k = 0u32;
    'fill: for x in -3..=3 {
        for y in -3..=3 {
            for z in -3..=3 {
                let p = DVec3::new(x as f64, y as f64, z as f64) * 0.025;
                if p.length() + r < 0.9 * big {
                    // A fixed pseudo-random velocity per sphere (Knuth's multiplicative hash).
                    let h = |s: u32| (k.wrapping_mul(2_654_435_761).wrapping_add(s) % 1000) as f64;
                    let v = DVec3::new(h(1) - 500.0, h(7) - 500.0, h(13) - 500.0) * 0.006;
                    spheres.push(sphere(p, v, r, 0.004, 0.7));
                    k += 1;
                    if k == 40 {
                        break 'fill;
                    }
                }
            }
        }
    }
    let mut s = scene("container-gas", spheres, vec![], 2e-5, 500, |p| {
        p.gravity = DVec3::new(0.0, -9.81, 0.0)
    });
    s.containers.push(SphereContainer {
        center: DVec3::ZERO,
        radius: big,
        restitution: 0.7,
        surface: Surface::default(),
    });
    if model == ContactModel::Impulse {
        s.sim.dt = 1e-4;
        s
    } else {
        soft(s, model, rubbery(0.3))
    }
}

/// A small built-in scene with `steps` steps.
pub fn small_builtin(name: &str, particles: usize, steps: u64) -> Result<Scene, CaseError> {
    let mut s =
        builtin::build(name, Some(particles)).map_err(|e| CaseError::Failed(e.to_string()))?;
    s.sim.steps = steps;
    Ok(s)
}

/// Formats a value for the table: integers as integers, else 7 significant digits.
pub fn format_value(x: f64) -> String {
    if x.is_finite() && x == x.trunc() && x.abs() < 1e9 {
        format!("{x:.0}")
    } else if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e7) {
        format!("{x:.6e}")
    } else {
        format!("{x:.7}")
    }
}

/// The table's column names.
const COLUMNS: [&str; 8] = [
    "case",
    "backend",
    "quantity",
    "expected",
    "measured",
    "error",
    "tolerance",
    "result",
];

/// The table lines of one report: one per row, or one pointing to note `notes.len() + 1`,
/// which is added to `notes` and says why there are no rows.
fn report_lines(rep: &Report, notes: &mut Vec<String>) -> Vec<[String; 8]> {
    match &rep.result {
        Ok(rows) => rows
            .iter()
            .map(|r| {
                [
                    r.case.clone(),
                    r.backend.clone(),
                    r.quantity.clone(),
                    format_value(r.expected),
                    format_value(r.measured),
                    format!("{:.1e}", r.error),
                    format!("{:.0e}", r.tolerance),
                    if r.pass { "pass" } else { "FAIL" }.into(),
                ]
            })
            .collect(),
        Err(e) => {
            let (what, why) = match e {
                CaseError::Unavailable(w) => ("unavailable", w),
                CaseError::Failed(w) => ("FAIL", w),
            };
            notes.push(format!(
                "[{}] {} on {}: {why}",
                notes.len() + 1,
                rep.case,
                rep.backend
            ));
            vec![[
                rep.case.into(),
                rep.backend.to_string(),
                format!("(no rows: see note {})", notes.len()),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                what.into(),
            ]]
        }
    }
}

/// One table line with the columns padded to `width` (a longer cell pushes the rest right):
/// text left-aligned, numbers right-aligned.
fn format_line(l: &[String; 8], width: &[usize; 8]) -> String {
    let mut line = String::new();
    for (k, (c, &w)) in l.iter().zip(width).enumerate() {
        let pad = " ".repeat(w.saturating_sub(c.chars().count()));
        if (3..7).contains(&k) {
            line.push_str(&pad);
            line.push_str(c);
        } else {
            line.push_str(c);
            if k < 7 {
                line.push_str(&pad);
            }
        }
        if k < 7 {
            line.push_str("  ");
        }
    }
    let mut line = line.trim_end().to_string();
    line.push('\n');
    line
}

/// The reports as an aligned text table (case, backend, quantity, expected, measured, error,
/// tolerance, result), one line per row; unavailable or failed runs get one line pointing to a
/// numbered note below the table that says why.
pub fn table(reports: &[Report]) -> String {
    let mut notes: Vec<String> = Vec::new();
    let mut lines: Vec<[String; 8]> = vec![COLUMNS.map(String::from)];
    for rep in reports {
        lines.extend(report_lines(rep, &mut notes));
    }
    let mut width = [0usize; 8];
    for l in &lines {
        for (w, c) in width.iter_mut().zip(l) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out: String = lines.iter().map(|l| format_line(l, &width)).collect();
    for n in notes {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

/// The table of [`table`] a report at a time, for printing each case's rows as soon as it
/// finishes (a run that is killed has shown what it did). The columns have fixed widths, wide
/// enough for the usual values; a longer cell pushes the rest of its line right. A report's
/// note follows its line at once.
#[derive(Clone, Debug)]
pub struct RowPrinter {
    width: [usize; 8],
    notes: Vec<String>,
}

impl RowPrinter {
    /// A printer whose case column fits the longest of `cases`.
    pub fn new<'a>(cases: impl IntoIterator<Item = &'a str>) -> Self {
        let case = cases.into_iter().map(str::len).max().unwrap_or(0).max(4);
        RowPrinter {
            // expected/measured: format_value's 7 digits with an exponent fit in 13.
            width: [case, 7, 40, 13, 13, 7, 9, 0],
            notes: Vec::new(),
        }
    }

    /// The header line.
    pub fn header(&self) -> String {
        format_line(&COLUMNS.map(String::from), &self.width)
    }

    /// The lines of one report, with its note if it has no rows.
    pub fn report(&mut self, rep: &Report) -> String {
        let before = self.notes.len();
        let mut out: String = report_lines(rep, &mut self.notes)
            .iter()
            .map(|l| format_line(l, &self.width))
            .collect();
        for n in &self.notes[before..] {
            out.push_str(n);
            out.push('\n');
        }
        out
    }
}

/// Which backends `spheresim validate --backend` runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Which {
    /// The CPU reference backend (f64).
    Cpu,
    /// The GPU backend (f32), on whatever adapter opens (lavapipe without a GPU).
    Gpu,
    /// The exact event-driven solver.
    Event,
    /// All three (default).
    #[default]
    All,
}

impl Which {
    /// True when `backend` is among those selected.
    pub fn includes(self, backend: Backend) -> bool {
        self == Which::All
            || matches!(
                (self, backend),
                (Which::Cpu, Backend::Cpu)
                    | (Which::Gpu, Backend::Gpu)
                    | (Which::Event, Backend::Event)
            )
    }
}

/// The (case, backend) runs selected by `which` and case `names` (all cases when empty).
///
/// # Errors
/// An unknown case name (the message names it and lists the known ones).
pub fn plan(which: Which, names: &[String]) -> Result<Vec<(&'static Case, Backend)>, String> {
    Ok(select(names)?
        .into_iter()
        .flat_map(|c| {
            c.backends
                .iter()
                .filter(move |&&b| which.includes(b))
                .map(move |&b| (c, b))
        })
        .collect())
}

/// Whether a backend that cannot start (no GPU adapter) fails the run: always when it was asked
/// for by name (`--backend gpu`), and with `--backend all` when `ci` (the environment has
/// `CI=true`). Otherwise `--backend all` reports it as unavailable and passes on the rest.
pub fn unavailable_fails(which: Which, ci: bool) -> bool {
    which != Which::All || ci
}

/// Counts of a validation run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Rows that passed.
    pub passed: usize,
    /// Rows that failed, plus runs that failed to produce rows.
    pub failed: usize,
    /// Runs whose backend could not start.
    pub unavailable: usize,
}

/// Tallies the reports.
pub fn tally(reports: &[Report]) -> Tally {
    let mut t = Tally::default();
    for r in reports {
        match &r.result {
            Ok(rows) => {
                t.passed += rows.iter().filter(|r| r.pass).count();
                t.failed += rows.iter().filter(|r| !r.pass).count();
            }
            Err(CaseError::Unavailable(_)) => t.unavailable += 1,
            Err(CaseError::Failed(_)) => t.failed += 1,
        }
    }
    t
}

/// All rows of the reports, for `--json`.
pub fn rows(reports: &[Report]) -> Vec<Row> {
    reports
        .iter()
        .filter_map(|r| r.result.as_ref().ok())
        .flatten()
        .cloned()
        .collect()
}

/// The options of `spheresim validate`.
#[derive(Clone, Debug, clap::Args)]
pub struct ValidateArgs {
    /// Backends to validate. Without a GPU adapter, `gpu` fails; `all` reports GPU cases as
    /// unavailable and passes on the rest, unless CI=true, where it fails.
    #[arg(long, value_enum, default_value_t = Which::All)]
    pub backend: Which,
    /// Cases to run (default: all; see --list).
    #[arg(value_name = "CASE")]
    pub cases: Vec<String>,
    /// List the cases and exit.
    #[arg(long)]
    pub list: bool,
    /// Also write every row as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
}

impl ValidateArgs {
    /// Runs [`run_cli`] with these options.
    ///
    /// # Errors
    /// As [`run_cli`].
    pub fn run(&self) -> Result<i32, String> {
        run_cli(self.backend, &self.cases, self.list, self.json.as_deref())
    }
}

/// `spheresim validate`: runs the selected cases on the selected backends, printing one
/// progress line per run to standard error and its rows of the table to standard output as
/// soon as it finishes ([`RowPrinter`]), then a tally;
/// with `json`, also writes every row there (atomically). With `list`, prints the cases instead.
///
/// Returns the exit status: 0 when every row passed, 1 when any failed or a backend was
/// unavailable where that counts as failure ([`unavailable_fails`]; `CI=true` read from the
/// environment).
///
/// # Errors
/// An unknown case name, a selection that runs nothing, or an unwritable `json` path (checked
/// before anything runs).
pub fn run_cli(
    which: Which,
    cases: &[String],
    list: bool,
    json: Option<&std::path::Path>,
) -> Result<i32, String> {
    if list {
        for c in CASES {
            let backends: Vec<String> = c.backends.iter().map(|b| b.to_string()).collect();
            println!("{:<20} [{}]  {}", c.name, backends.join(","), c.description);
        }
        return Ok(0);
    }
    let plan = plan(which, cases)?;
    if plan.is_empty() {
        return Err(format!(
            "no selected case runs on --backend {}",
            format!("{which:?}").to_lowercase()
        ));
    }
    if let Some(p) = json {
        crate::output::check_writable_file(p).map_err(|e| e.to_string())?;
    }
    let mut reports = Vec::new();
    let mut printer = RowPrinter::new(plan.iter().map(|(c, _)| c.name));
    let mut stdout = std::io::stdout();
    print!("{}", printer.header());
    for (case, backend) in plan {
        let t0 = std::time::Instant::now();
        let rep = run_case(case, backend);
        crate::note!(
            "{:<20} {:<6} {:>7.2} s  {}",
            case.name,
            backend.to_string(),
            t0.elapsed().as_secs_f64(),
            match &rep.result {
                Ok(_) if rep.passed() => "pass",
                Err(CaseError::Unavailable(_)) => "unavailable",
                _ => "FAIL",
            }
        );
        print!("{}", printer.report(&rep));
        // Shown now, even when standard output is a pipe and the run is killed later.
        let _ = std::io::Write::flush(&mut stdout);
        reports.push(rep);
    }
    if let Some(p) = json {
        let rows = rows(&reports);
        crate::output::write_atomic(p, |w| {
            serde_json::to_writer_pretty(&mut *w, &rows)?;
            writeln!(w)
        })
        .map_err(|e| e.to_string())?;
    }
    let t = tally(&reports);
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let unavailable_fails = t.unavailable > 0 && unavailable_fails(which, ci);
    println!(
        "{} passed, {} failed, {} unavailable{}",
        t.passed,
        t.failed,
        t.unavailable,
        if t.unavailable == 0 {
            ""
        } else if unavailable_fails {
            " (an unavailable backend is a failure with --backend gpu, or under CI=true)"
        } else {
            " (SKIPPED: not counted as passed)"
        }
    );
    Ok(if t.failed > 0 || unavailable_fails {
        1
    } else {
        0
    })
}
