//! Output files: CSV round trip and header, VTK/VTP structure, ParaView series, stats JSON keys,
//! atomic writes and early path checks.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use glam::DVec3;
use spheresim::output::{
    self, CSV_HEADER, ENERGY_LOG_HEADER, OutputError, RunStats, SeriesWriter, check_writable_file,
    prepare_output_dir, read_csv, write_atomic, write_csv, write_energy_log, write_stats_json,
    write_vtk, write_vtp,
};
use spheresim::{Diagnostics, Snapshot};

/// A snapshot with awkward values: signed zero, tiny and huge magnitudes, values with no short
/// decimal form, and an infinite (fixed) mass.
fn awkward_snapshot(n: usize) -> Snapshot {
    let mut s = Snapshot {
        step: 42,
        time: 0.0042,
        ..Default::default()
    };
    let specials = [
        0.0,
        -0.0,
        1.0,
        0.1 + 0.2,
        1.0 / 3.0,
        -std::f64::consts::PI,
        1e-300,
        -2.5e-7,
        6.02214076e23,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        1e16,
        9999999999999998.0,
        123456.789e-3,
    ];
    // A deterministic scramble of bit patterns for the rest.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = f64::from_bits(state);
        if x.is_finite() {
            x
        } else {
            state as f64 * 1e-10
        }
    };
    for i in 0..n {
        let pick = |k: usize, next: &mut dyn FnMut() -> f64| {
            if (i + k).is_multiple_of(3) {
                specials[(i * 7 + k) % specials.len()]
            } else {
                next()
            }
        };
        s.position.push(DVec3::new(
            pick(0, &mut next),
            pick(1, &mut next),
            pick(2, &mut next),
        ));
        s.velocity.push(DVec3::new(
            pick(3, &mut next),
            pick(4, &mut next),
            pick(5, &mut next),
        ));
        s.angular_velocity.push(DVec3::new(
            pick(6, &mut next),
            pick(7, &mut next),
            pick(8, &mut next),
        ));
        s.radius.push(0.5 + i as f64 * 1e-3);
        s.mass.push(if i % 4 == 1 {
            f64::INFINITY
        } else {
            1.0 + i as f64 / 7.0
        });
    }
    s
}

fn simple_snapshot(step: u64, time: f64, n: usize) -> Snapshot {
    Snapshot {
        step,
        time,
        position: (0..n)
            .map(|i| DVec3::new(i as f64, -(i as f64), 0.5))
            .collect(),
        velocity: (0..n)
            .map(|i| DVec3::new(0.0, i as f64 * 0.25, -1.0))
            .collect(),
        radius: (0..n).map(|i| [0.1, 0.11, 0.12, 0.13][i % 4]).collect(),
        mass: (0..n)
            .map(|i| if i == 0 { f64::INFINITY } else { i as f64 })
            .collect(),
        angular_velocity: (0..n)
            .map(|i| DVec3::new(i as f64 * 0.5, 0.0, 2.0))
            .collect(),
        ..Default::default()
    }
}

fn assert_same_bits(a: &Snapshot, b: &Snapshot) {
    assert_eq!(a.len(), b.len());
    let bits = |v: DVec3| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
    for i in 0..a.len() {
        assert_eq!(bits(a.position[i]), bits(b.position[i]), "position {i}");
        assert_eq!(bits(a.velocity[i]), bits(b.velocity[i]), "velocity {i}");
        assert_eq!(a.radius[i].to_bits(), b.radius[i].to_bits(), "radius {i}");
        assert_eq!(a.mass[i].to_bits(), b.mass[i].to_bits(), "mass {i}");
    }
}

/// Every entry of `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------------
// CSV

#[test]
fn csv_round_trip_is_bit_exact_including_inf_mass() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("final.csv");
    let snap = awkward_snapshot(1000);
    assert!(snap.mass.iter().any(|m| m.is_infinite()));
    write_csv(&path, &snap).unwrap();
    let back = read_csv(&path).unwrap();
    assert_same_bits(&snap, &back);
    assert_eq!(listing(dir.path()), ["final.csv"]);
}

#[test]
fn csv_round_trip_crosses_parallel_batch_boundaries() {
    // More rows than one formatting batch (8192 × 64), so batches and chunks must join up in
    // order.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    let snap = awkward_snapshot(600_000);
    write_csv(&path, &snap).unwrap();
    let back = read_csv(&path).unwrap();
    assert_same_bits(&snap, &back);
}

