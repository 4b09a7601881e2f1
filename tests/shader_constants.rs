//! Every constant the WGSL stages share with Rust has the Rust value: each stage's source is
//! parsed with naga and its `const` declarations read back. A constant declared in a shader
//! must be either checked here or listed as shader-only, so a new shared constant cannot go
//! unchecked.

use naga::{Expression, Literal};
use spheresim::gpu::pipelines::{DIAGNOSTICS, STAGES, source};
use std::collections::BTreeMap;

/// A scalar constant's value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
}

/// The named scalar constants of a WGSL source.
fn constants(name: &str, src: &str) -> BTreeMap<String, Value> {
    let module = naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("shader {name}: {}", e.emit_to_string(src)));
    let mut out = BTreeMap::new();
    for (_, c) in module.constants.iter() {
        let Some(cname) = &c.name else { continue };
        let v = match module.global_expressions[c.init] {
            Expression::Literal(Literal::U32(v)) => Value::U32(v),
            Expression::Literal(Literal::I32(v)) => Value::I32(v),
            Expression::Literal(Literal::F32(v)) => Value::F32(v),
            Expression::Literal(Literal::Bool(v)) => Value::Bool(v),
            ref other => panic!("shader {name}: constant {cname} is not a scalar: {other:?}"),
        };
        out.insert(cname.clone(), v);
    }
    out
}

/// Constants of every stage, by name; a name declared in several stages must agree.
fn all_constants() -> BTreeMap<String, Value> {
    let mut all = BTreeMap::new();
    let mut stages: Vec<(&str, &str)> = STAGES.to_vec();
    stages.push(("diagnostics", DIAGNOSTICS));
    for (name, src) in stages {
        for (k, v) in constants(name, &source(src)) {
            if let Some(old) = all.insert(k.clone(), v) {
                assert_eq!(old, v, "{k} differs between shaders ({name})");
            }
        }
    }
    all
}

/// Constants that exist only in WGSL, with why no Rust twin is needed.
const SHADER_ONLY: &[(&str, &str)] = &[
    (
        "TAU_NONE",
        "stands for the CPU's infinity, which WGSL lacks",
    ),
    (
        "ITEMS",
        "entries per thread of the scan; SCAN_BLOCK = WG × ITEMS is checked",
    ),
];

