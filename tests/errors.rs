//! What a new user meets when something is wrong: every bad input gives one message naming the
//! item and the reason (each cause once, numbers without float noise, the file and line of a bad
//! scene table, every problem of a file at once), a non-zero exit, and nothing written.

use spheresim::output::{self, check_writable_file};
use spheresim::scene::{CheckOptions, SceneFile};
use spheresim::{Scene, SceneError};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch directory that the binary runs in, so that relative paths land inside it.
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new() -> Self {
        Scratch(tempfile::tempdir().unwrap())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// Everything in the directory, recursively, as sorted relative paths.
    fn listing(&self) -> Vec<String> {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                out.push(p.strip_prefix(root).unwrap().display().to_string());
                if p.is_dir() {
                    walk(root, &p, out);
                }
            }
        }
        let mut v = Vec::new();
        walk(self.0.path(), self.0.path(), &mut v);
        v.sort();
        v
    }

    /// `spheresim ARGS` run inside the directory.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_spheresim"))
            .args(args)
            .current_dir(self.0.path())
            .output()
            .expect("spawn spheresim")
    }
}

/// Asserts that `o` failed with exactly the one-line message `error: WANT` (a prefix of it when
/// `want` ends with `…`) and returns standard error.
#[track_caller]
fn fails_with(o: &Output, want: &str) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "succeeded:\n{err}");
    assert_eq!(o.status.code(), Some(1), "{err}");
    match want.strip_suffix('…') {
        Some(prefix) => assert!(err.starts_with(&format!("error: {prefix}")), "{err}"),
        None => assert_eq!(err, format!("error: {want}\n")),
    }
    err
}

/// A short built-in run with one output flag set to `path`; stepping it would take a moment, so
/// a path that is not refused up front shows as written files, not as a slow test.
fn run_with(dir: &Scratch, flag: &str, path: &str) -> Output {
    dir.run(&["run", "two-spheres", "--steps", "5", "-q", flag, path])
}

#[test]
fn final_and_stats_paths_that_name_directories_are_refused_up_front() {
    let dir = Scratch::new();
    fs::create_dir(dir.path("out")).unwrap();
    fs::write(dir.path("plain"), "x").unwrap();
    let before = dir.listing();
    // `{d}` stands for the scratch directory: empty on the command line, which runs inside it.
    for (flag, path, why) in [
        (
            "--final",
            "nosuchdir/",
            "it ends with '/', so it names a directory, not a file",
        ),
        (
            "--final",
            "out/",
            "it ends with '/', so it names a directory, not a file",
        ),
        (
            "--final",
            "out/.",
            "it ends with '.', so it names a directory, not a file",
        ),
        ("--final", "out", "it is a directory, not a file"),
        (
            "--stats-json",
            "stats/",
            "it ends with '/', so it names a directory, not a file",
        ),
        ("--stats-json", "out", "it is a directory, not a file"),
        (
            "--final",
            "no/such/final.csv",
            "parent directory {d}no/such does not exist",
        ),
        (
            "--final",
            "plain/final.csv",
            "parent {d}plain is not a directory",
        ),
        (
            "--final",
            "plain/sub/final.csv",
            "{d}plain is not a directory",
        ),
    ] {
        let o = run_with(&dir, flag, path);
        fails_with(
            &o,
            &format!("cannot write {path}: {}", why.replace("{d}", "")),
        );
        assert_eq!(
            dir.listing(),
            before,
            "{flag} {path}: something was written"
        );
        // The library check says the same.
        let p = dir.path(path);
        let d = format!("{}/", dir.0.path().display());
        assert_eq!(
            check_writable_file(&p).unwrap_err().to_string(),
            format!("cannot write {}: {}", p.display(), why.replace("{d}", &d))
        );
    }
    // A missing parent is not created, not even by the writers.
    assert!(!dir.path("no").exists() && !dir.path("nosuchdir").exists());
    let e = output::write_atomic(&dir.path("nosuchdir/"), |w| w.write_all(b"x")).unwrap_err();
    assert!(e.to_string().contains("names a directory"), "{e}");
    assert_eq!(dir.listing(), before);
}