#[test]
fn csv_header_and_rows_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.csv");
    write_csv(&path, &simple_snapshot(3, 0.5, 3)).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(CSV_HEADER, "id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz");
    assert_eq!(
        text,
        "id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz\n\
         0,0,-0,0.5,0,0,-1,0.1,inf,0,0,2\n\
         1,1,-1,0.5,0,0.25,-1,0.11,1,0.5,0,2\n\
         2,2,-2,0.5,0,0.5,-1,0.12,2,1,0,2\n"
    );
}

#[test]
fn csv_of_empty_snapshot_is_just_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.csv");
    write_csv(&path, &Snapshot::default()).unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        format!("{CSV_HEADER}\n")
    );
    assert!(read_csv(&path).unwrap().is_empty());
}

#[test]
fn read_csv_rejects_bad_input_naming_path_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("header.csv", "id,x,y,z\n0,1,2,3\n", 1, "header"),
        (
            "fields.csv",
            "id,x,y,z,vx,vy,vz,radius,mass\n0,1,2,3,4,5,6,7\n",
            2,
            "8 fields",
        ),
        (
            "order.csv",
            "id,x,y,z,vx,vy,vz,radius,mass\n3,1,2,3,4,5,6,7,8\n2,1,2,3,4,5,6,7,8\n",
            3,
            "out of order",
        ),
        (
            "number.csv",
            "id,x,y,z,vx,vy,vz,radius,mass\n0,1,2,3,4,5,6,seven,8\n",
            2,
            "radius",
        ),
    ];
    for (name, text, line, what) in cases {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        let err = read_csv(&path).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, OutputError::Parse { line: l, .. } if l == line),
            "{name}: {msg}"
        );
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.contains(what), "{name}: {msg}");
    }
    let missing = dir.path().join("missing.csv");
    let msg = read_csv(&missing).unwrap_err().to_string();
    assert!(msg.contains("missing.csv"), "{msg}");
}

#[test]
fn read_csv_accepts_crlf_and_spaces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crlf.csv");
    fs::write(
        &path,
        "id,x,y,z,vx,vy,vz,radius,mass\r\n0, 1,2,3,4,5,6,0.5,inf\r\n\r\n",
    )
    .unwrap();
    let s = read_csv(&path).unwrap();
    assert_eq!(s.position, vec![DVec3::new(1.0, 2.0, 3.0)]);
    assert_eq!(s.mass, vec![f64::INFINITY]);
}

#[test]
fn inconsistent_snapshot_is_rejected_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut snap = simple_snapshot(0, 0.0, 3);
    snap.mass.pop();
    let path = dir.path().join("bad.csv");
    let msg = write_csv(&path, &snap).unwrap_err().to_string();
    assert!(msg.contains("bad.csv") && msg.contains("2 masses"), "{msg}");
    assert!(write_vtk(&dir.path().join("bad.vtk"), &snap).is_err());
    assert!(write_vtp(&dir.path().join("bad.vtp"), &snap).is_err());
    assert!(listing(dir.path()).is_empty());
}

// ---------------------------------------------------------------------------------------------
// VTK

/// Reads a text line ending in `\n` at `*at`, advancing past it.
fn line<'a>(bytes: &'a [u8], at: &mut usize) -> &'a str {
    let end = bytes[*at..].iter().position(|&b| b == b'\n').unwrap() + *at;
    let s = std::str::from_utf8(&bytes[*at..end]).unwrap();
    *at = end + 1;
    s
}

fn be_f64s(bytes: &[u8], at: &mut usize, count: usize) -> Vec<f64> {
    let v = bytes[*at..*at + 8 * count]
        .chunks_exact(8)
        .map(|c| f64::from_be_bytes(c.try_into().unwrap()))
        .collect();
    *at += 8 * count;
    v
}

fn be_i32s(bytes: &[u8], at: &mut usize, count: usize) -> Vec<i32> {
    let v = bytes[*at..*at + 4 * count]
        .chunks_exact(4)
        .map(|c| i32::from_be_bytes(c.try_into().unwrap()))
        .collect();
    *at += 4 * count;
    v
}

/// After a binary block the format puts a line end before the next keyword.
fn end_of_block(bytes: &[u8], at: &mut usize) {
    assert_eq!(bytes[*at], b'\n', "newline after binary block at {at}");
    *at += 1;
}

