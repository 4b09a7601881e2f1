//! Every WGSL stage parses and validates with naga (no adapter needed), and declares the
//! entry points the driver uses.

use spheresim::gpu::pipelines::{DIAGNOSTICS, STAGES, analyse, source, validate};
use spheresim::recipe::{self, Config, Gate, Kind, Pass};
use std::collections::{BTreeSet, HashMap};

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
        ("cell_keys", &["cell_keys"]),
        ("count", &["seed_cell_start"]),
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

/// The `.wgsl` files of `shaders/<dir>/`, by stem (sorted), with their text.
fn wgsl_files(dir: &str) -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders")
        .join(dir);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, std::fs::read_to_string(&p).expect("read shader"))
        })
        .collect();
    out.sort();
    out
}

/// `shaders/physics/<module>.wgsl` (sorted) with its text.
fn physics_files() -> Vec<(String, String)> {
    wgsl_files("physics")
}

/// Each `shaders/physics/<module>.wgsl` is the twin of `src/physics/<module>.rs`: every
/// `// physics::…` comment in it names its own module and an item the Rust module declares, and
/// the file is part of some stage's source.
#[test]
fn physics_files_twin_their_rust_modules() {
    let files = physics_files();
    assert!(files.len() >= 6, "too few shaders/physics files: {files:?}");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (module, text) in &files {
        let rust_path = root.join(format!("src/physics/{module}.rs"));
        let rust = std::fs::read_to_string(&rust_path).unwrap_or_else(|e| {
            panic!(
                "shaders/physics/{module}.wgsl: {}: {e}",
                rust_path.display()
            )
        });
        assert!(
            STAGES.iter().any(|(_, src)| src.contains(text.as_str())),
            "shaders/physics/{module}.wgsl is appended to no stage (pipelines::PHYSICS)"
        );
        let mut twins = 0;
        for (k, line) in text.lines().enumerate() {
            let Some(at) = line.find("// physics::") else {
                continue;
            };
            let path = &line[at + "// physics::".len()..];
            let (m, rest) = path.split_once("::").unwrap_or((path, ""));
            let item: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let at = format!("shaders/physics/{module}.wgsl:{}", k + 1);
            assert_eq!(m, module, "{at}: a twin of another module's item");
            assert!(
                ["fn", "const", "struct"]
                    .iter()
                    .any(|kw| rust.contains(&format!("pub {kw} {item}"))),
                "{at}: src/physics/{module}.rs declares no `{item}`"
            );
            twins += 1;
        }
        assert!(
            twins > 0,
            "shaders/physics/{module}.wgsl names no Rust twin"
        );
    }
}

/// A function of `shaders/physics/` is defined there only: no stage file keeps its own copy.
#[test]
fn stage_files_keep_no_copy_of_a_physics_function() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut stages = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("read shaders/") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|x| x == "wgsl") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            stages.push((name, std::fs::read_to_string(&path).expect("read shader")));
        }
    }
    assert!(stages.len() >= 10, "too few shaders found");
    for (module, text) in physics_files() {
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("fn ") else {
                continue;
            };
            let name = rest.split('(').next().unwrap();
            for (stage, src) in &stages {
                assert!(
                    !src.lines().any(|l| l.starts_with(&format!("fn {name}("))),
                    "shaders/{stage} defines {name}, which shaders/physics/{module}.wgsl has"
                );
            }
        }
    }
}

/// `shaders/walls/<kind>.wgsl` (sorted) with its text.
fn wall_kind_files() -> Vec<(String, String)> {
    wgsl_files("walls")
}

/// Every wall kind has its geometry once on each backend: `src/cpu/collide/walls/<kind>.rs`
/// and `shaders/walls/<kind>.wgsl` come in pairs, each WGSL file is appended to some stage, and
/// each `// cpu::collide::walls::<kind>::<item>` comment in it names its own kind and a function
/// the Rust module declares; the per-operation dispatch (`shaders/walls.wgsl`) has an arm for
/// every kind's `WALL_*` code.
#[test]
fn wall_kind_files_twin_their_rust_modules() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = wall_kind_files();
    let rust_dir = root.join("src/cpu/collide/walls");
    let mut rust_kinds: Vec<String> = std::fs::read_dir(&rust_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", rust_dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .filter(|k| k != "mod" && k != "contact")
        .collect();
    rust_kinds.sort();
    let wgsl_kinds: Vec<&String> = files.iter().map(|(k, _)| k).collect();
    assert_eq!(
        wgsl_kinds,
        rust_kinds.iter().collect::<Vec<_>>(),
        "shaders/walls/*.wgsl (left) against src/cpu/collide/walls/<kind>.rs (right)"
    );
    let dispatch =
        std::fs::read_to_string(root.join("shaders/walls.wgsl")).expect("read shaders/walls.wgsl");
    for (kind, text) in &files {
        let rust = std::fs::read_to_string(rust_dir.join(format!("{kind}.rs"))).unwrap();
        assert!(
            STAGES.iter().any(|(_, src)| src.contains(text.as_str())),
            "shaders/walls/{kind}.wgsl is appended to no stage (pipelines::WALLS)"
        );
        let code = format!("WALL_{}", kind.to_uppercase());
        assert!(
            dispatch.contains(&format!("const {code}: u32"))
                && dispatch.contains(&format!("case {code}")),
            "shaders/walls.wgsl lacks the constant {code} or a `case {code}` arm"
        );
        let mut twins = 0;
        for (k, line) in text.lines().enumerate() {
            let Some(at) = line.find("// cpu::collide::walls::") else {
                continue;
            };
            let path = &line[at + "// cpu::collide::walls::".len()..];
            let (m, rest) = path.split_once("::").unwrap_or((path, ""));
            let item: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let at = format!("shaders/walls/{kind}.wgsl:{}", k + 1);
            assert_eq!(m, kind, "{at}: a twin of another kind's item");
            assert!(
                rust.contains(&format!("pub fn {item}<")),
                "{at}: src/cpu/collide/walls/{kind}.rs declares no `{item}`"
            );
            twins += 1;
        }
        assert!(
            twins >= 3,
            "shaders/walls/{kind}.wgsl twins fewer than gap, curvature and event"
        );
    }
}

