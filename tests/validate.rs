//! Every validation case (`spheresim validate`) through the library, on every backend it
//! applies to: CPU and event always; GPU on whatever adapter opens (lavapipe without a GPU),
//! failing under CI=true when none does and printing SKIPPED otherwise.

mod common;

use common::gpu_available;

use spheresim::Backend;
use spheresim::validate::{self, CASES, Case, CaseError, Row, Which};

/// Runs every case that applies to `backend` and that `pick` selects, and asserts that each
/// produced rows and all pass.
/// The cases run side by side (each on its own simulation; on the GPU each on its own device):
/// one small case keeps about one core busy.
fn cases_pass_on(backend: Backend, pick: impl Fn(&Case) -> bool + Sync) {
    use rayon::prelude::*;
    let reports: Vec<_> = CASES
        .par_iter()
        .filter(|c| c.backends.contains(&backend) && pick(c))
        .map(|case| validate::run_case(case, backend))
        .collect();
    assert!(!reports.is_empty());
    let table = validate::table(&reports);
    eprintln!("{table}");
    for r in &reports {
        assert!(r.passed(), "{} on {backend} failed:\n{table}", r.case);
    }
}

/// The Barnes–Hut cases: the slowest on lavapipe, so a test of their own that runs beside the
/// other GPU cases.
fn is_tree(case: &Case) -> bool {
    case.name.starts_with("tree-")
}

#[test]
fn every_case_passes_on_the_cpu() {
    cases_pass_on(Backend::Cpu, |_| true);
}

#[test]
fn every_case_passes_on_the_event_solver() {
    cases_pass_on(Backend::Event, |_| true);
}

#[test]
fn every_case_but_the_trees_passes_on_the_gpu() {
    if gpu_available() {
        cases_pass_on(Backend::Gpu, |c| !is_tree(c));
    }
}

#[test]
fn the_tree_cases_pass_on_the_gpu() {
    if gpu_available() {
        cases_pass_on(Backend::Gpu, is_tree);
    }
}

#[test]
fn a_row_fails_beyond_its_tolerance_and_on_non_finite_values() {
    let r = Row::new("x", 1.0, 1.1, 1.0, 0.05);
    assert!(!r.pass && (r.error - 0.1).abs() < 1e-12);
    assert!(Row::new("x", 1.0, 1.04, 1.0, 0.05).pass);
    assert!(!Row::new("x", 1.0, f64::NAN, 1.0, 1e9).pass);
    assert!(
        !Row::new("x", 3.0, 4.0, 1.0, 0.0).pass,
        "counts compare exactly"
    );
}

#[test]
fn plan_selects_cases_and_backends() {
    let all = validate::plan(Which::All, &[]).unwrap();
    let total: usize = CASES.iter().map(|c| c.backends.len()).sum();
    assert_eq!(all.len(), total);
    let event =
        validate::plan(Which::Event, &["pi-digits".into(), "circular-orbit".into()]).unwrap();
    assert_eq!(
        event.len(),
        1,
        "circular-orbit has no event run (mutual gravity)"
    );
    assert_eq!(event[0].0.name, "pi-digits");
    let err = validate::plan(Which::All, &["bounce-apex".into(), "no-such-case".into()])
        .err()
        .unwrap();
    assert!(
        err.contains("no-such-case") && err.contains("bounce-apex"),
        "{err}"
    );
    let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(names.len(), unique.len(), "case names are unique");
}

#[test]
fn unavailable_backends_fail_when_asked_for_or_under_ci() {
    assert!(validate::unavailable_fails(Which::Gpu, false));
    assert!(validate::unavailable_fails(Which::All, true));
    assert!(!validate::unavailable_fails(Which::All, false));
    let rep = validate::Report {
        case: "gpu-vs-cpu",
        backend: Backend::Gpu,
        result: Err(CaseError::Unavailable("no adapter".into())),
    };
    assert!(!rep.passed(), "an unavailable run never counts as passed");
    let t = validate::tally(std::slice::from_ref(&rep));
    assert_eq!((t.passed, t.failed, t.unavailable), (0, 0, 1));
    let table = validate::table(&[rep]);
    assert!(
        table.contains("unavailable") && table.contains("no adapter"),
        "{table}"
    );
}