#[test]
fn legacy_vtk_structure_counts_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.vtk");
    let n = 5;
    let snap = simple_snapshot(7, 0.25, n);
    write_vtk(&path, &snap).unwrap();
    let b = fs::read(&path).unwrap();
    let mut at = 0;
    assert!(line(&b, &mut at).starts_with("# vtk DataFile Version"));
    let title = line(&b, &mut at);
    assert!(
        title.contains("step 7") && title.contains("time 0.25"),
        "{title}"
    );
    assert_eq!(line(&b, &mut at), "BINARY");
    assert_eq!(line(&b, &mut at), "DATASET POLYDATA");
    assert_eq!(line(&b, &mut at), format!("POINTS {n} double"));
    let pts = be_f64s(&b, &mut at, 3 * n);
    for i in 0..n {
        assert_eq!(DVec3::from_slice(&pts[3 * i..]), snap.position[i]);
    }
    end_of_block(&b, &mut at);
    assert_eq!(line(&b, &mut at), format!("VERTICES {n} {}", 2 * n));
    let verts = be_i32s(&b, &mut at, 2 * n);
    for i in 0..n {
        assert_eq!(verts[2 * i..2 * i + 2], [1, i as i32]);
    }
    end_of_block(&b, &mut at);
    assert_eq!(line(&b, &mut at), format!("POINT_DATA {n}"));
    assert_eq!(line(&b, &mut at), "SCALARS radius double 1");
    assert_eq!(line(&b, &mut at), "LOOKUP_TABLE default");
    assert_eq!(be_f64s(&b, &mut at, n), snap.radius);
    end_of_block(&b, &mut at);
    assert_eq!(line(&b, &mut at), "VECTORS velocity double");
    let vel = be_f64s(&b, &mut at, 3 * n);
    for i in 0..n {
        assert_eq!(DVec3::from_slice(&vel[3 * i..]), snap.velocity[i]);
    }
    end_of_block(&b, &mut at);
    assert_eq!(line(&b, &mut at), "FIELD FieldData 3");
    assert_eq!(line(&b, &mut at), format!("mass 1 {n} double"));
    let mass = be_f64s(&b, &mut at, n);
    assert_eq!(mass, snap.mass);
    assert!(mass[0].is_infinite());
    end_of_block(&b, &mut at);
    assert_eq!(line(&b, &mut at), format!("id 1 {n} int"));
    assert_eq!(be_i32s(&b, &mut at, n), (0..n as i32).collect::<Vec<_>>());
    end_of_block(&b, &mut at);
    assert_eq!(line(&b, &mut at), format!("angular_velocity 3 {n} double"));
    let spin = be_f64s(&b, &mut at, 3 * n);
    for i in 0..n {
        assert_eq!(
            DVec3::from_slice(&spin[3 * i..]),
            snap.angular_velocity_of(i)
        );
    }
    end_of_block(&b, &mut at);
    assert_eq!(at, b.len(), "nothing after the last block");
}

#[test]
fn legacy_vtk_of_empty_snapshot_has_no_vertices_section() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.vtk");
    write_vtk(&path, &Snapshot::default()).unwrap();
    let text = String::from_utf8(fs::read(&path).unwrap()).unwrap();
    assert!(text.contains("POINTS 0 double\n"), "{text}");
    assert!(!text.contains("VERTICES"), "{text}");
    assert!(text.contains("POINT_DATA 0\n"), "{text}");
}

/// Value of `attr="…"` in `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let start = tag.find(&key).unwrap_or_else(|| panic!("{name} in {tag}")) + key.len();
    let len = tag[start..].find('"').unwrap();
    &tag[start..start + len]
}

