//! Every WGSL stage parses and validates with naga (no adapter needed), and declares the
//! entry points the driver uses.

use spheresim::gpu::pipelines::{DIAGNOSTICS, STAGES, source, validate};

#[test]
fn every_shader_validates_with_naga() {
    let mut all: Vec<(&str, &str)> = STAGES.to_vec();
    all.push(("diagnostics", DIAGNOSTICS));
    for (name, src) in all {
        let module = validate(name, &source(src)).unwrap_or_else(|e| panic!("{e}"));
        assert!(!module.entry_points.is_empty(), "{name} has no entry point");
    }
}

#[test]
fn stages_declare_the_entry_points_the_driver_uses() {
    let expect: &[(&str, &[&str])] = &[
        (
            "integrate",
            &[
                "measure_speed",
                "kick_drift",
                "apply_contacts",
                "accelerations",
                "end_of_step",
            ],
        ),
        ("cell_keys", &["cell_keys", "bin_cells"]),
        ("count", &["count"]),
        ("prefix_sum", &["reduce", "scan_blocks"]),
        ("scatter", &["place", "rank"]),
        ("gather", &["gather"]),
        (
            "collide",
            &[
                "collide_pairs",
                "sum_pairs",
                "impulse_pairs",
                "earliest_from_pairs",
                "sum_impulses",
            ],
        ),
        ("neighbours", &["gate_dispatches", "list_count", "relink"]),
        ("gravity", &["gravity"]),
    ];
    for (name, entries) in expect {
        let src = STAGES.iter().find(|(n, _)| n == name).unwrap().1;
        let module = validate(name, &source(src)).unwrap();
        let have: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        for e in *entries {
            assert!(
                have.contains(e),
                "{name}: no entry point {e} (has {have:?})"
            );
        }
    }
}

#[test]
fn a_broken_shader_is_reported_with_its_name() {
    let err = validate("broken", &source("fn f() -> u32 { return 1.5; }")).unwrap_err();
    assert!(err.contains("broken"), "{err}");
}