#[test]
fn an_output_directory_below_a_file_is_refused_naming_the_file() {
    let dir = Scratch::new();
    fs::write(dir.path("plain"), "x").unwrap();
    let o = run_with(&dir, "--output", "plain/snaps");
    fails_with(
        &o,
        "cannot use output directory plain/snaps: cannot create it: plain is not a directory",
    );
    let o = run_with(&dir, "--output", "plain");
    fails_with(
        &o,
        "cannot use output directory plain: it exists and is not a directory",
    );
    assert_eq!(dir.listing(), ["plain"]);
}

/// A directory where files cannot be created: the reason given is the real one, in words that
/// do not contradict it (not "is not writable: No such file or directory").
#[cfg(target_os = "linux")]
#[test]
fn a_directory_that_takes_no_files_is_reported_with_the_real_reason() {
    if !Path::new("/proc/self").is_dir() {
        eprintln!("skipping: no /proc");
        return;
    }
    let dir = Scratch::new();
    let o = run_with(&dir, "--final", "/proc/x.csv");
    let err = fails_with(
        &o,
        "cannot write /proc/x.csv: cannot create files in directory /proc: …",
    );
    assert!(!err.contains("not writable"), "{err}");
    assert!(dir.listing().is_empty());
}

#[test]
fn a_missing_scene_file_gives_its_cause_once() {
    let dir = Scratch::new();
    let o = dir.run(&["run", "nope.toml", "--final", "final.csv"]);
    let err = fails_with(
        &o,
        "cannot read scene file nope.toml: No such file or directory",
    );
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    assert!(dir.listing().is_empty());

    // In the library: the message is complete, and no source repeats it down the chain.
    let e = Scene::load(&dir.path("nope.toml")).unwrap_err();
    assert!(matches!(e, SceneError::Io { .. }));
    assert!(std::error::Error::source(&e).is_none());
    let chain = format!("{:#}", anyhow::Error::from(e));
    assert_eq!(chain.matches("No such file").count(), 1, "{chain}");
    assert!(!chain.contains("os error"), "{chain}");
}

/// Five lines of a particle: header, position, radius, mass, blank line.
fn particle(x: f64, radius: &str, mass: &str) -> String {
    format!("[[particle]]\nposition = [{x}, 0, 0]\nradius = {radius}\nmass = {mass}\n\n")
}

#[test]
fn every_bad_particle_is_reported_with_file_and_line() {
    // Particles start at lines 1, 6, 11, 16, 21.
    let text = [
        particle(0.0, "1", "1"),
        particle(3.0, "-0.5", "1"),
        particle(6.0, "1", "1"),
        particle(9.0, "1", "0"),
        particle(12.0, "1", "1"),
    ]
    .concat();
    let want = |file: &str| {
        format!(
            "{file}: 2 problems:\n  \
             [[particle]] #1 at line 6 (sphere 1): radius must be positive and finite, got -0.5\n  \
             [[particle]] #3 at line 16 (sphere 3): mass must be positive and finite, got 0"
        )
    };
    let e = Scene::from_toml_str(&text, "two_bad").unwrap_err();
    assert_eq!(e.to_string(), want("two_bad"));
    assert_eq!(e.problems().len(), 2);

    let dir = Scratch::new();
    fs::write(dir.path("two_bad.toml"), &text).unwrap();
    let o = dir.run(&[
        "run",
        "two_bad.toml",
        "--final",
        "final.csv",
        "--stats-json",
        "stats.json",
        "--output",
        "snaps",
    ]);
    fails_with(&o, &want("two_bad.toml"));
    assert_eq!(dir.listing(), ["two_bad.toml"]);
}