#[test]
fn vtp_structure_offsets_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.vtp");
    let n = 4usize;
    let snap = simple_snapshot(9, 1.5, n);
    write_vtp(&path, &snap).unwrap();
    let b = fs::read(&path).unwrap();
    let marker = b"<AppendedData encoding=\"raw\">";
    let head_end = b.windows(marker.len()).position(|w| w == marker).unwrap();
    let head = std::str::from_utf8(&b[..head_end]).unwrap();
    assert!(head.starts_with("<?xml"));
    assert!(head.contains("type=\"PolyData\""));
    assert!(head.contains("byte_order=\"LittleEndian\""));
    assert!(head.contains("header_type=\"UInt64\""));
    let piece = head.lines().find(|l| l.contains("<Piece")).unwrap();
    assert_eq!(attr(piece, "NumberOfPoints"), n.to_string());
    assert_eq!(attr(piece, "NumberOfVerts"), n.to_string());
    let data_start = head_end + b[head_end..].iter().position(|&c| c == b'_').unwrap() + 1;
    let tail = b"\n  </AppendedData>\n</VTKFile>\n";
    assert!(b.ends_with(tail));

    // Decode each named array through its offset and its 8-byte length header.
    let mut names = Vec::new();
    let mut total = 0usize;
    for tag in head.lines().filter(|l| l.contains("format=\"appended\"")) {
        let name = attr(tag, "Name");
        let comps: usize = attr(tag, "NumberOfComponents").parse().unwrap();
        let off: usize = attr(tag, "offset").parse().unwrap();
        let at = data_start + off;
        let len = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
        assert_eq!(len, 8 * comps * n, "{name}");
        let words: Vec<[u8; 8]> = b[at + 8..at + 8 + len]
            .chunks_exact(8)
            .map(|c| c.try_into().unwrap())
            .collect();
        let f = |k: usize| f64::from_le_bytes(words[k]);
        let i = |k: usize| i64::from_le_bytes(words[k]);
        match name {
            "radius" => (0..n).for_each(|k| assert_eq!(f(k), snap.radius[k])),
            "mass" => (0..n).for_each(|k| assert_eq!(f(k).to_bits(), snap.mass[k].to_bits())),
            "id" | "connectivity" => (0..n).for_each(|k| assert_eq!(i(k), k as i64)),
            "offsets" => (0..n).for_each(|k| assert_eq!(i(k), k as i64 + 1)),
            "velocity" => (0..n).for_each(|k| {
                assert_eq!(
                    DVec3::new(f(3 * k), f(3 * k + 1), f(3 * k + 2)),
                    snap.velocity[k]
                )
            }),
            "angular_velocity" => (0..n).for_each(|k| {
                assert_eq!(
                    DVec3::new(f(3 * k), f(3 * k + 1), f(3 * k + 2)),
                    snap.angular_velocity_of(k)
                )
            }),
            "Points" => (0..n).for_each(|k| {
                assert_eq!(
                    DVec3::new(f(3 * k), f(3 * k + 1), f(3 * k + 2)),
                    snap.position[k]
                )
            }),
            other => panic!("unexpected array {other}"),
        }
        names.push(name);
        total += 8 + len;
    }
    names.sort();
    assert_eq!(
        names,
        [
            "Points",
            "angular_velocity",
            "connectivity",
            "id",
            "mass",
            "offsets",
            "radius",
            "velocity"
        ]
    );
    assert_eq!(
        data_start + total + tail.len(),
        b.len(),
        "blocks fill the section"
    );
}

#[test]
fn series_writes_files_and_pvd_lists_them_with_times() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/out");
    let mut series = SeriesWriter::new(&out).unwrap();
    assert!(out.is_dir());
    assert!(listing(&out).is_empty(), "prepare leaves nothing behind");
    let times = [(0u64, 0.0), (10, 0.001), (20, 0.002)];
    for &(step, time) in &times {
        series.write(&simple_snapshot(step, time, 3)).unwrap();
    }
    // Rewriting a step replaces its entry instead of listing it twice.
    series.write(&simple_snapshot(10, 0.001, 3)).unwrap();
    assert_eq!(series.entries().len(), 3);
    assert_eq!(
        listing(&out),
        [
            "series.pvd",
            "snapshot_00000000.csv",
            "snapshot_00000000.vtp",
            "snapshot_00000010.csv",
            "snapshot_00000010.vtp",
            "snapshot_00000020.csv",
            "snapshot_00000020.vtp",
        ]
    );
    assert_eq!(series.pvd_path(), out.join("series.pvd"));
    let pvd = fs::read_to_string(out.join("series.pvd")).unwrap();
    assert!(pvd.starts_with("<?xml"));
    assert!(pvd.contains("<VTKFile type=\"Collection\""));
    let datasets: Vec<(String, String)> = pvd
        .lines()
        .filter(|l| l.contains("<DataSet"))
        .map(|l| (attr(l, "timestep").to_string(), attr(l, "file").to_string()))
        .collect();
    assert_eq!(
        datasets,
        [
            ("0".to_string(), "snapshot_00000000.vtp".to_string()),
            ("0.001".to_string(), "snapshot_00000010.vtp".to_string()),
            ("0.002".to_string(), "snapshot_00000020.vtp".to_string()),
        ]
    );
    let back = read_csv(&out.join("snapshot_00000020.csv")).unwrap();
    assert_same_bits(&simple_snapshot(20, 0.002, 3), &back);
}