#[test]
fn shared_constants_match_their_rust_twins() {
    use spheresim::cpu::collide::{NO_EVENT, PLANE_EVENT};
    use spheresim::gpu::buffers::{damping_code, model_code, rolling_code};
    use spheresim::scene::{ContactModel, Damping, RollingModel};
    use spheresim::setup::WallKind;
    let c = all_constants();
    let expect: Vec<(&str, Value)> = vec![
        ("WG", Value::U32(spheresim::gpu::WORKGROUP_SIZE)),
        (
            "PAIR_CONTACT",
            Value::U32(spheresim::cpu::collide::PAIR_CONTACT),
        ),
        (
            "PAIR_COLLISION",
            Value::U32(spheresim::cpu::collide::PAIR_COLLISION),
        ),
        (
            "PAIR_FORCE",
            Value::U32(spheresim::cpu::collide::PAIR_FORCE),
        ),
        (
            "PAIR_MATCHED",
            Value::U32(spheresim::gpu::collide::PAIR_MATCHED),
        ),
        (
            "PAIR_TALLY",
            Value::U32(spheresim::gpu::collide::PAIR_TALLY),
        ),
        ("EXPONENT_BITS", Value::U32(f32::INFINITY.to_bits())),
        (
            "MAX_BOUND",
            Value::F32(spheresim::physics::guard::MAX_BOUND as f32),
        ),
        (
            "SCAN_BLOCK",
            Value::U32(spheresim::setup::SCAN_BLOCK as u32),
        ),
        ("TILE", Value::U32(spheresim::cpu::gravity::TILE as u32)),
        ("PLANE_EVENT", Value::U32(PLANE_EVENT)),
        ("WALL_PLANE", Value::U32(WallKind::Plane.code())),
        (
            "WALL_SPHERE_INSIDE",
            Value::U32(WallKind::SphereInside.code()),
        ),
        ("NO_EVENT", Value::U32(NO_EVENT)),
        (
            "TANGENTIAL_STIFFNESS_RATIO",
            Value::F32(spheresim::physics::friction::TANGENTIAL_STIFFNESS_RATIO as f32),
        ),
        (
            "BLOCK_BITS",
            Value::U32(spheresim::cpu::cell_keys::BLOCK_BITS),
        ),
        (
            "CELL_LIMIT",
            Value::F32(spheresim::cpu::cell_keys::CELL_LIMIT as f32),
        ),
        (
            "MODEL_IMPULSE",
            Value::U32(model_code(ContactModel::Impulse)),
        ),
        (
            "MODEL_SPRING_DASHPOT",
            Value::U32(model_code(ContactModel::SpringDashpot)),
        ),
        ("MODEL_HERTZ", Value::U32(model_code(ContactModel::Hertz))),
        (
            "DAMPING_HUNT_CROSSLEY",
            Value::U32(damping_code(Damping::HuntCrossley)),
        ),
        ("DAMPING_FLORES", Value::U32(damping_code(Damping::Flores))),
        ("ROLLING_NONE", Value::U32(rolling_code(RollingModel::None))),
        (
            "ROLLING_DAMPING_RATIO",
            Value::F32(spheresim::physics::rotation::ROLLING_DAMPING_RATIO as f32),
        ),
        ("ROLLING_CDT", Value::U32(rolling_code(RollingModel::Cdt))),
        ("ROLLING_EPSD", Value::U32(rolling_code(RollingModel::Epsd))),
        (
            "LARGE_SKIN_LIMIT",
            Value::F32(spheresim::cpu::neighbours::LARGE_SKIN_LIMIT as f32),
        ),
        ("OWNED", Value::U32(spheresim::cpu::neighbours::OWNED)),
        (
            "SEEN_FILTER_MULTIPLIER",
            Value::U32(spheresim::cpu::collide::SEEN_FILTER_MULTIPLIER),
        ),
        (
            "NO_MIRROR",
            Value::U32(spheresim::cpu::neighbours::NO_MIRROR),
        ),
        ("NO_NODE", Value::U32(spheresim::cpu::tree::karras::NO_NODE)),
        (
            "GROUP",
            Value::U32(spheresim::cpu::tree::walk::GROUP as u32),
        ),
        (
            "MORTON_BITS",
            Value::U32(spheresim::cpu::tree::morton::MORTON_BITS),
        ),
        (
            "MORTON_CELLS",
            Value::U32(spheresim::cpu::tree::morton::MORTON_CELLS),
        ),
        (
            "RADIX_BITS",
            Value::U32(spheresim::cpu::tree::sort::RADIX_BITS),
        ),
        (
            "RADIX",
            Value::U32(1 << spheresim::cpu::tree::sort::RADIX_BITS),
        ),
        (
            "ENTRY_PASS",
            Value::U32(spheresim::gpu::work::ENTRY_PASS as u32),
        ),
        (
            "ROW_PASS",
            Value::U32(spheresim::gpu::work::ROW_PASS as u32),
        ),
        (
            "BUILD_PASS",
            Value::U32(spheresim::gpu::work::BUILD_PASS as u32),
        ),
        (
            "CELL_WORDS",
            Value::U32((spheresim::gpu::tree::CELL_BYTES / 4) as u32),
        ),
    ];
    for (name, value) in &expect {
        assert_eq!(
            c.get(*name),
            Some(value),
            "WGSL constant {name} against its Rust twin"
        );
    }
    if let (Some(Value::U32(wg)), Some(Value::U32(items))) = (c.get("WG"), c.get("ITEMS")) {
        assert_eq!(wg * items, spheresim::setup::SCAN_BLOCK as u32);
    } else {
        panic!("WG and ITEMS must be u32 constants");
    }
    for name in c.keys() {
        assert!(
            expect.iter().any(|(n, _)| n == name) || SHADER_ONLY.iter().any(|(n, _)| n == name),
            "WGSL constant {name} is neither checked against Rust nor listed as shader-only"
        );
    }
}

#[test]
fn a_changed_constant_is_seen() {
    let c = constants(
        "sample",
        "const SCAN_BLOCK: u32 = 512u;\nconst F: f32 = 0.5;",
    );
    assert_eq!(c["SCAN_BLOCK"], Value::U32(512));
    assert_ne!(
        c["SCAN_BLOCK"],
        Value::U32(spheresim::setup::SCAN_BLOCK as u32)
    );
    assert_eq!(c["F"], Value::F32(0.5));
}

/// The compute entry points of every stage with their work-group sizes.
fn workgroup_sizes() -> Vec<(String, [u32; 3])> {
    let mut stages: Vec<(&str, &str)> = STAGES.to_vec();
    stages.push(("diagnostics", DIAGNOSTICS));
    let mut out = Vec::new();
    for (name, src) in stages {
        let src = source(src);
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("shader {name}: {}", e.emit_to_string(&src)));
        for ep in &module.entry_points {
            if ep.stage == naga::ShaderStage::Compute {
                out.push((format!("{name}::{}", ep.name), ep.workgroup_size));
            }
        }
    }
    out
}

/// Every compute entry point runs work-groups of the shared size (the host's dispatch counts
/// divide by it), or is a one-thread pass, or is the tree walk, whose work-group is one walk
/// group (`cpu::tree::walk::GROUP` bodies); the gravity tile is one body per invocation.
#[test]
fn every_stage_uses_the_shared_workgroup_size() {
    let wg = spheresim::gpu::WORKGROUP_SIZE;
    let sizes = workgroup_sizes();
    assert!(sizes.len() > 20, "too few entry points found: {sizes:?}");
    for (name, size) in &sizes {
        let group = spheresim::cpu::tree::walk::GROUP as u32;
        assert!(
            *size == [wg, 1, 1]
                || *size == [1, 1, 1]
                || (name == "tree_walk::tree_walk" && *size == [group, 1, 1]),
            "{name}: @workgroup_size {size:?}, not ({wg}) or (1)"
        );
    }
    assert_eq!(spheresim::cpu::gravity::TILE as u32, wg, "gravity tile");
    assert_eq!(
        spheresim::cpu::collide::ROW_LANES as u32,
        wg,
        "lanes of a large sphere's row sum"
    );
    let one_thread: Vec<_> = sizes.iter().filter(|(_, s)| *s == [1, 1, 1]).collect();
    assert!(
        one_thread.len() <= 2,
        "one-thread passes serialise a GPU; only the dispatch gates may be: {one_thread:?}"
    );
}

