//! Loading scales with the file's size and refuses what is not a scene or a state CSV quickly;
//! messages say what is wrong: the value as given, the flag rather than the scene it replaced,
//! a likely meant name, excerpts instead of whole lines; `validate` shows each case's rows as
//! soon as it finishes; CPU-only commands never open a GPU instance (issue 36, items 8 and 9).

use spheresim::output::csv::{EXCERPT_CHARS, MAX_LINE_BYTES, read_csv};
use spheresim::scene::{SceneFile, builtin};
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spheresim"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Most characters an error about a huge input may have: its fixed text and an excerpt.
const SHORT_MESSAGE: usize = 400;

/// A scene of `n` `[[particle]]` tables, five lines each after a three-line `[simulation]`; the
/// last sphere's mass is `last_mass`.
fn many_particles(n: usize, last_mass: f64) -> String {
    let mut s = String::from("[simulation]\nsteps = 1\n\n");
    for i in 0..n {
        let mass = if i + 1 == n { last_mass } else { 1.0 };
        s.push_str(&format!(
            "[[particle]]\nposition = [{}.0, 0.0, 0.0]\nradius = 1.0\nmass = {mass:?}\n\n",
            3 * i
        ));
    }
    s
}

/// 10⁵ tables: counting lines from the start for each one took minutes; with a line index it
/// is a fraction of a second. The last table's header is still found on the right line.
#[test]
fn a_hundred_thousand_particle_tables_load_and_errors_name_the_right_line() {
    let n = 100_000;
    let file = SceneFile::from_toml_str(&many_particles(n, 1.0), "many").unwrap();
    assert_eq!(file.scene.spheres.len(), n);
    assert_eq!(file.scene.spheres[n - 1].position.x, 3.0 * (n - 1) as f64);

    let e = SceneFile::from_toml_str(&many_particles(n, -1.0), "many")
        .unwrap_err()
        .to_string();
    // Table k's header is on line 4 + 5k.
    let line = 4 + 5 * (n - 1);
    assert_eq!(
        e,
        format!(
            "many: [[particle]] #{} at line {line} (sphere {}): mass must be positive and \
             finite, got -1",
            n - 1,
            n - 1
        )
    );
}

/// A file of several MiB without a line end is refused after the first MiB, and the message
/// names the file and the cap without echoing the line.
#[test]
fn a_csv_without_line_ends_is_refused_with_a_short_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one-line.csv");
    let line = "0,".repeat(2 * 1024 * 1024);
    std::fs::write(&path, &line).unwrap();
    let e = read_csv(&path).unwrap_err().to_string();
    assert!(e.contains("one-line.csv") && e.contains("line 1"), "{e}");
    assert!(e.contains(&MAX_LINE_BYTES.to_string()), "{e}");
    assert!(
        e.len() < SHORT_MESSAGE,
        "{} characters: {}",
        e.len(),
        &e[..200]
    );

    // In a scene, the table, the CSV as given and the cap.
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, "[[particles_file]]\npath = \"one-line.csv\"\n").unwrap();
    let e = SceneFile::load(&scene).unwrap_err().to_string();
    assert!(
        e.contains(
            "[[particles_file]] #0 at line 1: one-line.csv line 1: line longer than 1048576 bytes"
        ),
        "{}",
        &e[..e.len().min(400)]
    );
    assert!(e.len() < SHORT_MESSAGE, "{} characters", e.len());
}

/// `/dev/zero` never ends and has no line end: it is refused, not read forever.
#[cfg(unix)]
#[test]
fn dev_zero_as_a_particles_file_is_refused() {
    let scene = "[[particles_file]]\npath = \"/dev/zero\"\n";
    let e = SceneFile::from_toml_str(scene, "z")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("/dev/zero line 1: line longer than 1048576 bytes (1 MiB)"),
        "{}",
        &e[..e.len().min(400)]
    );
    assert!(e.len() < SHORT_MESSAGE, "{} characters", e.len());
}

/// A line below the cap but with a huge bad field or header: the message quotes an excerpt.
#[test]
fn csv_errors_quote_excerpts_not_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let big = "x".repeat(100_000);
    let header = "id,x,y,z,vx,vy,vz,radius,mass";
    for (name, text, quoted) in [
        (
            "header.csv",
            format!("{big}\n0,0,0,0,0,0,0,1,1\n"),
            "header is \"xxx",
        ),
        (
            "field.csv",
            format!("{header}\n0,0,{big},0,0,0,0,1,1\n"),
            "y \"xxx",
        ),
        (
            "id.csv",
            format!("{header}\n{big},0,0,0,0,0,0,1,1\n"),
            "id \"xxx",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let e = read_csv(&path).unwrap_err().to_string();
        assert!(
            e.contains(quoted) && e.contains("(100000 bytes)"),
            "{name}: {}",
            &e[..200]
        );
        assert!(e.len() < SHORT_MESSAGE, "{name}: {} characters", e.len());
        let x_run = e.split('"').map(|q| q.matches('x').count()).max().unwrap();
        assert!(x_run <= EXCERPT_CHARS, "{name}: {x_run} characters quoted");
    }
}

/// TOML keys, values, paths and names of megabytes are quoted as excerpts too.
#[test]
fn scene_errors_quote_excerpts() {
    let big = "k".repeat(100_000);
    let particle = "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n";
    for text in [
        format!("{particle}{big} = 1\n"),
        format!("{particle}[simulation]\ndt = \"{big}\"\n"),
        format!("[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmaterial = \"{big}\"\n"),
        format!("{particle}[[particles_file]]\npath = \"{big}\"\n"),
    ] {
        let e = SceneFile::from_toml_str(&text, "s")
            .unwrap_err()
            .to_string();
        assert!(
            e.len() < SHORT_MESSAGE,
            "{} characters: {}",
            e.len(),
            &e[..300]
        );
        assert!(e.contains("kkkk"), "{e}");
    }
    let e = builtin::build(&big, None).unwrap_err().to_string();
    assert!(e.len() < SHORT_MESSAGE, "{} characters", e.len());
}