#[test]
fn series_with_legacy_vtk_adds_vtk_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut series = SeriesWriter::new(dir.path()).unwrap().with_legacy_vtk(true);
    series.write(&simple_snapshot(5, 0.5, 2)).unwrap();
    series.write(&simple_snapshot(10, 1.0, 2)).unwrap();
    assert_eq!(
        listing(dir.path()),
        [
            "series.pvd",
            "series.vtk.series",
            "snapshot_00000005.csv",
            "snapshot_00000005.vtk",
            "snapshot_00000005.vtp",
            "snapshot_00000010.csv",
            "snapshot_00000010.vtk",
            "snapshot_00000010.vtp"
        ]
    );
    let pvd = fs::read_to_string(dir.path().join("series.pvd")).unwrap();
    assert!(
        !pvd.contains(".vtk\""),
        "legacy files are not listed: {pvd}"
    );
    // ParaView's JSON file series lists the legacy files with their times.
    let text = fs::read_to_string(dir.path().join("series.vtk.series")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["file-series-version"], "1.0");
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["name"], "snapshot_00000005.vtk");
    assert_eq!(files[0]["time"], 0.5);
    assert_eq!(files[1]["name"], "snapshot_00000010.vtk");
    assert_eq!(files[1]["time"], 1.0);
}

