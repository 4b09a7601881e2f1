//! `spheresim validate` and `spheresim run pi-blocks` end to end: listing, unknown names, exit
//! status, the table, and the collision count in the summary and stats JSON.

use std::process::{Command, Output};

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_spheresim"));
    c.args(args).env_remove("CI");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("spawn spheresim")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn list_names_every_case() {
    let o = run(&["validate", "--list"], &[]);
    assert!(o.status.success());
    let out = text(&o.stdout);
    for c in spheresim::validate::CASES {
        assert!(out.contains(c.name), "{} missing from:\n{out}", c.name);
    }
}

#[test]
fn unknown_case_is_an_error_naming_it() {
    let o = run(&["validate", "bounce-apex", "warp-drive"], &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("unknown validation case `warp-drive`"),
        "{err}"
    );
    assert!(err.contains("pi-digits"), "lists the known cases: {err}");
}

#[test]
fn passing_cases_print_the_table_and_exit_zero() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("rows.json");
    let o = run(
        &[
            "validate",
            "--backend",
            "event",
            "pi-digits",
            "bounce-apex",
            "--json",
            json.to_str().unwrap(),
        ],
        &[],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    let header = out.lines().next().unwrap();
    for col in [
        "case",
        "backend",
        "quantity",
        "expected",
        "measured",
        "error",
        "tolerance",
        "result",
    ] {
        assert!(header.contains(col), "{header}");
    }
    assert!(
        out.contains("collisions, D = 7") && out.contains("3141592"),
        "{out}"
    );
    assert!(out.contains("10 passed, 0 failed"), "{out}");
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 10);
}

/// Asking for the GPU where no adapter opens is a failure (exit 1), never a pass; under
/// `--backend all` it is reported as unavailable, and fails only with CI=true.
#[test]
fn a_missing_gpu_fails_when_asked_for() {
    let none = [("WGPU_ADAPTER_NAME", "no-such-adapter-anywhere")];
    let o = run(&["validate", "--backend", "gpu", "gpu-vs-cpu"], &none);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("unavailable") && out.contains("no-such-adapter-anywhere"),
        "{out}"
    );
    let o = run(
        &["validate", "--backend", "all", "gpu-vs-cpu", "pi-digits"],
        &none,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(text(&o.stdout).contains("SKIPPED"));
    let ci = [none[0], ("CI", "true")];
    let o = run(
        &["validate", "--backend", "all", "gpu-vs-cpu", "pi-digits"],
        &ci,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
}

#[test]
fn pi_blocks_reports_collisions_in_summary_and_stats() {
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("stats.json");
    let o = run(
        &[
            "run",
            "pi-blocks",
            "--digits",
            "5",
            "--backend",
            "event",
            "-q",
            "--stats-json",
            stats.to_str().unwrap(),
        ],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("collisions: 31415 resolved"),
        "{}",
        text(&o.stdout)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(v["collisions"], 31415);
    assert_eq!(v["backend"], "event");
    assert_eq!(v["precision"], "f64");
    // The time-stepped CPU runs it too and reports its own count.
    let o = run(
        &[
            "run",
            "pi-blocks",
            "--digits",
            "2",
            "--backend",
            "cpu",
            "-q",
        ],
        &[],
    );
    assert!(o.status.success() && text(&o.stdout).contains("collisions:"));
}

#[test]
fn digits_are_checked() {
    let o = run(&["run", "box-gas", "--digits", "3"], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--digits applies to the built-in scene pi-blocks only"));
    for bad in ["0", "9"] {
        let o = run(
            &["run", "pi-blocks", "--digits", bad, "--backend", "event"],
            &[],
        );
        assert_eq!(o.status.code(), Some(1));
        assert!(
            text(&o.stderr).contains("between 1 and 8"),
            "{}",
            text(&o.stderr)
        );
    }
    let o = run(
        &["run", "orbits", "--particles", "10", "--backend", "event"],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("mutual gravity"),
        "{}",
        text(&o.stderr)
    );
}
