//! `[[particles_file]]`: spheres read from a state CSV. A `--final` state read back is the same
//! state bit for bit and runs on; every rejected file names the scene table, the CSV, its line
//! and the reason; the table's keys apply to every sphere of the file.

use glam::DVec3;
use spheresim::output::write_csv;
use spheresim::scene::{CheckOptions, Material, SceneFile, Surface};
use spheresim::{Scene, SceneError, Snapshot};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HEADER: &str = "id,x,y,z,vx,vy,vz,radius,mass";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spheresim"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("spawn spheresim")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Writes `text` to `dir/name` and returns the path.
fn put(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&path, text).unwrap();
    path
}

/// A scene file with one `[[particles_file]]` of `path` and the extra `keys`.
fn scene_with_file(path: &str, keys: &str) -> String {
    format!("[simulation]\ndt = 1e-3\nsteps = 10\n\n[[particles_file]]\npath = {path:?}\n{keys}\n")
}

/// The error of loading `scene`, as text.
fn load_err(scene: &Path) -> String {
    match Scene::load(scene) {
        Ok(_) => panic!("{} was accepted", scene.display()),
        Err(e) => e.to_string(),
    }
}

/// Each field of each data row of a CSV, parsed independently of the library.
fn csv_fields(path: &Path) -> Vec<Vec<f64>> {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(spheresim::output::CSV_HEADER));
    lines
        .map(|l| l.split(',').map(|f| f.parse::<f64>().unwrap()).collect())
        .collect()
}

fn assert_same_bits(what: &str, a: f64, b: f64) {
    assert_eq!(a.to_bits(), b.to_bits(), "{what}: {a:e} != {b:e}");
}

/// Asserts that the spheres `first..` of `scene` hold exactly the rows of `fields`.
fn assert_spheres_are_rows(scene: &Scene, first: usize, fields: &[Vec<f64>]) {
    assert_eq!(scene.spheres.len() - first, fields.len());
    for (i, row) in fields.iter().enumerate() {
        let sp = &scene.spheres[first + i];
        assert_eq!(row[0], i as f64);
        let got = [
            sp.position.x,
            sp.position.y,
            sp.position.z,
            sp.velocity.x,
            sp.velocity.y,
            sp.velocity.z,
            sp.radius,
            sp.mass,
        ];
        for (k, (&g, &want)) in got.iter().zip(&row[1..]).enumerate() {
            assert_same_bits(&format!("row {i} field {}", k + 1), g, want);
        }
        assert_eq!(sp.fixed, row[8] == f64::INFINITY, "row {i}");
    }
}

/// Falling spheres with values that need all 17 digits, a fixed one without a mass, over a floor.
const FALLING: &str = r#"
[simulation]
dt = 1e-3
steps = 100
gravity = [0.0, -9.81, 0.0]

[[particle]]
position = [0.1, 0.30000000000000004, -0.2]
velocity = [0.7, 0.0, -0.3333333333333333]
radius = 0.05
mass = 0.6

[[particle]]
position = [0.5, 0.5, 0.5]
velocity = [-1e-7, 2.0, 0.0]
radius = 0.07
mass = 1.2345678901234567

[[particle]]
position = [-0.5, 0.25, 0.0]
radius = 0.1
fixed = true

[[block]]
min = [-0.3, 1.0, -0.3]
count = [3, 2, 3]
spacing = 0.3
radius = 0.04
material = "glass"
jitter = 0.1
seed = 7