#[test]
fn series_on_bad_dir_fails_early() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    fs::write(&file, "x").unwrap();
    let err = SeriesWriter::new(file.join("out")).unwrap_err();
    assert!(err.to_string().contains("plain"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Stats JSON and energy log

fn diag(step: u64, kinetic: f64, collisions: u64) -> Diagnostics {
    Diagnostics {
        step,
        time: step as f64 * 1e-3,
        kinetic,
        kinetic_rotational: 0.125,
        potential_uniform: -1.0,
        potential_gravity: -0.5,
        potential_spring: 0.25,
        momentum: DVec3::new(1.0, 2.0, 3.0),
        momentum_magnitude_sum: 4.0 + step as f64,
        angular_momentum: DVec3::new(-1.0, 0.0, 0.5),
        contacts: step / 2,
        collisions,
        dissipated: 0.125 * step as f64,
        friction_history_dropped: 3 * step,
        neighbour_rebuilds: step / 4,
        removed_spheres: step / 8,
        removed_mass: 0.5 * (step / 8) as f64,
        removed_energy: 0.0625 * step as f64,
        inserted_spheres: step / 16,
        inserted_mass: 0.25 * (step / 16) as f64,
        inserted_energy: 0.03125 * step as f64,
        insertion_failures: step / 32,
    }
}

#[test]
fn stats_json_has_every_design_key_with_the_right_type() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stats.json");
    let stats = RunStats::from_diagnostics(
        "bounce",
        "cpu",
        "CPU (2 threads)",
        "f32",
        1000,
        200,
        1e-3,
        0.5,
        &diag(0, 10.0, 3),
        &diag(200, 9.0, 45),
        false,
    );
    write_stats_json(&path, &stats).unwrap();
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let o = v.as_object().unwrap();
    for key in [
        "backend",
        "adapter",
        "scene",
        "precision",
        "spheresim_version",
    ] {
        assert!(o[key].is_string(), "{key}");
    }
    for key in [
        "particles",
        "steps",
        "collisions",
        "contacts_final",
        "neighbour_rebuilds",
        "removed_spheres",
        "inserted_spheres",
        "insertion_failures",
    ] {
        assert!(o[key].is_u64(), "{key}");
    }
    for key in [
        "wall_seconds",
        "particle_steps_per_second",
        "kinetic_energy_initial",
        "kinetic_energy_final",
        "rotational_kinetic_energy_initial",
        "rotational_kinetic_energy_final",
        "total_energy_initial",
        "total_energy_final",
        "dt",
        "simulated_time",
        "energy_drift_relative",
        "dissipated_energy",
        "energy_balance_change_relative",
        "removed_mass",
        "removed_energy",
        "inserted_mass",
        "inserted_energy",
    ] {
        assert!(o[key].is_f64(), "{key}: {}", o[key]);
    }
    // Dissipated during the run: the final value less the initial one; so are the dropped
    // friction histories.
    assert_eq!(o["dissipated_energy"], 0.125 * 200.0);
    assert_eq!(o["friction_history_dropped"], 3 * 200);
    assert_eq!(o["neighbour_rebuilds"], 200 / 4);
    assert_eq!(o["removed_spheres"], 200 / 8);
    assert_eq!(o["removed_mass"], 0.5 * 25.0);
    assert_eq!(o["removed_energy"], 0.0625 * 200.0);
    assert_eq!(o["inserted_spheres"], 200 / 16);
    assert_eq!(o["insertion_failures"], 200 / 32);
    // A run that starts past step 0 (non-zero counters at the start) reports only its own part.
    let later = RunStats::from_diagnostics(
        "bounce",
        "cpu",
        "CPU (2 threads)",
        "f32",
        1000,
        160,
        1e-3,
        0.5,
        &diag(40, 10.0, 3),
        &diag(200, 9.0, 45),
        false,
    );
    assert_eq!(later.dissipated_energy, 0.125 * 160.0);
    assert_eq!(later.friction_history_dropped, 3 * 160);
    assert_eq!(later.neighbour_rebuilds, 200 / 4 - 40 / 4);
    for key in [
        "momentum_initial",
        "momentum_final",
        "angular_momentum_initial",
        "angular_momentum_final",
    ] {
        let a = o[key].as_array().unwrap_or_else(|| panic!("{key}"));
        assert_eq!(a.len(), 3, "{key}");
        assert!(a.iter().all(|x| x.is_f64()), "{key}");
    }
    assert!(o["interrupted"].is_boolean());
    assert_eq!(o["backend"], "cpu");
    assert_eq!(o["particles"], 1000);
    assert_eq!(o["steps"], 200);
    assert_eq!(o["collisions"], 42);
    assert_eq!(o["particle_steps_per_second"], 400_000.0);
    assert_eq!(o["kinetic_energy_final"], 9.0);
    assert_eq!(o["total_energy_initial"], 8.875);
    assert_eq!(o["total_energy_final"], 7.875);
    assert_eq!(o["rotational_kinetic_energy_final"], 0.125);
    // serde_json's default parser may miss the nearest f64 by an ulp.
    let drift = o["energy_drift_relative"].as_f64().unwrap();
    assert!((drift - (7.875 - 8.875) / 8.875).abs() < 1e-15, "{drift}");
    assert_eq!(o["momentum_final"], serde_json::json!([1.0, 2.0, 3.0]));
    assert_eq!(o["simulated_time"], 0.2);
    assert_eq!(o["spheresim_version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn stats_json_writes_non_finite_numbers_as_null() {
    let mut blown = diag(10, f64::NAN, 0);
    blown.momentum.x = f64::INFINITY;
    let zero = Diagnostics::default();
    let stats = RunStats::from_diagnostics(
        "s", "gpu", "a", "f64", 10, 10, 1e-3, 0.0, &zero, &blown, true,
    );
    let v: serde_json::Value = serde_json::from_str(&stats.to_json_pretty()).unwrap();
    assert!(v["kinetic_energy_final"].is_null());
    assert!(v["particle_steps_per_second"].is_null(), "wall_seconds = 0");
    assert!(v["energy_drift_relative"].is_null(), "initial energy 0");
    assert!(v["momentum_final"][0].is_null());
    assert_eq!(v["momentum_final"][1], 2.0);
    assert_eq!(v["interrupted"], true);
}

#[test]
fn energy_log_has_header_and_one_row_per_sample() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("energy.csv");
    write_energy_log(&path, &[diag(0, 10.0, 0), diag(100, 9.5, 7)]).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], ENERGY_LOG_HEADER);
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[2],
        "100,0.1,9.5,-1,-0.5,0.25,8.375,1,2,3,-1,0,0.5,50,7,12.5,0.125"
    );
    let cols = ENERGY_LOG_HEADER.split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == cols));
}

// ---------------------------------------------------------------------------------------------
// Atomic writes and path checks

#[test]
fn atomic_write_replaces_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write_atomic(&path, |w| w.write_all(b"first")).unwrap();
    write_atomic(&path, |w| w.write_all(b"second")).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "second");
    assert_eq!(listing(dir.path()), ["a.txt"]);
}

#[cfg(unix)]
#[test]
fn atomic_write_gives_normal_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.txt");
    write_atomic(&path, |w| w.write_all(b"x")).unwrap();
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    // Not the owner-only 0600 of a raw temporary file (assumes the usual umask 022 or 002).
    assert_eq!(mode & 0o044, 0o044, "mode {mode:o}");
}

