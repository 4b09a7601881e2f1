//! Scene checking: every value in range, and no deep initial overlaps.
//!
//! [`Scene::check`] runs every value check (simulation, materials, spheres, planes, sphere
//! containers, then that every sphere lies inside every sphere container) and reports all the
//! problems it finds together, each naming the item and the reason: one problem as itself, several
//! as one [`SceneError::Problems`] listing up to [`MAX_REPORTED`] of them, one per line, and
//! counting the rest. Spheres (and planes) with the same problem one after the other are reported
//! once, as a range (`spheres 3 to 999: …`), and a value that is wrong on `[simulation]` or on a
//! material is not reported again on every body that takes it from there. Then, unless
//! [`CheckOptions::allow_overlap`] is set, it looks for spheres that start overlapping by more
//! than [`OVERLAP_TOLERANCE`] of the smaller radius, without comparing all pairs (see
//! [`overlap`]).
//!
//! Numbers in messages are printed by [`fmt_num`]: at most six significant digits, so that
//! `0.05000000000000002` reads `0.05`.

use super::{ContactModel, GravitySolver, Scene, SimParams, Surface};
use glam::DVec3;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

/// Deepest initial overlap [`Scene::check`] accepts, as a fraction of the smaller radius (1 %).
pub const OVERLAP_TOLERANCE: f64 = 0.01;

/// Most spheres a scene may hold: sphere ids are `u32` on the GPU.
pub const MAX_SPHERES: usize = u32::MAX as usize;

/// Most problems one [`SceneError::Problems`] lists; the rest are counted (`… and N more`).
pub const MAX_REPORTED: usize = 20;

/// Options of [`Scene::check`].
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions {
    /// Accept initial overlaps deeper than [`OVERLAP_TOLERANCE`] of the smaller radius
    /// (default: `false`, such overlaps are errors).
    pub allow_overlap: bool,
}

/// Why a scene was rejected. Every message names the item (sphere id, plane id, material name,
/// `[simulation]` key; for scene files also the file, the table and the line of its header) and
/// the reason. No variant has a [`source`](std::error::Error::source): each message is complete
/// on its own, so printing the error chain never repeats a cause.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The scene file could not be read.
    #[error("cannot read scene file {}: {}", path.display(), crate::output::io_reason(error))]
    Io {
        /// The file that was asked for.
        path: PathBuf,
        /// What the operating system said (its message is part of this error's).
        error: std::io::Error,
    },
    /// The file is not valid TOML, has an unknown key, or a value of the wrong type.
    #[error("{file}: {}{message}", location(*line, *column))]
    Toml {
        /// File path, or the scene name for text parsed with [`Scene::from_toml_str`].
        file: String,
        /// 1-based line of the error; 0 when unknown.
        line: usize,
        /// 1-based column (in characters) of the error; 0 when unknown.
        column: usize,
        /// toml's description, e.g. ``unknown field `foo`, expected one of `dt`, …``.
        message: String,
    },
    /// A value is out of range or refers to something that does not exist.
    #[error("{item}: {reason}")]
    Invalid {
        /// The offending item, e.g. `sphere 17`, `spheres 3 to 9`, `plane 2`, `material "foo"`,
        /// `[simulation]`; in a scene file the table and its line, e.g.
        /// `[[particle]] #3 at line 17 (sphere 3)` or `[[block]] #0 at line 30`.
        item: String,
        /// What is wrong, with the value found, e.g. `radius must be positive and finite, got -0.5`.
        reason: String,
    },
    /// The scene has no spheres.
    #[error("scene has no spheres")]
    Empty,
    /// Two spheres start overlapping by more than [`OVERLAP_TOLERANCE`] of the smaller radius.
    #[error("spheres {a} and {b} {}", overlap_reason(*depth, *min_radius))]
    Overlap {
        /// The smaller sphere id of the pair.
        a: usize,
        /// The larger sphere id of the pair.
        b: usize,
        /// Overlap depth `r_a + r_b − |x_b − x_a|`, m.
        depth: f64,
        /// The smaller of the two radii, m.
        min_radius: f64,
    },
    /// Several problems found at once, or problems in a scene file: `ORIGIN: PROBLEM` for one,
    /// else `ORIGIN: N problems:` and then each problem on a line of its own.
    #[error("{}", list(origin, problems, *omitted))]
    Problems {
        /// Where the problems are: the scene file (or the name given to
        /// [`Scene::from_toml_str`]), or `scene NAME`.
        origin: String,
        /// The problems, at most [`MAX_REPORTED`], in file (or check) order; none of them is a
        /// `Problems` itself.
        problems: Vec<SceneError>,
        /// How many more problems were found but are not listed.
        omitted: usize,
    },
    /// Any other reason (for scene builders).
    #[error("{0}")]
    Other(String),
}

/// A scene that passed [`Scene::check`] (which alone makes one): what
/// [`Simulation::new`](crate::Simulation::new) steps. It borrows the scene ([`Scene::check`]) or
/// owns it ([`Scene::into_checked`], [`SceneBuilder::check`](super::SceneBuilder::check)), and
/// reads as the [`Scene`] it holds; there is no way to change the scene through it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedScene<'a>(Cow<'a, Scene>);

impl CheckedScene<'_> {
    /// The scene.
    pub fn scene(&self) -> &Scene {
        &self.0
    }

    /// The scene, cloned if borrowed: to edit it (and check it again).
    pub fn into_scene(self) -> Scene {
        self.0.into_owned()
    }

    /// A checked scene that owns its scene (a clone, if borrowed).
    pub fn into_owned(self) -> CheckedScene<'static> {
        CheckedScene(Cow::Owned(self.0.into_owned()))
    }

    /// This checked scene, borrowed.
    pub fn borrowed(&self) -> CheckedScene<'_> {
        CheckedScene(Cow::Borrowed(&self.0))
    }
}