#[test]
fn problems_of_every_table_are_listed_in_file_order() {
    let text = "[simulation]\n\
                dt = -1e-3\n\
                [[material]]\n\
                name = \"goo\"\n\
                restitution = 0.5\n\
                [[block]]\n\
                min = [10, 0, 0]\n\
                count = [2, 2, 2]\n\
                spacing = 0\n\
                radius = 0.1\n\
                mass = 1\n\
                [[particle]]\n\
                position = [0, 0, 0]\n\
                radius = 1\n\
                material = \"glue\"\n\
                mass = -2\n\
                [[plane]]\n\
                point = [0, -5, 0]\n\
                normal = [0, 0, 0]\n\
                [[sphere_container]]\n\
                center = [0, 0, 0]\n\
                radius = 2\n\
                restitution = 1.5\n";
    let e = Scene::from_toml_str(text, "many").unwrap_err();
    assert_eq!(
        e.to_string(),
        "many: 7 problems:\n  \
         [simulation] at line 1: dt must be positive and finite, got -0.001\n  \
         [[material]] #0 at line 3 (material \"goo\"): missing keys `density`, `youngs_modulus`, \
         `poisson_ratio` (only the presets steel, glass, wood, ivory, rubber may leave keys out)\n  \
         [[block]] #0 at line 6: spacing must be positive and finite, got 0\n  \
         [[particle]] #0 at line 12 (sphere 0): unknown material \"glue\"; known: goo, steel, glass, \
         wood, ivory, rubber\n  \
         [[particle]] #0 at line 12 (sphere 0): mass must be positive and finite, got -2\n  \
         [[plane]] #0 at line 17: normal has zero length\n  \
         [[sphere_container]] #0 at line 20: restitution must be in [0, 1], got 1.5"
    );
}

#[test]
fn a_bad_shared_value_is_reported_once_and_long_lists_are_cut() {
    // A bad [simulation] default is reported there, not again on each sphere that takes it;
    // a block's spheres with the same problem are one range.
    let text = "[simulation]\nfriction = -1\n\
                [[block]]\nmin = [0, 0, 0]\ncount = [3, 1, 1]\nspacing = 3\nradius = 1\nmass = 1\n\
                [[particle]]\nposition = [20, 0, 0]\nradius = 1\nmass = 1\n";
    let e = Scene::from_toml_str(text, "shared").unwrap_err();
    assert_eq!(
        e.to_string(),
        "shared: [simulation] at line 1: friction must be non-negative and finite, got -1"
    );
    let mut scene = Scene::from_toml_str(&text.replace("friction = -1\n", ""), "ok").unwrap();
    for s in &mut scene.spheres[1..3] {
        s.velocity.y = f64::NAN;
    }
    assert_eq!(
        scene
            .check(&CheckOptions::default())
            .unwrap_err()
            .to_string(),
        "spheres 1 to 2: velocity must be finite, got [0, NaN, 0]"
    );

    // 25 particles, each wrong in its own way: 20 listed, the rest counted.
    let text: String = (0..25)
        .map(|i| particle(10.0 * i as f64, &format!("-{}", i + 1), "1"))
        .collect();
    let msg = Scene::from_toml_str(&text, "long").unwrap_err().to_string();
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 22, "{msg}");
    assert_eq!(lines[0], "long: 25 problems:");
    assert_eq!(
        lines[20],
        "  [[particle]] #19 at line 96 (sphere 19): radius must be positive and finite, got -20"
    );
    assert_eq!(lines[21], "  … and 5 more");
}

/// Two spheres of radius 0.1 m whose centres are 0.15 m apart: the depth is
/// 0.2 − 0.15 = 0.05000000000000002 in f64.
const OVERLAPPING: &str = "[simulation]\nsteps = 5\ndt = 1e-3\n\
                           [[particle]]\nposition = [0, 0, 0]\nradius = 0.1\nmass = 1\n\
                           [[particle]]\nposition = [0.15, 0, 0]\nradius = 0.1\nmass = 1\n";