#[test]
fn failed_atomic_write_keeps_old_content_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keep.csv");
    fs::write(&path, "old content").unwrap();
    let err = write_atomic(&path, |w| {
        // Write more than the buffer holds so bytes really reach the temporary file.
        w.write_all(&vec![b'x'; 3 << 20])?;
        Err(io::Error::other("simulated failure"))
    })
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("keep.csv") && msg.contains("simulated failure"),
        "{msg}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "old content");
    assert_eq!(listing(dir.path()), ["keep.csv"]);

    // Without an old file, a failed write creates nothing.
    let fresh = dir.path().join("fresh.csv");
    assert!(write_atomic(&fresh, |_| Err(io::Error::other("no"))).is_err());
    assert_eq!(listing(dir.path()), ["keep.csv"]);
}

#[test]
fn check_writable_file_errors_on_missing_parent_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("nonexistent");
    let path = parent.join("x.csv");
    let err = check_writable_file(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot write {}: parent directory {} does not exist",
            path.display(),
            parent.display()
        )
    );
    assert_eq!(err.path(), path.as_path());
    assert!(!parent.exists(), "nothing created");
    assert!(listing(dir.path()).is_empty());
    // The writers fail the same way and create nothing either.
    let msg = write_csv(&path, &simple_snapshot(0, 0.0, 2))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("does not exist"), "{msg}");
    assert!(listing(dir.path()).is_empty());
}

#[test]
fn check_writable_file_errors_on_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let err = check_writable_file(&sub).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&sub.display().to_string()), "{msg}");
    assert!(msg.contains("is a directory"), "{msg}");
    assert!(listing(&sub).is_empty());
    assert_eq!(listing(dir.path()), ["sub"]);
    // write_atomic refuses it too and leaves the directory alone.
    assert!(write_atomic(&sub, |w| w.write_all(b"x")).is_err());
    assert!(sub.is_dir() && listing(&sub).is_empty());
}

#[test]
fn check_writable_file_errors_when_parent_is_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    fs::write(&file, "x").unwrap();
    let path = file.join("x.csv");
    let msg = check_writable_file(&path).unwrap_err().to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("not a directory"), "{msg}");
    assert_eq!(listing(dir.path()), ["plain"]);
}

#[test]
fn check_writable_file_succeeds_without_creating_anything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("later.csv");
    check_writable_file(&path).unwrap();
    assert!(listing(dir.path()).is_empty());
    // An existing file is fine and left as it is.
    fs::write(&path, "old").unwrap();
    check_writable_file(&path).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "old");
    assert_eq!(listing(dir.path()), ["later.csv"]);
}

#[cfg(unix)]
#[test]
fn check_writable_file_errors_on_read_only_dir() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    fs::create_dir(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores permission bits; the check only means something for other users.
    let probe_ok = fs::write(ro.join("probe"), "x").is_ok();
    if probe_ok {
        fs::remove_file(ro.join("probe")).unwrap();
        eprintln!("skipping read-only check: running with permission override (root)");
    } else {
        let msg = check_writable_file(&ro.join("x.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(&format!(
                "cannot create files in directory {}: ",
                ro.display()
            )) && msg.contains("Permission denied"),
            "{msg}"
        );
        assert!(listing(&ro).is_empty());
    }
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn prepare_output_dir_creates_nested_dirs_and_leaves_them_empty() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a/b/c");
    prepare_output_dir(&out).unwrap();
    assert!(out.is_dir());
    assert!(listing(&out).is_empty());
    // Again on the existing directory: fine, contents untouched.
    fs::write(out.join("keep"), "k").unwrap();
    prepare_output_dir(&out).unwrap();
    assert_eq!(listing(&out), ["keep"]);
}

#[test]
fn prepare_output_dir_under_a_regular_file_fails_naming_the_dir() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    fs::write(&file, "x").unwrap();
    let out: PathBuf = file.join("out");
    let err = prepare_output_dir(&out).unwrap_err();
    assert!(matches!(err, OutputError::Dir { .. }), "{err}");
    assert!(
        err.to_string().contains(&out.display().to_string()),
        "{err}"
    );
    // A path that is itself a regular file is refused too.
    let msg = prepare_output_dir(&file).unwrap_err().to_string();
    assert!(msg.contains("not a directory"), "{msg}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
    assert_eq!(listing(dir.path()), ["plain"]);
}

#[test]
fn snapshot_file_names_are_zero_padded() {
    assert_eq!(
        output::snapshot_file_name(0, "csv"),
        "snapshot_00000000.csv"
    );
    assert_eq!(
        output::snapshot_file_name(123_456_789, "vtp"),
        "snapshot_123456789.vtp"
    );
    assert_eq!(output::PVD_FILE_NAME, "series.pvd");
}