impl std::ops::Deref for CheckedScene<'_> {
    type Target = Scene;
    fn deref(&self) -> &Scene {
        &self.0
    }
}

/// What [`Simulation::new`](crate::Simulation::new) and its siblings accept: a
/// [`CheckedScene`] (or a reference to one) as it is, or a plain `&Scene`, which they check
/// first with [`CheckOptions`] `{ allow_overlap: true }` and without the rule `steps ≥ 1` (the
/// values the backends rely on; call [`Scene::check`] yourself to have deep initial overlaps
/// refused). Sealed.
pub trait SceneInput<'a>: sealed::Sealed {
    /// The checked scene.
    ///
    /// # Errors
    /// For a `&Scene`, what [`Scene::check`] finds.
    fn into_checked_scene(self) -> Result<CheckedScene<'a>, SceneError>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::CheckedScene<'_> {}
    impl Sealed for &super::CheckedScene<'_> {}
    impl Sealed for &super::Scene {}
}

impl<'a> SceneInput<'a> for CheckedScene<'a> {
    fn into_checked_scene(self) -> Result<CheckedScene<'a>, SceneError> {
        Ok(self)
    }
}

impl<'a> SceneInput<'a> for &'a CheckedScene<'_> {
    fn into_checked_scene(self) -> Result<CheckedScene<'a>, SceneError> {
        Ok(self.borrowed())
    }
}

impl<'a> SceneInput<'a> for &'a Scene {
    fn into_checked_scene(self) -> Result<CheckedScene<'a>, SceneError> {
        self.check_for_backend(&CheckOptions {
            allow_overlap: true,
        })
    }
}

fn location(line: usize, column: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("TOML error at line {line}, column {column}: ")
    }
}

/// What follows "spheres A and B" in an overlap error.
pub(crate) fn overlap_reason(depth: f64, min_radius: f64) -> String {
    format!(
        "overlap by {} m, more than {}% of the smaller radius ({} m); move them apart \
         (or {} to accept initial overlaps)",
        fmt_num(depth),
        fmt_num(OVERLAP_TOLERANCE * 100.0),
        fmt_num(min_radius),
        crate::naming::Setting::AllowOverlap
    )
}

fn list(origin: &str, problems: &[SceneError], omitted: usize) -> String {
    let n = problems.len() + omitted;
    match problems {
        [one] if omitted == 0 => format!("{origin}: {one}"),
        _ => {
            let mut s = format!("{origin}: {n} problems:");
            for p in problems {
                s.push_str("\n  ");
                s.push_str(&p.to_string());
            }
            if omitted > 0 {
                s.push_str(&format!("\n  … and {omitted} more"));
            }
            s
        }
    }
}

impl SceneError {
    /// Shorthand for [`SceneError::Invalid`].
    pub fn invalid(item: impl Into<String>, reason: impl Into<String>) -> Self {
        SceneError::Invalid {
            item: item.into(),
            reason: reason.into(),
        }
    }

    /// The single problems this error reports: the listed ones of [`SceneError::Problems`], else
    /// the error itself.
    pub fn problems(&self) -> &[SceneError] {
        match self {
            SceneError::Problems { problems, .. } => problems,
            e => std::slice::from_ref(e),
        }
    }
}

/// Formats a number for a message: rounded to six significant digits and printed in the
/// shortest form, so that float noise does not show (`0.05000000000000002` → `0.05`).
///
/// Magnitudes from `1e-4` up to below `1e6` are printed as plain decimals without trailing zeros
/// (`0.5`, `101`, `0.0001`, `123457`), others in scientific notation with a trimmed mantissa
/// (`1e9`, `-2e11`, `1.5e-7`, `1e-310`). Zero is `0` (`-0` for negative zero), and NaN and the
/// infinities read `NaN`, `inf` and `-inf`, as Rust prints them.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Round first, then choose the form from the rounded exponent (999999.7 → 1e6).
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    if (-4..6).contains(&exp) {
        let decimals = (5 - exp) as usize;
        trim_zeros(format!("{x:.decimals$}"))
    } else {
        format!("{}e{exp}", trim_zeros(mantissa.to_string()))
    }
}

/// Formats a value as given, for the `got …` of a range error: [`fmt_num`]'s short form when it
/// reads back as the same `f64`, else the shortest digits that do (`1.0000001`, where
/// [`fmt_num`] would print `1` and make `restitution must be in [0, 1], got 1` a riddle).
pub fn fmt_given(x: f64) -> String {
    let short = fmt_num(x);
    if short
        .parse::<f64>()
        .is_ok_and(|y| y.to_bits() == x.to_bits())
        || x.is_nan()
    {
        short
    } else {
        crate::output::csv::fmt_f64(x)
    }
}

/// The known name closest to `given`, if it is close enough to be a likely typo (Jaro–Winkler
/// similarity at least 0.8, as `strsim` computes it; clap suggests at 0.7): for a
/// `did you mean` after an unknown name.
pub fn did_you_mean<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(given, k), k))
        .filter(|&(score, _)| score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// `; did you mean `NAME`?` for [`did_you_mean`]'s answer, else empty.
pub fn suggestion<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(given, known).map_or(String::new(), |k| format!("; did you mean `{k}`?"))
}

/// `1.500` → `1.5`, `2.000` → `2`; integers are left alone.
fn trim_zeros(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A vector for a message: `[x, y, z]` with [`fmt_num`].
pub(crate) fn fmt_vec(v: DVec3) -> String {
    format!("[{}, {}, {}]", fmt_num(v.x), fmt_num(v.y), fmt_num(v.z))
}

/// `key` must be finite and > 0; the reason otherwise.
pub(crate) fn positive(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{key} must be positive and finite, got {}",
            fmt_given(v)
        ))
    }
}