/// A range error prints the value as written, not rounded into range.
#[test]
fn range_errors_print_the_value_as_given() {
    let text = "[simulation]\nrestitution = 1.0000001\n[[particle]]\nposition = [0, 0, 0]\n\
                radius = 1\nmass = 1\nrestitution = -0.0000001234567\n";
    let e = SceneFile::from_toml_str(text, "s").unwrap_err().to_string();
    assert!(
        e.contains("[simulation] at line 1: restitution must be in [0, 1], got 1.0000001"),
        "{e}"
    );
    assert!(e.contains("got -1.234567e-7"), "{e}");
}

/// A bad `--skin`, `--friction`, `--rolling-friction` or `--theta` is the flag's error, quoting
/// the value as given, not the scene's.
#[test]
fn a_bad_override_names_its_flag() {
    for (flag, value, why) in [
        ("--skin", "-1", "at least 0"),
        ("--friction", "nan", "at least 0"),
        ("--rolling-friction", "-0.5", "at least 0"),
        ("--theta", "2", "must be in (0, "),
        ("--theta", "0", "must be in (0, "),
    ] {
        let o = bin()
            .args([
                "run",
                "bounce",
                "--backend",
                "cpu",
                "--steps",
                "1",
                flag,
                value,
            ])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{flag} {value} was accepted");
        assert!(
            err.contains(&format!("'{value}' for '{flag}")) && err.contains(why),
            "{flag} {value}: {err}"
        );
    }
}

/// `--dt 0` is the flag's error, not one of the scene's `[simulation]` table.
#[test]
fn a_bad_dt_names_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("s.toml");
    std::fs::write(
        &scene,
        "[simulation]\nsteps = 1\n[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n",
    )
    .unwrap();
    for dt in ["0", "-0.001", "inf", "NaN"] {
        let o = bin()
            .args([
                "run",
                scene.to_str().unwrap(),
                "--backend",
                "cpu",
                "--dt",
                dt,
            ])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "--dt {dt} was accepted");
        assert!(
            err.contains(&format!("'{dt}' for '--dt")) && err.contains("positive and finite"),
            "--dt {dt}: {err}"
        );
        assert!(!err.contains("[simulation]"), "--dt {dt}: {err}");
    }
}

#[test]
fn unknown_keys_scenes_and_materials_get_a_did_you_mean() {
    let e = SceneFile::from_toml_str(
        "[[particle]]\nposition = [0, 0, 0]\nradiu = 1\nmass = 1\n",
        "s",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("unknown field `radiu`") && e.ends_with("; did you mean `radius`?"),
        "{e}"
    );
    let e = SceneFile::from_toml_str("[[partcle]]\nposition = [0, 0, 0]\n", "s")
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("did you mean `particle`?"), "{e}");
    let e = builtin::build("box-gs", None).unwrap_err().to_string();
    assert!(e.ends_with("; did you mean `box-gas`?"), "{e}");
    let e = SceneFile::from_toml_str(
        "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmaterial = \"stel\"\n",
        "s",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("unknown material \"stel\"") && e.ends_with("; did you mean \"steel\"?"),
        "{e}"
    );
    // Nothing close: no guess.
    let e = builtin::build("warp-drive", None).unwrap_err().to_string();
    assert!(!e.contains("did you mean"), "{e}");
}

/// `validate` prints a case's rows when it finishes: killed during a later, slower case, it has
/// shown the first one's rows (and not the later one's, nor the tally).
#[test]
fn validate_prints_each_case_as_it_finishes() {
    let mut child = bin()
        .args(["validate", "--backend", "cpu", "bounce-apex", "tree-error"])
        .env_remove("CI")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    let mut line = String::new();
    // The header, then bounce-apex's three rows: then stop the run.
    while seen.len() < 4 && out.read_line(&mut line).unwrap() > 0 {
        seen.push(std::mem::take(&mut line));
    }
    child.kill().unwrap();
    let mut rest = String::new();
    while out.read_line(&mut line).unwrap() > 0 {
        rest.push_str(&std::mem::take(&mut line));
    }
    child.wait().unwrap();
    let seen = seen.concat();
    assert!(seen.starts_with("case "), "{seen}");
    assert_eq!(seen.matches("bounce-apex  cpu").count(), 3, "{seen}");
    // The old table came in one piece after every case had run.
    assert!(
        !rest.contains("tree-error") && !rest.contains("passed"),
        "{seen}{rest}"
    );
}

/// A CPU-only command opens no GPU instance, so the Vulkan loader (lavapipe) has nothing to say
/// about a missing XDG_RUNTIME_DIR.
#[test]
fn cpu_only_commands_say_nothing_from_the_vulkan_loader() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 3] = [
        &["scenes"],
        &[
            "run",
            "box-gas",
            "--backend",
            "cpu",
            "--particles",
            "100",
            "--steps",
            "2",
            "-q",
        ],
        &["validate", "--backend", "cpu", "bounce-apex"],
    ];
    for args in cases {
        let o = bin()
            .args(args)
            .current_dir(dir.path())
            .env_remove("XDG_RUNTIME_DIR")
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(!err.contains("XDG_RUNTIME_DIR"), "{args:?}: {err}");
    }
}