[[plane]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
"#;

#[test]
fn final_state_read_back_is_identical_bit_for_bit_and_runs_on() {
    let dir = tempfile::tempdir().unwrap();
    let scene = put(dir.path(), "falling.toml", FALLING);
    let state = dir.path().join("state.csv");
    let o = run(&[
        "run",
        &s(&scene),
        "--backend",
        "cpu",
        "--precision",
        "f64",
        "-q",
        "--final",
        &s(&state),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fields = csv_fields(&state);
    assert_eq!(fields.len(), 3 + 18);
    // The run moved the spheres: the state is not the scene's own.
    assert_ne!(fields[0][2], 0.30000000000000004);
    assert!(fields.iter().any(|r| r[8] == f64::INFINITY));

    // A new scene in a subdirectory, seeded from the state by a relative path.
    let seeded = put(
        dir.path(),
        "next/seeded.toml",
        "[simulation]\ndt = 1e-3\nsteps = 5\ngravity = [0.0, -9.81, 0.0]\n\n\
         [[particles_file]]\npath = \"../state.csv\"\n\n\
         [[plane]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\n",
    );
    let loaded = Scene::load(&seeded).unwrap();
    assert_spheres_are_rows(&loaded, 0, &fields);
    // The library's own reader agrees.
    let back = spheresim::output::read_csv(&state).unwrap();
    for (i, sp) in loaded.spheres.iter().enumerate() {
        assert_eq!(sp.position, back.position[i]);
        assert_eq!(sp.velocity, back.velocity[i]);
    }

    // It runs on, and writes its state in the same ids.
    let next = dir.path().join("next.csv");
    let o = run(&[
        "run",
        &s(&seeded),
        "--backend",
        "cpu",
        "--precision",
        "f64",
        "-q",
        "--final",
        &s(&next),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = csv_fields(&next);
    assert_eq!(after.len(), fields.len());
    let moved = after
        .iter()
        .zip(&fields)
        .filter(|(a, b)| a[2] != b[2])
        .count();
    assert!(moved > 0, "nothing moved in 5 steps");
}

/// Values at the edges of the number format: signed zero, subnormals, the largest finite value,
/// many digits, scientific notation both ways, infinite mass.
#[test]
fn written_state_reads_back_exactly_at_the_edges_of_the_number_format() {
    let dir = tempfile::tempdir().unwrap();
    let xs = [
        -0.0,
        5e-324,
        f64::MIN_POSITIVE,
        0.1 + 0.2,
        -1.0 / 3.0,
        1.5e-300,
        9999999999999998.0,
        1e16,
        -123456.789e-9,
        f64::MAX / 4.0,
        std::f64::consts::PI * 1e10,
        1e-5,
    ];
    let n = xs.len();
    let pick = |i: usize, k: usize| xs[(i * 3 + k) % n];
    let snap = Snapshot {
        step: 0,
        time: 0.0,
        position: (0..n)
            .map(|i| DVec3::new(pick(i, 0), pick(i, 1), pick(i, 2)))
            .collect(),
        velocity: (0..n)
            .map(|i| DVec3::new(pick(i, 5), pick(i, 6), pick(i, 7)))
            .collect(),
        radius: (0..n).map(|i| pick(i, 4).abs().max(5e-324)).collect(),
        mass: (0..n)
            .map(|i| {
                if i == 2 {
                    f64::INFINITY
                } else {
                    pick(i, 9).abs().max(1e-300)
                }
            })
            .collect(),
        ..Default::default()
    };
    write_csv(&dir.path().join("edge.csv"), &snap).unwrap();
    let scene_path = put(dir.path(), "edge.toml", &scene_with_file("edge.csv", ""));
    let scene = Scene::load(&scene_path).unwrap();
    assert_eq!(scene.spheres.len(), n);
    for (i, sp) in scene.spheres.iter().enumerate() {
        for k in 0..3 {
            assert_same_bits("position", sp.position[k], snap.position[i][k]);
            assert_same_bits("velocity", sp.velocity[k], snap.velocity[i][k]);
        }
        assert_same_bits("radius", sp.radius, snap.radius[i]);
        assert_same_bits("mass", sp.mass, snap.mass[i]);
        assert_eq!(sp.fixed, i == 2);
    }
    assert!(scene.spheres[0].position.x.is_sign_negative());
}

#[test]
fn a_bad_row_is_reported_with_the_scene_table_the_csv_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = "0,0,0,0,0,0,0,0.1,1\n1,1,0,0,0,0,0,0.1,1\n";
    // (the bad third row, what the message must say); the row is on line 5 (a blank line 4).
    let cases = [
        ("2,2,0,0,abc,0,0,0.1,1", r#"vx "abc" is not a number"#),
        ("2,2,0,0,0,0,0,0.1", "8 fields, expected 9"),
        ("2,2,0,0,0,0,0,0.1,1,7", "10 fields, expected 9"),
        (
            "1,2,0,0,0,0,0,0.1,1",
            "id 1 out of order: ids must increase, and the row before has id 1",
        ),
        (
            "x,2,0,0,0,0,0,0.1,1",
            r#"id "x" is not a non-negative integer"#,
        ),
        ("2,NaN,0,0,0,0,0,0.1,1", "x must be finite, got NaN"),
        ("2,2,0,inf,0,0,0,0.1,1", "z must be finite, got inf"),
        ("2,2,0,0,0,-inf,0,0.1,1", "vy must be finite, got -inf"),
        (
            "2,2,0,0,0,0,0,0,1",
            "radius must be positive and finite, got 0",
        ),
        (
            "2,2,0,0,0,0,0,inf,1",
            "radius must be positive and finite, got inf",
        ),
        ("2,2,0,0,0,0,0,0.1,-1", "mass must be positive"),
        ("2,2,0,0,0,0,0,0.1,0", "mass must be positive"),
        ("2,2,0,0,0,0,0,0.1,NaN", "mass must be positive"),
    ];
    for (bad, reason) in cases {
        put(
            dir.path(),
            "bad.csv",
            &format!("{HEADER}\n{good}\n{bad}\n3,3,0,0,0,0,0,0.1,1\n"),
        );
        // The first table reads fine; the bad file is the second, its header on line 9.
        put(
            dir.path(),
            "good.csv",
            &format!("{HEADER}\n0,9,9,9,0,0,0,0.1,1\n"),
        );
        let scene = put(
            dir.path(),
            "scene.toml",
            "[simulation]\ndt = 1e-3\n\n[[particles_file]]\npath = \"good.csv\"\n\n\
             # the second\n\n[[particles_file]]\npath = \"bad.csv\"\n",
        );
        let msg = load_err(&scene);
        let want = format!(
            "{}: [[particles_file]] #1 at line 9: bad.csv line 5: {reason}",
            scene.display()
        );
        assert!(msg.contains(&want), "expected {want:?} in:\n{msg}");
        assert_eq!(msg.lines().count(), 1, "{msg}");
    }

    // Through the binary: non-zero exit, the same message, nothing written.
    let out = dir.path().join("out.csv");
    let o = run(&[
        "run",
        &s(&dir.path().join("scene.toml")),
        "--final",
        &s(&out),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        err.contains("bad.csv line 5: mass must be positive"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn every_bad_table_is_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "a.csv",
        &format!("{HEADER}\n0,0,0,0,0,0,0,-1,1\n"),
    );
    put(dir.path(), "b.csv", "id,x,y,z\n0,0,0,0\n");
    let scene = put(
        dir.path(),
        "scene.toml",
        "[[particles_file]]\npath = \"a.csv\"\nmaterial = \"unobtainium\"\n\n\
         [[particles_file]]\npath = \"b.csv\"\nrestitution = 1.5\n",
    );
    let msg = load_err(&scene);
    for want in [
        "4 problems",
        "[[particles_file]] #0 at line 1: a.csv line 2: radius must be positive and finite, got -1",
        "[[particles_file]] #0 at line 1: unknown material \"unobtainium\"",
        "[[particles_file]] #1 at line 5: b.csv line 1: header is \"id,x,y,z\"",
        "[[particles_file]] #1 at line 5: restitution must be in [0, 1], got 1.5",
    ] {
        assert!(msg.contains(want), "expected {want:?} in:\n{msg}");
    }
}

#[test]
fn a_missing_file_names_the_scene_and_both_paths() {
    let dir = tempfile::tempdir().unwrap();
    let scene = put(
        dir.path(),
        "scenes/scene.toml",
        &scene_with_file("states/nowhere.csv", ""),
    );
    let msg = load_err(&scene);
    let resolved = dir.path().join("scenes").join("states/nowhere.csv");
    let want = format!(
        "{}: [[particles_file]] #0 at line 5: cannot read \"states/nowhere.csv\" ({}): ",
        scene.display(),
        resolved.display()
    );
    assert!(msg.contains(&want), "expected {want:?} in:\n{msg}");

    // Relative to the scene file's directory, not to the current one: the same file name beside
    // the current directory's is not found either.
    let o = run(&["run", &s(&scene), "--backend", "cpu", "-q"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.starts_with("error: ") && err.contains("nowhere.csv"),
        "{err}"
    );

    // An empty path is an error of its own.
    let empty = put(dir.path(), "empty.toml", &scene_with_file("", ""));
    assert!(load_err(&empty).contains("path must name a CSV file"));
}

#[test]
fn unknown_and_missing_keys_are_rejected_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "a.csv",
        &format!("{HEADER}\n0,0,0,0,0,0,0,1,1\n"),
    );
    let scene = put(
        dir.path(),
        "scene.toml",
        &scene_with_file("a.csv", "mass = 2.0"),
    );
    match Scene::load(&scene) {
        Err(SceneError::Toml { line, message, .. }) => {
            assert_eq!(line, 7, "{message}");
            assert!(message.contains("mass"), "{message}");
            assert!(
                message.contains("`path`, `material`, `restitution`"),
                "{message}"
            );
        }
        other => panic!("expected a TOML error, got {other:?}"),
    }
    let scene = put(
        dir.path(),
        "nopath.toml",
        "[[particles_file]]\nmaterial = \"steel\"\n",
    );
    let msg = load_err(&scene);
    assert!(msg.contains("path"), "{msg}");
}

#[test]
fn extra_columns_are_accepted_and_ignored() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "w.csv",
        &format!(
            "{HEADER},note,flag,tag\r\n0,1,2,3,4,5,6,0.5,2,n/a,,x\r\n\r\n1, 5,2,3,4,5,6,0.5,inf,0,0,0\r\n"
        ),
    );
    let scene = put(dir.path(), "w.toml", &scene_with_file("w.csv", ""));
    let loaded = Scene::load(&scene).unwrap();
    assert_eq!(loaded.spheres.len(), 2);
    assert_eq!(loaded.spheres[0].position, DVec3::new(1.0, 2.0, 3.0));
    assert_eq!(loaded.spheres[0].velocity, DVec3::new(4.0, 5.0, 6.0));
    assert_eq!(loaded.spheres[0].mass, 2.0);
    assert!(!loaded.spheres[0].fixed && loaded.spheres[1].fixed);
    assert_eq!(loaded.spheres[1].position.x, 5.0);

    // Rows must still have as many fields as the header names.
    put(
        dir.path(),
        "w.csv",
        &format!("{HEADER},note,flag,tag\n0,1,2,3,4,5,6,0.5,2\n"),
    );
    assert!(load_err(&scene).contains("w.csv line 2: 9 fields, expected 12"));
    // The nine required columns come first, in order.
    put(
        dir.path(),
        "w.csv",
        "id,x,y,z,vx,vy,vz,mass,radius\n0,1,2,3,4,5,6,0.5,2\n",
    );
    assert!(load_err(&scene).contains("w.csv line 1: header is"));
}

#[test]
fn material_and_restitution_apply_to_every_sphere_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (0..5)
        .map(|i| format!("{i},{},0,0,0,0,0,0.1,{}\n", i as f64, 0.5 + i as f64))
        .collect();
    put(dir.path(), "five.csv", &format!("{HEADER}\n{rows}"));
    let load = |keys: &str| {
        let path = put(dir.path(), "m.toml", &scene_with_file("five.csv", keys));
        Scene::load(&path).unwrap()
    };

    let steel = Material::presets()
        .into_iter()
        .find(|m| m.name == "steel")
        .unwrap();
    let both = load("material = \"steel\"\nrestitution = 0.3");
    let only_material = load("material = \"steel\"");
    let neither = load("");
    for (i, sp) in both.spheres.iter().enumerate() {
        // The mass is the row's, not the material's density × volume.
        assert_eq!(sp.mass, 0.5 + i as f64);
        assert_eq!(sp.restitution, 0.3);
        assert_eq!(both.materials[sp.material.unwrap()].name, "steel");
        assert_eq!(sp.surface, Surface::of(&steel));
    }
    for sp in &only_material.spheres {
        assert_eq!(sp.restitution, steel.restitution);
        assert_eq!(sp.surface, Surface::of(&steel));
    }
    for sp in &neither.spheres {
        assert_eq!(sp.material, None);
        assert_eq!(sp.restitution, neither.sim.restitution);
        assert_eq!(sp.surface, neither.sim.surface);
    }
    assert_eq!(both.spheres.len(), 5);
}

#[test]
fn ids_run_particles_then_files_in_table_order_then_blocks() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "a.csv",
        &format!("{HEADER}\n0,10,0,0,0,0,0,0.1,1\n1,11,0,0,0,0,0,0.1,1\n"),
    );
    let abs = put(
        dir.path(),
        "elsewhere/b.csv",
        &format!("{HEADER}\n0,20,0,0,0,0,0,0.1,1\n"),
    );
    // Tables of each kind in an order unlike the ids'; `b.csv` by an absolute path.
    let text = format!(
        "[[block]]\nmin = [30.0, 0.0, 0.0]\ncount = [2, 1, 1]\nspacing = 1.0\nradius = 0.1\nmass = 1.0\n\n\
         [[particles_file]]\npath = \"a.csv\"\n\n\
         [[particle]]\nposition = [0.0, 0.0, 0.0]\nradius = 0.1\nmass = 1.0\n\n\
         [[particles_file]]\npath = {:?}\n",
        s(&abs)
    );
    let scene = put(dir.path(), "order.toml", &text);
    let loaded = Scene::load(&scene).unwrap();
    let xs: Vec<f64> = loaded.spheres.iter().map(|s| s.position.x).collect();
    assert_eq!(xs, [0.0, 10.0, 11.0, 20.0, 30.0, 31.0]);
}

#[test]
fn scene_checks_name_the_csv_rows() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "o.csv",
        &format!("{HEADER}\n0,0,0,0,0,0,0,0.1,1\n1,5,0,0,0,0,0,0.1,1\n2,5.1,0,0,0,0,0,0.1,1\n"),
    );
    let scene = put(
        dir.path(),
        "o.toml",
        "[[particle]]\nposition = [-5.0, 0.0, 0.0]\nradius = 0.1\nmass = 1.0\n\n\
         [[particles_file]]\npath = \"o.csv\"\n",
    );
    let file = SceneFile::load(&scene).unwrap();
    let msg = file
        .check(&CheckOptions::default())
        .unwrap_err()
        .to_string();
    let want = "spheres 2 ([[particles_file]] #0 at line 6, o.csv id 1) and \
                3 ([[particles_file]] #0 at line 6, o.csv id 2) overlap";
    assert!(msg.contains(want), "expected {want:?} in:\n{msg}");
    file.check(&CheckOptions {
        allow_overlap: true,
    })
    .unwrap();

    // A value check of the whole scene (containment) names the rows too; rows 1 and 2 are
    // outside by as much, so they make one range.
    put(
        dir.path(),
        "c.csv",
        &format!("{HEADER}\n0,0,0,0,0,0,0,0.1,1\n1,5,0,0,0,0,0,0.1,1\n2,0,5,0,0,0,0,0.1,1\n"),
    );
    let contained = put(
        dir.path(),
        "c.toml",
        "[[particles_file]]\npath = \"c.csv\"\n\n\
         [[sphere_container]]\ncenter = [0.0, 0.0, 0.0]\nradius = 1.0\n",
    );
    let msg = load_err(&contained);
    assert!(
        msg.contains(
            "[[particles_file]] #0 at line 1 (spheres 1 to 2, c.csv ids 1 to 2): not inside"
        ),
        "{msg}"
    );
}