/// `key` must be finite and ≥ 0; the reason otherwise.
pub(crate) fn non_negative(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{key} must be non-negative and finite, got {}",
            fmt_given(v)
        ))
    }
}

/// A restitution coefficient must lie in [0, 1]; the reason otherwise.
pub(crate) fn restitution(v: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "restitution must be in [0, 1], got {}",
            fmt_given(v)
        ))
    }
}

/// Every component of a vector must be finite; the reason otherwise.
pub(crate) fn finite3(key: &str, v: DVec3) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("{key} must be finite, got {}", fmt_vec(v)))
    }
}

/// Elastic constants and friction: Young's modulus positive and finite, Poisson ratio in
/// (−1, 0.5], friction finite and ≥ 0. Every reason that applies.
fn surface_problems(s: &Surface) -> Vec<String> {
    let nu = s.poisson_ratio;
    let poisson = if nu > -1.0 && nu <= 0.5 {
        Ok(())
    } else {
        Err(format!(
            "poisson_ratio must be in (-1, 0.5], got {}",
            fmt_given(nu)
        ))
    };
    [
        positive("youngs_modulus", s.youngs_modulus),
        poisson,
        non_negative("friction", s.friction),
        non_negative("rolling_friction", s.rolling_friction),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect()
}

/// Bitwise equality (so that a NaN equals the same NaN): "this value came from there".
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

fn same_surface(a: &Surface, b: &Surface) -> bool {
    same(a.youngs_modulus, b.youngs_modulus)
        && same(a.poisson_ratio, b.poisson_ratio)
        && same(a.friction, b.friction)
        && same(a.rolling_friction, b.rolling_friction)
}

/// What a problem found by the value checks is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Subject {
    /// `[simulation]`.
    Simulation,
    /// A material, by index into [`Scene::materials`].
    Material(usize),
    /// Spheres `first..=last` (ids).
    Spheres(usize, usize),
    /// Planes `first..=last` (indices into [`Scene::planes`]).
    Planes(usize, usize),
    /// A sphere container, by index.
    Container(usize),
    /// An outflow, by index into [`Scene::outflows`].
    Outflow(usize),
    /// An insertion, by index into [`Scene::inserts`].
    Insert(usize),
    /// The scene has no spheres ([`SceneError::Empty`]).
    Empty,
    /// The scene as a whole ([`SceneError::Other`]).
    Scene,
}

/// One problem: what it is about and what is wrong.
#[derive(Debug)]
pub(crate) struct Problem {
    pub subject: Subject,
    pub reason: String,
}

/// Problems collected by the checks: at most [`MAX_REPORTED`] kept, the rest counted. A sphere
/// (plane) problem with the same reason as the one of the sphere (plane) just before extends its
/// range instead of being listed again.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    pub list: Vec<Problem>,
    /// Problems found but not kept.
    pub omitted: usize,
    /// Index in `list` of the latest range with this (is plane, reason).
    open: HashMap<(bool, String), usize>,
}

impl Problems {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.omitted == 0
    }

    pub fn push(&mut self, subject: Subject, reason: String) {
        let range = match subject {
            Subject::Spheres(i, _) => Some((false, i)),
            Subject::Planes(i, _) => Some((true, i)),
            _ => None,
        };
        let Some((planes, i)) = range else {
            if self.list.len() >= MAX_REPORTED {
                self.omitted += 1;
            } else {
                self.list.push(Problem { subject, reason });
            }
            return;
        };
        let key = (planes, reason);
        if let Some(&k) = self.open.get(&key) {
            if let Subject::Spheres(_, last) | Subject::Planes(_, last) = &mut self.list[k].subject
                && *last + 1 == i
            {
                *last = i;
                return;
            }
        }
        if self.list.len() >= MAX_REPORTED {
            self.omitted += 1;
            return;
        }
        let reason = key.1.clone();
        self.open.insert(key, self.list.len());
        self.list.push(Problem { subject, reason });
    }

    /// Records `r`'s reason, if any, against `subject`; whether `r` was fine.
    pub fn check(&mut self, subject: Subject, r: Result<(), String>) -> bool {
        match r {
            Ok(()) => true,
            Err(reason) => {
                self.push(subject, reason);
                false
            }
        }
    }

    /// Records every reason in `reasons` against `subject`; whether there were none.
    fn check_all(&mut self, subject: Subject, reasons: Vec<String>) -> bool {
        let ok = reasons.is_empty();
        for r in reasons {
            self.push(subject, r);
        }
        ok
    }
}

/// The error for problems found (`items`: sort key, e.g. a file line, and the error of each).
/// Sorted stably by key and cut to [`MAX_REPORTED`]; a single problem is returned as itself
/// unless `wrap_single`, else all are listed under `origin` in a [`SceneError::Problems`].
pub(crate) fn report(
    origin: &str,
    wrap_single: bool,
    mut items: Vec<(usize, SceneError)>,
    mut omitted: usize,
) -> SceneError {
    items.sort_by_key(|(k, _)| *k);
    if items.len() > MAX_REPORTED {
        omitted += items.len() - MAX_REPORTED;
        items.truncate(MAX_REPORTED);
    }
    if !wrap_single && items.len() == 1 && omitted == 0 {
        return items.pop().expect("one item").1;
    }
    SceneError::Problems {
        origin: origin.to_string(),
        problems: items.into_iter().map(|(_, e)| e).collect(),
        omitted,
    }
}