/// A symbolic link is written through to its target: the target gets the new content and the
/// link stays a link (the old rename replaced the link with a file and left the target stale).
#[cfg(unix)]
#[test]
fn a_symlink_target_gets_the_output_and_the_link_stays() {
    let d = tempfile::tempdir().unwrap();
    let real = d.path().join("real.csv");
    let link = d.path().join("link.csv");
    fs::write(&real, "old\n").unwrap();
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    write_atomic(&link, |w| w.write_all(b"new\n")).unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("real.csv"));
    assert_eq!(fs::read_to_string(&real).unwrap(), "new\n");
    // A dangling link: its target is created.
    let dangling = d.path().join("dangling.csv");
    std::os::unix::fs::symlink(d.path().join("later.csv"), &dangling).unwrap();
    check_writable_file(&dangling).unwrap();
    write_csv(&dangling, &awkward_snapshot(2)).unwrap();
    assert!(
        fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read_csv(&d.path().join("later.csv")).unwrap().len(), 2);
}

/// A FIFO is written through: a reader gets the whole file, and the FIFO stays a FIFO (the
/// old rename replaced it with a regular file and its reader got nothing).
#[cfg(unix)]
#[test]
fn a_fifo_reader_gets_the_output() {
    use std::os::unix::fs::FileTypeExt;
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("state.csv");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    check_writable_file(&fifo).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || tx.send(fs::read_to_string(fifo).unwrap()));
    }
    let snap = awkward_snapshot(3);
    write_csv(&fifo, &snap).unwrap();
    // A writer that never opened the FIFO leaves the reader waiting: a guard against a hang,
    // not a timing.
    let text = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the FIFO's reader got nothing");
    assert!(text.starts_with(CSV_HEADER), "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

/// A full device is an error that names the path and ENOSPC, with a non-zero exit; the device
/// stays a device (the old rename, run as root, replaced /dev/full with a regular file and
/// exited 0; as another user it failed on creating a temporary file in /dev).
#[cfg(target_os = "linux")]
#[test]
fn a_full_device_is_an_enospc_error() {
    use std::os::unix::fs::FileTypeExt;
    let dev = Path::new("/dev/full");
    if !fs::metadata(dev).is_ok_and(|m| m.file_type().is_char_device()) {
        eprintln!("SKIPPED: no /dev/full character device");
        return;
    }
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args([
            "run",
            "bounce",
            "--steps",
            "5",
            "--backend",
            "cpu",
            "-q",
            "--final",
            "/dev/full",
        ])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("cannot write /dev/full: No space left on device (ENOSPC)"),
        "{e}"
    );
    assert!(fs::metadata(dev).unwrap().file_type().is_char_device());
    // /dev/null takes the same output and succeeds.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args(["run", "bounce", "--steps", "5", "--backend", "cpu", "-q"])
        .args(["--final", "/dev/null", "--stats-json", "/dev/null"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

/// `--final /dev/stdout` writes the CSV to the process's standard output, ahead of the summary,
/// and leaves /dev/stdout a link (the old rename, run as root, replaced it with a file).
#[cfg(target_os = "linux")]
#[test]
fn dev_stdout_gets_the_output_in_place() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args([
            "run",
            "two-spheres",
            "--steps",
            "5",
            "--backend",
            "cpu",
            "-q",
        ])
        .args(["--final", "/dev/stdout"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with(CSV_HEADER), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("ran "))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(out.contains("final state: /dev/stdout"), "{out}");
    assert!(
        fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// The periodic images' columns read back as integers (after `wx,wy,wz`); a field that is not an
/// integer is named with its column.
#[test]
fn csv_reads_periodic_images_back_and_names_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("images.csv");
    let head = "id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz,ix,iy,iz\n";
    fs::write(
        &path,
        format!("{head}0,0.1,0.2,0.3,0,0,0,0.05,1,0,0,0,3,-1,0\n"),
    )
    .unwrap();
    let snap = read_csv(&path).unwrap();
    assert_eq!(snap.image, vec![[3, -1, 0]]);
    fs::write(
        &path,
        format!("{head}0,0.1,0.2,0.3,0,0,0,0.05,1,0,0,0,0.5,0,0\n"),
    )
    .unwrap();
    let e = read_csv(&path).unwrap_err().to_string();
    assert!(
        e.contains("line 2") && e.contains("ix \"0.5\" is not an integer"),
        "{e}"
    );
}