/// The buffers each entry point of a stage file reads and writes, by entry point.
type Uses = HashMap<String, (Vec<String>, Vec<String>)>;

/// The buffers each entry point of stage file `name` reads and writes, by WGSL name, through
/// naga's analysis (a use of `arrayLength` alone is neither).
fn entry_uses(name: &str) -> Uses {
    use naga::valid::GlobalUse;
    let src = STAGES.iter().find(|(n, _)| *n == name).unwrap().1;
    let (m, info) = analyse(name, &source(src)).unwrap_or_else(|e| panic!("{e}"));
    let mut out = HashMap::new();
    for (i, ep) in m.entry_points.iter().enumerate() {
        let fi = info.get_entry_point(i);
        let (mut r, mut w) = (vec![], vec![]);
        for (h, var) in m.global_variables.iter() {
            let (Some(_), Some(n)) = (&var.binding, &var.name) else {
                continue;
            };
            if fi[h].contains(GlobalUse::READ) {
                r.push(n.clone());
            }
            if fi[h].contains(GlobalUse::WRITE) {
                w.push(n.clone());
            }
        }
        out.insert(ep.name.clone(), (r, w));
    }
    out
}

/// Each pass's `reads` and `writes` in the recipe against the buffers its entry points use:
/// it reads what an entry point reads before an earlier one of the pass writes it (and, gated
/// by the rebuild, its indirect arguments, unless it writes them), and writes what any writes;
/// names mapped by `recipe::resource`, the GPU's own buffers left out.
fn recipe_mismatches(passes: &[Pass]) -> Vec<String> {
    let mut uses: HashMap<&str, Uses> = HashMap::new();
    let mut problems = vec![];
    for p in passes {
        let (mut reads, mut writes): (BTreeSet<String>, BTreeSet<String>) = Default::default();
        for &(stage, entry) in recipe::entries(p.kind) {
            let module = uses.entry(stage).or_insert_with(|| entry_uses(stage));
            let (r, w) = module
                .get(entry)
                .unwrap_or_else(|| panic!("{}: no entry point {stage}::{entry}", p.name));
            let res = |v: &String| recipe::resource(p.kind, stage, v).map(str::to_string);
            for name in r.iter().filter_map(res) {
                if !writes.contains(&name) {
                    reads.insert(name);
                }
            }
            writes.extend(w.iter().filter_map(res));
        }
        if p.gate == Gate::Rebuild && !writes.contains("gated_dims") {
            reads.insert("gated_dims".into());
        }
        for (what, listed, used) in [("reads", p.reads, &reads), ("writes", p.writes, &writes)] {
            let listed: BTreeSet<String> = listed.iter().map(|s| s.to_string()).collect();
            let left_out: Vec<&String> = used.difference(&listed).collect();
            let stale: Vec<&String> = listed.difference(used).collect();
            if !left_out.is_empty() || !stale.is_empty() {
                problems.push(format!(
                    "{} ({:?}) {what}: leaves out {left_out:?}, names unused {stale:?}",
                    p.name, p.kind
                ));
            }
        }
    }
    problems
}

#[test]
fn the_recipes_lists_are_the_buffers_its_shaders_use() {
    let mut problems = vec![];
    for impulse in [false, true] {
        for gravity in [false, true] {
            for init in [false, true] {
                let c = Config {
                    impulse,
                    gravity,
                    rounds: 2,
                };
                problems.extend(recipe_mismatches(&recipe::step(c, init)));
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_binding_left_out_of_a_list_is_found() {
    let c = Config {
        impulse: true,
        gravity: false,
        rounds: 1,
    };
    let mut passes = recipe::step(c, false);
    let kick = passes
        .iter_mut()
        .find(|p| p.kind == Kind::KickDrift)
        .unwrap();
    kick.reads = &[
        "pos", "vel", "acc", "rot", "grid", "x_build", "rebuild", "status", "ids", "image",
    ];
    let problems = recipe_mismatches(&passes);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("leaves out [\"sweep\"]"),
        "{problems:?}"
    );
}