/// The `[simulation]` checks; whether its restitution and its surface were fine.
fn check_sim(p: &SimParams, run: bool, out: &mut Problems) -> (bool, bool) {
    let s = Subject::Simulation;
    out.check(s, positive("dt", p.dt));
    if run && p.steps == 0 {
        out.push(s, "steps must be at least 1, got 0".to_string());
    }
    out.check(s, finite3("gravity", p.gravity));
    out.check(s, non_negative("G", p.g_const));
    out.check(s, non_negative("softening", p.softening));
    out.check(s, positive("stiffness", p.stiffness));
    out.check(s, non_negative("drag", p.drag));
    if let Some(skin) = p.skin {
        out.check(s, non_negative("skin", skin));
    }
    let max_theta = crate::cpu::tree::MAX_THETA;
    if !(p.theta > 0.0 && p.theta <= max_theta) {
        out.push(
            s,
            format!(
                "theta (the tree's opening angle) must be in (0, {}], got {}",
                fmt_num(max_theta),
                fmt_given(p.theta)
            ),
        );
    }
    if p.gravity_solver == GravitySolver::Tree
        && p.g_const.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
    {
        out.push(
            s,
            format!(
                "gravity_solver = \"tree\" needs mutual gravity, but G is {}; set G > 0 or \
                 use the default solver",
                fmt_num(p.g_const)
            ),
        );
    }
    let restitution_ok = out.check(s, restitution(p.restitution));
    let surface_ok = out.check_all(s, surface_problems(&p.surface));
    (restitution_ok, surface_ok)
}