#[test]
fn from_toml_str_reads_relative_paths_from_the_current_directory() {
    // Tests run in the package root; an absolute path works from anywhere.
    let dir = tempfile::tempdir().unwrap();
    let csv = put(
        dir.path(),
        "a.csv",
        &format!("{HEADER}\n0,1,2,3,0,0,0,0.1,1\n"),
    );
    let s = Scene::from_toml_str(&scene_with_file(&s(&csv), ""), "t").unwrap();
    assert_eq!(s.spheres[0].position, DVec3::new(1.0, 2.0, 3.0));
    let msg = Scene::from_toml_str(&scene_with_file("no-such-dir/a.csv", ""), "t")
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("t: [[particles_file]] #0 at line 5: cannot read \"no-such-dir/a.csv\": "),
        "{msg}"
    );
}

/// A rotating run's state comes back with its spin (`wx,wy,wz`); a scene without rotation warns
/// that it is ignored; a bad value is named by its column.
#[test]
fn angular_velocities_read_back_with_rotation_and_are_ignored_without() {
    let dir = tempfile::tempdir().unwrap();
    let snap = Snapshot {
        position: vec![DVec3::ZERO, DVec3::X * 3.0],
        velocity: vec![DVec3::Y, DVec3::ZERO],
        radius: vec![1.0, 0.5],
        mass: vec![2.0, 1.0],
        angular_velocity: vec![DVec3::new(0.1, -2.5, 1e-7), DVec3::new(3.0, 0.0, -0.0)],
        ..Default::default()
    };
    write_csv(&dir.path().join("spin.csv"), &snap).unwrap();
    for rotation in [true, false] {
        let keys = format!("[simulation]\ncontact = \"hertz\"\nrotation = {rotation}\n");
        let text = format!("{keys}\n[[particles_file]]\npath = \"spin.csv\"\n");
        let path = put(dir.path(), "spin.toml", &text);
        let scene = Scene::load(&path).unwrap();
        // Read either way (so that --rotation can turn it on); without rotation the backends
        // ignore it, with a warning.
        for (i, s) in scene.spheres.iter().enumerate() {
            assert_eq!(s.angular_velocity, snap.angular_velocity[i], "sphere {i}");
        }
        assert_eq!(scene.rotation_hint().is_some(), !rotation);
    }
    let bad = format!(
        "{}\n0,0,0,0,0,0,0,1,1,0,abc,0\n",
        spheresim::output::CSV_HEADER
    );
    fs::write(dir.path().join("bad.csv"), bad).unwrap();
    let text = "[simulation]\nrotation = true\n\n[[particles_file]]\npath = \"bad.csv\"\n";
    let err = load_err(&put(dir.path(), "bad.toml", text));
    assert!(err.contains("wy \"abc\" is not a number"), "{err}");
}