#[test]
fn the_overlap_message_names_the_flag_and_prints_clean_numbers() {
    let s = Scene::from_toml_str(OVERLAPPING, "o").unwrap();
    let e = s.check(&CheckOptions::default()).unwrap_err();
    let SceneError::Overlap { depth, .. } = e else {
        panic!("{e}")
    };
    assert_ne!(depth, 0.05, "the test needs a depth with float noise");
    // The library names its option; the command line below, its flag.
    let want = "spheres 0 and 1 overlap by 0.05 m, more than 1% of the smaller radius (0.1 m); \
                move them apart (or set `CheckOptions::allow_overlap` to accept initial \
                overlaps)";
    assert_eq!(e.to_string(), want);

    let dir = Scratch::new();
    fs::write(dir.path("o.toml"), OVERLAPPING).unwrap();
    let o = dir.run(&["run", "o.toml", "--final", "final.csv"]);
    // The command line keeps the file's origins, so it names the tables and lines too.
    let err = fails_with(
        &o,
        "o.toml: spheres 0 ([[particle]] #0 at line 4) and 1 ([[particle]] #1 at line 8) \
         overlap by 0.05 m, more than 1% of the smaller radius (0.1 m); move them apart (or \
         pass --allow-overlap to accept initial overlaps)",
    );
    assert!(!err.contains("0000000"), "float noise: {err}");
    assert_eq!(dir.listing(), ["o.toml"]);
    // The flag named does what it says.
    let o = dir.run(&["run", "o.toml", "--allow-overlap", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // Located in the file, for callers that keep the origins.
    let f = SceneFile::from_toml_str(OVERLAPPING, "o").unwrap();
    assert_eq!(
        f.check(&CheckOptions::default()).unwrap_err().to_string(),
        "o: spheres 0 ([[particle]] #0 at line 4) and 1 ([[particle]] #1 at line 8) overlap by \
         0.05 m, more than 1% of the smaller radius (0.1 m); move them apart (or set \
         `CheckOptions::allow_overlap` to accept initial overlaps)"
    );
    f.check(&CheckOptions {
        allow_overlap: true,
    })
    .unwrap();
}

/// A built-in scene that cannot fit in memory is refused before it is built, on both backends,
/// with the numbers (issue 36 item 7): exit 1, not an allocation abort (134), nothing written.
/// The refusal comes before any adapter is opened, so the GPU case needs none.
#[test]
fn a_built_in_scene_too_large_for_memory_is_refused_with_the_numbers() {
    let dir = Scratch::new();
    for backend in ["cpu", "gpu"] {
        let o = dir.run(&[
            "run",
            "box-gas",
            "--particles",
            "2000000000",
            "--backend",
            backend,
            "-q",
            "--final",
            "final.csv",
            "--output",
            "out",
        ]);
        let err = fails_with(
            &o,
            &format!(
                "built-in scene `box-gas` with 2000000000 particles does not fit in memory: the \
                 scene and the {backend} backend (f32) need about …"
            ),
        );
        assert!(err.contains(" GiB), but "), "{err}");
        assert!(
            err.contains(" are available (MemAvailable); at most about "),
            "{err}"
        );
        let fits: u64 = err
            .split("at most about ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no count in: {err}"));
        assert!(fits < 2_000_000_000, "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(dir.listing().is_empty(), "{:?}", dir.listing());
}

/// More spheres than u32 ids can index are refused before any memory estimate or build.
#[test]
fn a_particle_count_beyond_u32_ids_is_refused() {
    let dir = Scratch::new();
    for backend in ["cpu", "gpu"] {
        let o = dir.run(&[
            "run",
            "box-gas",
            "--particles",
            "4294967296",
            "--backend",
            backend,
        ]);
        fails_with(
            &o,
            "built-in scene `box-gas` with 4294967296 particles: the engine indexes at most \
             4294967295 spheres (u32 ids); choose a smaller --particles",
        );
    }
    assert!(dir.listing().is_empty(), "{:?}", dir.listing());
}