impl Scene {
    /// Checks every value of the scene and, unless `opts.allow_overlap`, that no two spheres start
    /// overlapping by more than [`OVERLAP_TOLERANCE`] of the smaller radius.
    ///
    /// All value problems are reported together: one as itself ([`SceneError::Invalid`],
    /// [`SceneError::Empty`], [`SceneError::Other`]), several as [`SceneError::Problems`] in a
    /// fixed order (simulation, materials, spheres, planes, sphere containers, containment; at
    /// most [`MAX_REPORTED`] listed). Only a scene whose values are all fine is searched for
    /// overlaps; of several overlapping pairs the one with the smallest `(a, b)` is reported
    /// ([`SceneError::Overlap`]), so the same scene always gives the same error.
    ///
    /// Ranges: `dt`, radii (of spheres and containers), masses (except of fixed spheres),
    /// `stiffness`, densities and Young's moduli positive and finite; `steps ≥ 1`; `G`,
    /// `softening`, `drag` and friction coefficients finite and ≥ 0; restitutions in [0, 1];
    /// Poisson ratios in (−1, 0.5]; positions, velocities, gravity, plane points and container
    /// centres finite; plane normals of unit length; material indices in range; at least one
    /// sphere. Surfaces (E, ν, μ) are checked on `[simulation]`, every material, sphere, plane and
    /// container; a body whose surface (or restitution) is that of a `[simulation]` or material
    /// already reported is not reported again.
    ///
    /// Containment is checked whatever `opts` says: every sphere, fixed ones included, must lie
    /// inside every sphere container, `|x − c| + r ≤ R_W`, up to [`OVERLAP_TOLERANCE`] of the
    /// smaller of `r` and `R_W` (for spheres and containers whose values are fine).
    ///
    /// Cost: O(N) for the values, O(N × containers) for containment; the overlap search bins the
    /// spheres into hashed uniform grids (one per radius class) and runs in parallel, about O(N)
    /// for scenes whose radii vary little.
    ///
    /// On success, the [`CheckedScene`] that [`Simulation::new`](crate::Simulation::new) takes:
    /// the only way to make one.
    pub fn check(&self, opts: &CheckOptions) -> Result<CheckedScene<'_>, SceneError> {
        self.check_values(opts, true)?;
        Ok(CheckedScene(Cow::Borrowed(self)))
    }

    /// [`Scene::check`] for [`Simulation::new`](crate::Simulation::new) given a plain `&Scene`:
    /// `steps` may be 0 there, since the caller says how many steps to take.
    pub(crate) fn check_for_backend(
        &self,
        opts: &CheckOptions,
    ) -> Result<CheckedScene<'_>, SceneError> {
        self.check_values(opts, false)?;
        Ok(CheckedScene(Cow::Borrowed(self)))
    }

    /// The scene as an open-system pass left it (a checkpoint's scene in a run with outflows
    /// or insertions), taken as checked: it passed the checks when the run began, and since
    /// then its spheres moved (a sphere pressed into a container's wall may be deeper than the
    /// check allows) and outflows changed its sizes, as the running backend already took.
    pub(crate) fn checked_mid_run(&self) -> CheckedScene<'_> {
        CheckedScene(Cow::Borrowed(self))
    }

    /// [`Scene::check`], keeping the scene: a [`CheckedScene`] that owns it.
    ///
    /// # Errors
    /// As [`Scene::check`].
    pub fn into_checked(self, opts: &CheckOptions) -> Result<CheckedScene<'static>, SceneError> {
        self.check(opts)?;
        Ok(CheckedScene(Cow::Owned(self)))
    }

    fn check_values(&self, opts: &CheckOptions, run: bool) -> Result<(), SceneError> {
        let problems = self.problems_of(run);
        if !problems.is_empty() {
            let items = problems
                .list
                .into_iter()
                .map(|p| (0, self.plain_error(p)))
                .collect();
            let origin = if self.name.is_empty() {
                "scene".to_string()
            } else {
                format!("scene {}", self.name)
            };
            return Err(report(&origin, false, items, problems.omitted));
        }
        if opts.allow_overlap {
            return Ok(());
        }
        match overlap::first_overlap_in(&self.spheres, OVERLAP_TOLERANCE, &self.sim.periodic) {
            Some(o) => Err(SceneError::Overlap {
                a: o.a,
                b: o.b,
                depth: o.depth,
                min_radius: o.min_radius,
            }),
            None => Ok(()),
        }
    }

    /// The item a problem is about, as [`Scene::check`] names it: `[simulation]`,
    /// `material "steel"`, `sphere 3`, `spheres 3 to 9`, `plane 2`, `sphere_container 0`.
    pub(crate) fn plain_name(&self, subject: Subject) -> String {
        let range = |what: &str, a: usize, b: usize| {
            if a == b {
                format!("{what} {a}")
            } else {
                format!("{what}s {a} to {b}")
            }
        };
        match subject {
            Subject::Simulation => "[simulation]".to_string(),
            Subject::Material(i) => match self.materials.get(i) {
                Some(m) => format!("material {:?}", m.name),
                None => format!("material {i}"),
            },
            Subject::Spheres(a, b) => range("sphere", a, b),
            Subject::Planes(a, b) => range("plane", a, b),
            Subject::Container(k) => format!("sphere_container {k}"),
            Subject::Outflow(k) => format!("outflow {k}"),
            Subject::Insert(k) => format!("insert {k}"),
            Subject::Empty | Subject::Scene => "scene".to_string(),
        }
    }

    /// A problem as the error [`Scene::check`] reports, named by [`Scene::plain_name`].
    fn plain_error(&self, p: Problem) -> SceneError {
        match p.subject {
            Subject::Empty => SceneError::Empty,
            Subject::Scene => SceneError::Other(p.reason),
            s => SceneError::invalid(self.plain_name(s), p.reason),
        }
    }

    /// Every value problem of the scene, containment included (see [`Scene::check`]).
    pub(crate) fn problems(&self) -> Problems {
        self.problems_of(true)
    }

    /// [`Scene::problems`]; `steps` (the length of a run, not read by a backend) only when
    /// `run`.
    fn problems_of(&self, run: bool) -> Problems {
        let mut out = Problems::default();
        // Values already reported where they come from: not reported again on each body.
        let mut bad_surfaces: Vec<Surface> = Vec::new();
        let mut bad_restitutions: Vec<f64> = Vec::new();
        let (restitution_ok, surface_ok) = check_sim(&self.sim, run, &mut out);
        for (k, o) in self.outflows.iter().enumerate() {
            if let Some(reason) = o.problem() {
                out.push(Subject::Outflow(k), reason);
            }
        }
        for (k, i) in self.inserts.iter().enumerate() {
            if let Some(reason) = i.problem() {
                out.push(Subject::Insert(k), reason);
            }
        }
        if self.sim.wall_forces {
            if self.sim.contact == ContactModel::Impulse {
                out.push(
                    Subject::Simulation,
                    "wall_forces needs a soft contact law (contact = \"spring-dashpot\" or \
                     \"hertz\"): impulses have no force to record"
                        .to_string(),
                );
            }
            if self.planes.is_empty() && self.containers.is_empty() {
                out.push(
                    Subject::Simulation,
                    "wall_forces = true, but the scene has no plane or container to record"
                        .to_string(),
                );
            }
        }
        // A skin beyond the largest diameter lists far more pairs than can ever touch (its
        // list grows as the cube of the skin).
        let r_max = self.spheres.iter().map(|p| p.radius).fold(0.0, f64::max);
        if let Some(skin) = self.sim.skin.filter(|s| s.is_finite() && r_max > 0.0) {
            if skin > 2.0 * r_max {
                out.push(
                    Subject::Simulation,
                    format!(
                        "skin must be at most the largest sphere diameter ({}), got {}",
                        fmt_num(2.0 * r_max),
                        fmt_given(skin)
                    ),
                );
            }
        }
        if !restitution_ok {
            bad_restitutions.push(self.sim.restitution);
        }
        if !surface_ok {
            bad_surfaces.push(self.sim.surface);
        }
        for (i, m) in self.materials.iter().enumerate() {
            let s = Subject::Material(i);
            if !out.check(s, restitution(m.restitution)) {
                bad_restitutions.push(m.restitution);
            }
            out.check(s, positive("density", m.density));
            let surface = Surface::of(m);
            if !out.check_all(s, surface_problems(&surface)) {
                bad_surfaces.push(surface);
            }
        }
        let reported_surface = |s: &Surface| bad_surfaces.iter().any(|b| same_surface(b, s));
        let reported_restitution = |e: f64| bad_restitutions.iter().any(|&b| same(b, e));

        if self.spheres.is_empty() {
            out.push(Subject::Empty, String::new());
        }
        if self.spheres.len() > MAX_SPHERES {
            out.push(
                Subject::Scene,
                format!(
                    "scene has {} spheres, more than the {MAX_SPHERES} supported",
                    self.spheres.len()
                ),
            );
            return out;
        }
        // Ids of spheres with a problem, ascending: left out of the containment check.
        let mut bad_spheres: Vec<usize> = Vec::new();
        for (i, s) in self.spheres.iter().enumerate() {
            let subject = Subject::Spheres(i, i);
            let mut ok = out.check(subject, finite3("position", s.position));
            ok &= out.check(subject, finite3("velocity", s.velocity));
            ok &= out.check(subject, finite3("angular_velocity", s.angular_velocity));
            if s.fixed && s.angular_velocity != DVec3::ZERO {
                out.push(
                    subject,
                    "angular_velocity must be zero for a fixed sphere (fixed spheres do not \
                     rotate)"
                        .to_string(),
                );
                ok = false;
            }
            ok &= out.check(subject, positive("radius", s.radius));
            if !s.fixed {
                ok &= out.check(subject, positive("mass", s.mass));
            }
            if !reported_restitution(s.restitution) {
                ok &= out.check(subject, restitution(s.restitution));
            }
            if let Some(m) = s.material
                && m >= self.materials.len()
            {
                out.push(
                    subject,
                    format!(
                        "material index {m} out of range (the scene has {} materials)",
                        self.materials.len()
                    ),
                );
                ok = false;
            }
            if !reported_surface(&s.surface) {
                ok &= out.check_all(subject, surface_problems(&s.surface));
            }
            if !ok {
                bad_spheres.push(i);
            }
        }
        for (i, p) in self.planes.iter().enumerate() {
            let subject = Subject::Planes(i, i);
            out.check(subject, finite3("point", p.point));
            if out.check(subject, finite3("normal", p.normal)) {
                let len = p.normal.length();
                if len == 0.0 {
                    out.push(subject, "normal has zero length".to_string());
                } else if (len - 1.0).abs() > 1e-9 {
                    out.push(
                        subject,
                        format!("normal must have unit length, got length {}", fmt_num(len)),
                    );
                }
            }
            // A velocity along the normal would move the plane, which the walls never do.
            if out.check(subject, finite3("velocity", p.velocity)) && p.normal.is_finite() {
                let along = p.velocity.dot(p.normal.normalize_or_zero());
                if along.abs() > 1e-6 * p.velocity.length() {
                    out.push(
                        subject,
                        format!(
                            "velocity must lie in the plane (a plane moves only along itself), \
                             but its component along the normal is {} m/s",
                            fmt_num(along)
                        ),
                    );
                }
            }
            if !reported_restitution(p.restitution) {
                out.check(subject, restitution(p.restitution));
            }
            if !reported_surface(&p.surface) {
                out.check_all(subject, surface_problems(&p.surface));
            }
        }
        let mut bad_containers: Vec<usize> = Vec::new();
        for (k, c) in self.containers.iter().enumerate() {
            let subject = Subject::Container(k);
            let mut ok = out.check(subject, finite3("center", c.center));
            ok &= out.check(subject, positive("radius", c.radius));
            if !reported_restitution(c.restitution) {
                out.check(subject, restitution(c.restitution));
            }
            if !reported_surface(&c.surface) {
                out.check_all(subject, surface_problems(&c.surface));
            }
            if !ok {
                bad_containers.push(k);
            }
        }
        self.check_containment(&bad_spheres, &bad_containers, &mut out);
        if self.sim.periodic.any() {
            self.check_periodic(&bad_spheres, &mut out);
        }
        for (i, sp) in self.spheres.iter().enumerate() {
            let axes = self.sim.periodic.axes;
            if let Some(a) = (0..3).find(|&a| sp.image[a] != 0 && !axes[a]) {
                out.push(
                    Subject::Spheres(i, i),
                    format!(
                        "image [{}, {}, {}] counts box lengths crossed along {}, which is not a \
                         periodic axis (docs/open-systems.md)",
                        sp.image[0],
                        sp.image[1],
                        sp.image[2],
                        ["x", "y", "z"][a]
                    ),
                );
            }
        }
        out
    }

    /// Periodic boundaries (docs/open-systems.md): a box of positive, finite edges on the
    /// periodic axes, more than twice a contact's reach `2 r_max + s` long (so that a sphere
    /// meets at most one image of another, and none of itself); every centre in `[min, max)`;
    /// planes parallel to the periodic axes; no sphere container, mutual gravity or large sphere
    /// (radius over [`crate::setup::LARGE_RADIUS_RATIO`] times the median), which the grid's
    /// periodic cells do not handle.
    fn check_periodic(&self, bad_spheres: &[usize], out: &mut Problems) {
        let p = &self.sim.periodic;
        let s = Subject::Simulation;
        let axis = ["x", "y", "z"];
        // Insertions bring their sizes into the box later.
        let r_max = self
            .spheres
            .iter()
            .map(|p| p.radius)
            .chain(self.inserts.iter().map(|i| i.sizes.largest()))
            .fold(0.0, f64::max);
        let reach = 2.0 * r_max + self.skin();
        let mut box_ok = true;
        for a in (0..3).filter(|&a| p.axes[a]) {
            let (lo, hi) = (p.min[a], p.max[a]);
            if !(lo.is_finite() && hi.is_finite() && hi > lo) {
                out.push(
                    s,
                    format!(
                        "[domain] must give finite min < max on the periodic axis {}, got min {} \
                         and max {}",
                        axis[a],
                        fmt_given(lo),
                        fmt_given(hi)
                    ),
                );
                box_ok = false;
            } else if reach.is_finite() && hi - lo <= 2.0 * reach {
                out.push(
                    s,
                    format!(
                        "the periodic box is {} m long along {}, but must be longer than twice \
                         the contact reach 2 r_max + skin = {} m, so that a sphere meets one \
                         image of another",
                        fmt_num(hi - lo),
                        axis[a],
                        fmt_num(reach)
                    ),
                );
            }
        }
        if self.sim.g_const > 0.0 {
            out.push(
                s,
                "periodic boundaries cannot run with mutual gravity (G > 0): neither the direct \
                 sum nor the tree sums the periodic images (Ewald summation is out of scope)"
                    .to_string(),
            );
        }
        for k in 0..self.containers.len() {
            out.push(
                Subject::Container(k),
                "a sphere container cannot stand in a periodic box; use planes parallel to \
                 the periodic axes"
                    .to_string(),
            );
        }
        for (i, pl) in self.planes.iter().enumerate() {
            let n = pl.normal.normalize_or_zero();
            if let Some(a) = (0..3).find(|&a| p.axes[a] && n[a].abs() > 1e-12) {
                out.push(
                    Subject::Planes(i, i),
                    format!(
                        "a plane must be parallel to the periodic axes, but its normal has a \
                         component along the periodic axis {}",
                        axis[a]
                    ),
                );
            }
        }
        if !box_ok || self.spheres.is_empty() {
            return;
        }
        self.check_periodic_inserts(out);
        let radii: Vec<f64> = self.spheres.iter().map(|s| s.radius).collect();
        let small = crate::setup::small_radius_max(&radii);
        for (i, sp) in self.spheres.iter().enumerate() {
            if bad_spheres.binary_search(&i).is_ok() {
                continue;
            }
            let subject = Subject::Spheres(i, i);
            if let Some(a) = (0..3)
                .find(|&a| p.axes[a] && !(p.min[a] <= sp.position[a] && sp.position[a] < p.max[a]))
            {
                out.push(
                    subject,
                    format!(
                        "the centre must lie in the periodic box [min, max) along {}",
                        axis[a]
                    ),
                );
            }
            if sp.radius > small {
                out.push(
                    subject,
                    format!(
                        "a periodic box takes no large sphere (radius over {} times the median \
                         radius), and this one's radius is {} m",
                        crate::setup::LARGE_RADIUS_RATIO,
                        fmt_num(sp.radius)
                    ),
                );
            }
        }
    }

    /// Insertions into a periodic box: no sphere that one makes may ever be large, whatever
    /// the median radius is by then, so the largest radius present or inserted is at most
    /// [`crate::setup::LARGE_RADIUS_RATIO`] times the smallest.
    fn check_periodic_inserts(&self, out: &mut Problems) {
        let radii = self.spheres.iter().map(|s| s.radius);
        let smallest = radii
            .clone()
            .chain(self.inserts.iter().map(|i| i.sizes.smallest()))
            .fold(f64::INFINITY, f64::min);
        let ratio = crate::setup::LARGE_RADIUS_RATIO;
        for (k, i) in self.inserts.iter().enumerate() {
            let largest = i.sizes.largest();
            if largest > ratio * smallest {
                out.push(
                    Subject::Insert(k),
                    format!(
                        "in a periodic box an insertion's radii must stay within {ratio} times \
                         the smallest radius present or inserted ({} m), so that no sphere is \
                         ever large, but this one inserts radius {} m",
                        fmt_num(smallest),
                        fmt_num(largest)
                    ),
                );
            }
        }
        if self.inserts.is_empty() {
            return;
        }
        if let Some(i) = self
            .spheres
            .iter()
            .position(|s| s.radius > ratio * smallest)
        {
            out.push(
                Subject::Spheres(i, i),
                format!(
                    "in a periodic box with insertions every radius must stay within {ratio} \
                     times the smallest radius present or inserted ({} m), but this sphere's \
                     is {} m",
                    fmt_num(smallest),
                    fmt_num(self.spheres[i].radius)
                ),
            );
        }
    }

    /// Every sphere inside every sphere container: `|x − c| + r ≤ R_W` up to
    /// [`OVERLAP_TOLERANCE`] of the smaller of `r` and `R_W`. By sphere id, then container index.
    /// Spheres and containers listed as bad (ascending) are skipped: their values may not be
    /// finite.
    fn check_containment(
        &self,
        bad_spheres: &[usize],
        bad_containers: &[usize],
        out: &mut Problems,
    ) {
        if self.containers.len() == bad_containers.len() {
            return;
        }
        for (i, s) in self.spheres.iter().enumerate() {
            if bad_spheres.binary_search(&i).is_ok() {
                continue;
            }
            for (k, c) in self.containers.iter().enumerate() {
                if bad_containers.binary_search(&k).is_ok() {
                    continue;
                }
                let distance = (s.position - c.center).length();
                let reach = distance + s.radius;
                let allowed = c.radius + OVERLAP_TOLERANCE * s.radius.min(c.radius);
                // Finite positions may still be so far apart that `reach` is infinite: rejected.
                if reach <= allowed {
                    continue;
                }
                if out.list.len() >= MAX_REPORTED {
                    // Each message has its own numbers: nothing to merge, only to count.
                    out.omitted += 1;
                    continue;
                }
                out.push(
                    Subject::Spheres(i, i),
                    format!(
                        "not inside sphere_container {k}: distance from its center {} m \
                         + radius {} m = {} m exceeds the container radius {} m by more \
                         than {}% of the smaller radius (container center {})",
                        fmt_num(distance),
                        fmt_num(s.radius),
                        fmt_num(reach),
                        fmt_num(c.radius),
                        fmt_num(OVERLAP_TOLERANCE * 100.0),
                        fmt_vec(c.center)
                    ),
                );
            }
        }
    }
}