/// The members of WGSL struct `name` in the composed source of `stage`: (name, offset) of each
/// member not named `pad…`, and the struct's size.
fn wgsl_layout(stage: &str, name: &str) -> (BTreeMap<String, u32>, u32) {
    let src = STAGES
        .iter()
        .find(|(s, _)| *s == stage)
        .map(|(_, src)| source(src))
        .unwrap_or_else(|| panic!("no stage {stage}"));
    let module = naga::front::wgsl::parse_str(&src).expect("parse the stage");
    let (members, span) = module
        .types
        .iter()
        .find_map(|(_, t)| match (&t.name, &t.inner) {
            (Some(n), naga::TypeInner::Struct { members, span }) if n == name => {
                Some((members.clone(), *span))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("struct {name} in stage {stage}"));
    let named = members
        .iter()
        .map(|m| (m.name.clone().expect("named member"), m.offset))
        .filter(|(n, _)| !n.starts_with("pad"))
        .collect();
    (named, span)
}

/// (name, offset) of each listed field of a Rust struct, and its size.
macro_rules! rust_layout {
    ($t:ty: $($f:ident),* $(,)?) => {
        (
            [$((stringify!($f).to_string(), std::mem::offset_of!($t, $f) as u32)),*]
                .into_iter()
                .collect::<BTreeMap<String, u32>>(),
            std::mem::size_of::<$t>() as u32,
        )
    };
}

/// Every `#[repr(C)]` struct the host writes for the GPU agrees with its WGSL struct, member by
/// member (padding aside): the same names at the same byte offsets, and the same size. Field
/// order, alignment (a `vec3<f32>` starts at a multiple of 16) and trailing padding all show
/// up as an offset or a size.
#[test]
fn shared_structs_match_their_wgsl_layout() {
    use spheresim::gpu::buffers::{
        Grid, ListParams, Params, PlaneGpu, ScanParams, Status, TreeParams,
    };
    let cases = [
        (
            "integrate",
            "Params",
            rust_layout!(Params: gravity, dt, n, n_small, table_size, n_planes, small_radius_max,
                g_const, eps2, drag, stiffness, model, overlap_relaxation, dispatch_x,
                resting_speed, history, skin, row_groups_x, rotation, rolling, damping,
                history_stride, guard_distance, guard_speed, guard_accel, guard_centre, periodic,
                box_min, box_len, box_half, wall_forces),
        ),
        (
            "integrate",
            "Grid",
            rust_layout!(Grid: speed_max_bits, cell_edge, inv_cell_edge, small_speed_max, step),
        ),
        (
            "integrate",
            "Status",
            rust_layout!(Status: first_bad_step, bad_id, collisions, history_dropped, rebuilds,
                list_needed, steps, reach),
        ),
        (
            "collide",
            "Plane",
            rust_layout!(PlaneGpu: point, e, normal, zeta, compliance, mu, radius,
                rolling_friction, velocity, kind),
        ),
        (
            "collide",
            "ListParams",
            rust_layout!(ListParams: capacity, dispatch_x, split, large_chunks),
        ),
        (
            "prefix_sum",
            "ScanParams",
            rust_layout!(ScanParams: len, dispatch_x),
        ),
        (
            "tree_walk",
            "TreeParams",
            rust_layout!(TreeParams: n, len, shift, blocks, dispatch_x, theta2, eps2, g_const),
        ),
    ];
    for (stage, name, (rust, size)) in cases {
        let (wgsl, span) = wgsl_layout(stage, name);
        assert_eq!(
            wgsl, rust,
            "{name}: WGSL member offsets (left) against the Rust struct's (right)"
        );
        assert_eq!(
            span, size,
            "{name}: WGSL size against the Rust struct's size"
        );
    }
}

#[test]
fn the_gpu_only_pair_flags_are_bits_of_their_own() {
    use spheresim::cpu::collide::{PAIR_COLLISION, PAIR_CONTACT, PAIR_FORCE};
    use spheresim::gpu::collide::{PAIR_MATCHED, PAIR_TALLY};
    let shared = PAIR_CONTACT | PAIR_COLLISION | PAIR_FORCE;
    for flag in [PAIR_MATCHED, PAIR_TALLY] {
        assert!(flag.is_power_of_two());
        assert_eq!(flag & shared, 0);
    }
    assert_ne!(PAIR_MATCHED, PAIR_TALLY);
}