/// The overlap search, moved to [`crate::scene::overlap`]; kept here so that the old path
/// `scene::check::overlap` still works.
pub use super::overlap;

#[cfg(test)]
mod tests {
    use crate::scene::{CheckOptions, Plane, Scene, SphereContainer, Surface};
    use glam::DVec3;

    use crate::scene::test_sphere as sphere;

    #[test]
    fn fmt_num_rounds_to_six_digits_in_the_shortest_form() {
        use super::fmt_num;
        for (x, want) in [
            (0.05000000000000002, "0.05"),
            (0.1 + 0.2, "0.3"),
            (1.0, "1"),
            (-0.5, "-0.5"),
            (101.0, "101"),
            (5.02, "5.02"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e6"),
            (999999.7, "1e6"),
            (99999.97, "100000"),
            (0.0001, "0.0001"),
            (0.00001, "1e-5"),
            (1.5e-7, "1.5e-7"),
            (-1e9, "-1e9"),
            (-200e9, "-2e11"),
            (6.674e-11, "6.674e-11"),
            (1e-310, "1e-310"),
            (std::f64::consts::PI, "3.14159"),
            (0.0, "0"),
            (-0.0, "-0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(fmt_num(x), want, "{x:e}");
        }
    }

    /// Every value problem is reported, spheres with the same problem as one range, and a bad
    /// `[simulation]` value is not reported again on every sphere that takes it.
    #[test]
    fn all_problems_are_reported_together() {
        let mut scene = Scene {
            name: "s".into(),
            spheres: (0..6)
                .map(|i| sphere(DVec3::X * (3.0 * i as f64), 1.0, false))
                .collect(),
            ..Scene::default()
        };
        scene.check(&CheckOptions::default()).unwrap();
        for s in &mut scene.spheres[1..4] {
            s.radius = -1.0;
        }
        scene.spheres[5].mass = 0.1 + 0.2 - 0.3 - 1.0;
        scene.sim.restitution = 2.0;
        scene.sim.surface.friction = -1.0;
        for s in &mut scene.spheres {
            s.surface = scene.sim.surface;
        }
        let e = scene.check(&CheckOptions::default()).unwrap_err();
        assert_eq!(e.problems().len(), 4, "{e}");
        assert_eq!(
            e.to_string(),
            "scene s: 4 problems:\n  \
             [simulation]: restitution must be in [0, 1], got 2\n  \
             [simulation]: friction must be non-negative and finite, got -1\n  \
             spheres 1 to 3: radius must be positive and finite, got -1\n  \
             sphere 5: mass must be positive and finite, got -1"
        );
    }

    /// At most MAX_REPORTED problems are listed, the rest counted.
    #[test]
    fn problems_beyond_the_cap_are_counted() {
        let scene = Scene {
            spheres: (0..30)
                .map(|i| sphere(DVec3::X * (3.0 * i as f64), -(1.0 + i as f64), false))
                .collect(),
            ..Scene::default()
        };
        let msg = scene
            .check(&CheckOptions::default())
            .unwrap_err()
            .to_string();
        let lines: Vec<&str> = msg.lines().collect();
        assert_eq!(lines[0], "scene: 30 problems:");
        assert_eq!(lines.len(), 1 + super::MAX_REPORTED + 1, "{msg}");
        assert_eq!(
            lines[1],
            "  sphere 0: radius must be positive and finite, got -1"
        );
        assert_eq!(lines[21], "  … and 10 more");
    }

    fn message(scene: &Scene) -> String {
        scene
            .check(&CheckOptions {
                allow_overlap: true,
            })
            .unwrap_err()
            .to_string()
    }

    /// Surfaces of built scenes (not only of files) are checked on every body, naming it.
    #[test]
    fn bad_surfaces_name_the_body() {
        let container = |surface| SphereContainer {
            center: DVec3::ZERO,
            radius: 10.0,
            restitution: 1.0,
            surface,
        };
        let mut scene = Scene {
            spheres: vec![
                sphere(DVec3::ZERO, 1.0, false),
                sphere(DVec3::X * 3.0, 1.0, false),
            ],
            planes: vec![Plane {
                point: DVec3::NEG_Y * 5.0,
                normal: DVec3::Y,
                restitution: 1.0,
                surface: Surface::default(),
                velocity: DVec3::ZERO,
            }],
            containers: vec![container(Surface::default())],
            ..Scene::default()
        };
        scene.check(&CheckOptions::default()).unwrap();

        let mut bad = scene.clone();
        bad.spheres[1].surface.youngs_modulus = f64::NAN;
        assert_eq!(
            message(&bad),
            "sphere 1: youngs_modulus must be positive and finite, got NaN"
        );
        let mut bad = scene.clone();
        bad.planes[0].surface.poisson_ratio = -1.0;
        assert_eq!(
            message(&bad),
            "plane 0: poisson_ratio must be in (-1, 0.5], got -1"
        );
        let mut bad = scene.clone();
        bad.containers[0].surface.friction = -0.5;
        assert_eq!(
            message(&bad),
            "sphere_container 0: friction must be non-negative and finite, got -0.5"
        );
        let mut bad = scene.clone();
        bad.sim.surface.friction = f64::INFINITY;
        assert_eq!(
            message(&bad),
            "[simulation]: friction must be non-negative and finite, got inf"
        );

        // Containment holds for overlapping scenes too, and is checked whatever the options say.
        scene.containers.push(SphereContainer {
            center: DVec3::X,
            ..container(Surface::default())
        });
        scene.containers[1].radius = 2.5;
        // Sphere 0 lies inside (1 + 1 ≤ 2.5), sphere 1 does not (2 + 1 > 2.5).
        assert_eq!(
            message(&scene),
            "sphere 1: not inside sphere_container 1: distance from its center 2 m + radius 1 m \
             = 3 m exceeds the container radius 2.5 m by more than 1% of the smaller radius \
             (container center [1, 0, 0])"
        );
        scene.containers[1].radius = 3.0;
        scene.check(&CheckOptions::default()).unwrap();
    }

    /// The containment tolerance is 1 % of the smaller radius, which may be the container's.
    #[test]
    fn containment_tolerance_uses_the_smaller_radius() {
        let scene = |x: f64, r: f64, wall: f64| Scene {
            spheres: vec![sphere(DVec3::X * x, r, false)],
            containers: vec![SphereContainer {
                center: DVec3::ZERO,
                radius: wall,
                restitution: 1.0,
                surface: Surface::default(),
            }],
            ..Scene::default()
        };
        let ok = |s: Scene| s.check(&CheckOptions::default()).is_ok();
        assert!(ok(scene(4.0, 1.0, 5.0)));
        assert!(ok(scene(4.009, 1.0, 5.0)));
        assert!(!ok(scene(4.011, 1.0, 5.0)));
        // A sphere larger than its container: tolerance 1 % of R_W.
        assert!(ok(scene(0.0, 1.0095, 1.0)));
        assert!(!ok(scene(0.0, 1.011, 1.0)));
    }
}
