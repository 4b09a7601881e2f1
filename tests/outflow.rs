//! Outflows (`[[outflow]]`): the spheres that enter one leave, the others keep their ids, the
//! ledger books what left, the GPU and the event solver remove what the CPU removes, a
//! checkpoint taken after a pass resumes bit for bit, and bad tables are refused with their
//! line.

mod common;
use common::*;
use glam::DVec3;
use spheresim::history::ContactMemory;
use spheresim::scene::{ContactModel, Outflow, Plane, Scene, Sphere};
use spheresim::{Backend, Precision, Simulation};

const G: f64 = 9.81;

/// Twelve spheres of 1 cm in a row along x, 4 cm apart (they never touch), dropped from
/// heights 0.1 to 0.21 m onto a floor at y = 0 (spring–dashpot, e = 0.5); an outflow box
/// `0 ≤ x < 0.2`, `y < 0.03` checked every 500 steps takes the five with x < 0.2 as they come
/// down, the others bounce and settle. No sphere meets another, so which leave, and when, does
/// not depend on rounding.
fn rain(every: u64) -> Scene {
    let mut b = Scene::builder()
        .dt(1e-4)
        .steps(6000)
        .gravity(DVec3::new(0.0, -G, 0.0))
        .contact(ContactModel::SpringDashpot)
        .stiffness(2e4)
        .plane(Plane::new(DVec3::ZERO, DVec3::Y).restitution(0.5))
        .outflow(
            Outflow::of_box(DVec3::new(0.0, -1.0, -1.0), DVec3::new(0.2, 0.03, 1.0)).every(every),
        );
    for i in 0..12 {
        b = b.sphere(
            Sphere::new(
                DVec3::new(0.02 + 0.04 * i as f64, 0.1 + 0.01 * i as f64, 0.0),
                0.01,
            )
            .mass(0.01 + 0.001 * i as f64)
            .restitution(0.5),
        );
    }
    b.build().unwrap()
}

#[test]
fn the_spheres_that_enter_an_outflow_leave_and_the_others_keep_their_ids() {
    let scene = rain(500);
    let expected_mass: f64 = scene.spheres[..5].iter().map(|s| s.mass).sum();
    for precision in [Precision::F32, Precision::F64] {
        let mut sim = Simulation::new(&scene, Backend::Cpu, precision).unwrap();
        sim.step(6000).unwrap();
        assert_eq!(sim.particles(), 7, "{precision:?}");
        assert_eq!(sim.ids(), (5..12).collect::<Vec<u64>>(), "{precision:?}");
        let snap = sim.snapshot();
        assert_eq!(snap.id, (5..12).collect::<Vec<u64>>());
        // The survivors are the spheres of ids 5 to 11, resting on the floor where they fell.
        for (k, &id) in snap.id.iter().enumerate() {
            let x0 = scene.spheres[id as usize].position.x;
            // f32 rounds 0.46 m to 3e-8 m.
            assert!(
                (snap.position[k].x - x0).abs() < 1e-7,
                "sphere {id} moved sideways"
            );
            assert!(
                snap.position[k].y < 0.011,
                "sphere {id} is not on the floor"
            );
        }
        let d = sim.diagnostics();
        assert_eq!(d.removed_spheres, 5);
        assert!(
            rel(d.removed_mass, expected_mass, 0.0) < 1e-15,
            "{} against {expected_mass}",
            d.removed_mass
        );
        assert!(d.removed_energy > 0.0);
        assert_eq!(d.step, 6000);
    }
}

#[test]
fn steps_between_passes_do_not_change_where_the_passes_fall() {
    // One call of 6000 steps and calls of odd lengths pass at the same steps (multiples of
    // `every`), so they end in the same state.
    let scene = rain(700);
    let mut whole = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    whole.step(6000).unwrap();
    let mut parts = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    for n in [1, 699, 1, 333, 2000, 966, 2000] {
        parts.step(n).unwrap();
    }
    assert_eq!(parts.steps_done(), 6000);
    assert_eq!(whole.snapshot(), parts.snapshot());
    assert_eq!(whole.diagnostics(), parts.diagnostics());
}

/// 27 frictional rubber grains with rotation settling in a 10 cm box, and an outflow beyond the
/// plane x = 0.06 m (a third of the grains) at step `pass`.
fn pile(pass: u64, outflow: bool) -> Scene {
    let mut b = rubber_pile().steps(2 * pass);
    if outflow {
        b = b.outflow(Outflow::beyond(DVec3::new(0.06, 0.0, 0.0), DVec3::X).every(pass));
    }
    b.build().unwrap()
}

#[test]
fn the_ledger_books_the_energy_of_what_leaves() {
    let pass = 8000;
    let mut closed = Simulation::new(&pile(pass, false), Backend::Cpu, Precision::F64).unwrap();
    let mut open = Simulation::new(&pile(pass, true), Backend::Cpu, Precision::F64).unwrap();
    let start = open.diagnostics();
    closed.step(pass).unwrap();
    open.step(pass).unwrap();
    let (before, after) = (closed.diagnostics(), open.diagnostics());
    assert!(before.contacts > 10, "the grains should touch at the pass");
    assert!(after.removed_spheres > 0 && after.removed_spheres < 27);
    // At the pass the ledger moves what left from the mechanical energy to `removed_energy`:
    // the balance is the closed run's at the same step, to rounding.
    let scale = before.energy_scale();
    assert!(
        (after.energy_balance() - before.energy_balance()).abs() < 1e-12 * scale,
        "balance {} after the pass against {} before it",
        after.energy_balance(),
        before.energy_balance()
    );
    assert!(after.removed_energy > 0.0);
    assert!(after.total_energy() < before.total_energy());
    // And it keeps balancing after it, the elastic energy of the contacts that stay included.
    let drift_closed = {
        closed.step(pass).unwrap();
        closed.diagnostics().energy_balance_change_relative(&start)
    };
    open.step(pass).unwrap();
    let drift_open = open.diagnostics().energy_balance_change_relative(&start);
    eprintln!("energy balance change: closed {drift_closed:e}, open {drift_open:e}");
    assert!(
        drift_open.abs() < 5e-3,
        "the open pile's balance drifted by {drift_open:e}"
    );
}

/// What the closed run's contacts keep at the pass, for the spheres that stay, renamed as the
/// open run names them: their index in its snapshot.
fn kept_by_those_that_stay(closed: &Simulation, open: &Simulation) -> ContactMemory {
    let ids = open.ids();
    let new_id: Vec<Option<u32>> = (0..closed.particles() as u64)
        .map(|id| ids.iter().position(|&k| k == id).map(|k| k as u32))
        .collect();
    let memory = closed
        .contact_memory()
        .expect("Hertz with friction keeps history");
    memory.renumber(&new_id, open.particles())
}

#[test]
fn the_grains_that_stay_keep_their_contact_history_and_orientations_across_a_pass() {
    // Up to the pass the closed and the open pile are the same run. After it the open run's
    // backend is set up again on the grains that stay: each of their contacts, with a grain or
    // a wall, keeps what the closed run's kept, bit for bit (before 2026-11-28 it started
    // again from zero).
    let pass = 8000;
    for precision in [Precision::F64, Precision::F32] {
        let mut closed = Simulation::new(&pile(pass, false), Backend::Cpu, precision).unwrap();
        let mut open = Simulation::new(&pile(pass, true), Backend::Cpu, precision).unwrap();
        closed.step(pass).unwrap();
        open.step(pass).unwrap();
        assert!(open.diagnostics().removed_spheres > 0, "{precision:?}");
        let expected = kept_by_those_that_stay(&closed, &open);
        eprintln!(
            "{precision:?}: {} entries and {} wall rows keep a history",
            expected.pairs.len(),
            expected.wall.len()
        );
        assert!(
            expected.pairs.len() > 10 && !expected.wall.is_empty(),
            "{precision:?}: the grains that stay should touch each other and the walls"
        );
        // Each grain that stays keeps its orientation (before 2026-11-28: the identity).
        let (c, o) = (closed.snapshot(), open.snapshot());
        for (k, &id) in o.id.iter().enumerate() {
            assert_eq!(o.orientation[k], c.orientation[id as usize], "grain {id}");
        }
        assert!(
            o.orientation.iter().all(|q| q.w < 1.0),
            "every grain has turned"
        );
        let kept = open.contact_memory().unwrap();
        assert!(
            kept == expected,
            "{precision:?}: {} entries keep a history after the pass, {} of the same grains \
             before it, or they differ",
            kept.pairs.len(),
            expected.pairs.len()
        );
    }
}

#[test]
fn the_gpu_removes_what_the_cpu_removes() {
    use common::contract::{Contract, Twins, gpu_contract};
    let Some(contract) = gpu_contract("outflow twins") else {
        return;
    };
    let mut t = Twins::new(&rain(500), contract);
    t.step(6000);
    assert_eq!(t.gpu.ids(), t.cpu.ids());
    assert_eq!(t.gpu.ids(), (5..12).collect::<Vec<u64>>());
    t.assert_states("rain through an outflow");
    if contract == Contract::BitForBit {
        // Grains in contact at the pass: the same grains leave, and the piles stay equal.
        let scene = pile(3000, true);
        let mut t = Twins::new(&scene, contract);
        t.step(6000);
        assert_eq!(t.gpu.ids(), t.cpu.ids());
        assert!(t.cpu.diagnostics().removed_spheres > 0);
        // Taken out inside the GPU's binning: the buffers of the set-up stay.
        let gpu = t.gpu.gpu_backend().expect("the GPU backend");
        assert_eq!(
            gpu.state_buffers(gpu.current_set())[0].size(),
            16 * scene.spheres.len() as u64
        );
        t.assert_states("pile through an outflow");
        let (g, c) = (t.gpu.diagnostics(), t.cpu.diagnostics());
        assert_eq!(
            (g.removed_spheres, g.removed_mass),
            (c.removed_spheres, c.removed_mass)
        );
        // Across the pass the grains that stay keep their history on both (at its step).
        let mut t = Twins::new(&pile(3000, true), contract);
        let mut closed = Simulation::new(&pile(3000, false), Backend::Cpu, Precision::F32).unwrap();
        t.step(3000);
        closed.step(3000).unwrap();
        let expected = kept_by_those_that_stay(&closed, &t.cpu);
        assert!(!expected.pairs.is_empty());
        assert!(
            t.cpu.contact_memory().unwrap() == expected,
            "the CPU's history"
        );
        assert!(
            t.gpu.contact_memory().unwrap() == expected,
            "the GPU's history"
        );
    }
}

#[test]
fn the_event_solver_removes_what_the_cpu_removes() {
    // The rain with instantaneous collisions, which the event solver takes: the same five
    // spheres leave at the same passes (each falls freely until it enters the box, and a
    // leapfrog step is exact under a uniform field), the others come to rest on the floor.
    let mut scene = rain(500);
    scene.sim.contact = ContactModel::Impulse;
    let expected_mass: f64 = scene.spheres[..5].iter().map(|s| s.mass).sum();
    let mut event = Simulation::new(&scene, Backend::Event, Precision::F64).unwrap();
    let mut cpu = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    let start = event.diagnostics();
    let mut seen = Vec::new();
    for _ in 0..12 {
        event.step(500).unwrap();
        cpu.step(500).unwrap();
        assert_eq!(event.ids(), cpu.ids(), "at step {}", event.steps_done());
        seen.push(event.particles());
    }
    // Spheres 0..5 fall from 0.10..0.14 m into the box (y < 0.03) one pass after another.
    assert!(
        seen.windows(2).all(|w| w[1] <= w[0]) && seen[0] > 7,
        "{seen:?}"
    );
    assert_eq!(event.ids(), (5..12).collect::<Vec<u64>>());
    let d = event.diagnostics();
    assert_eq!((d.step, d.removed_spheres), (6000, 5));
    assert!(rel(d.removed_mass, expected_mass, 0.0) < 1e-15);
    assert!(d.removed_energy > 0.0);
    // The event solver moves spheres exactly between events: what left, what the collisions
    // took and what stays balance the start to rounding.
    let change = d.energy_balance_change_relative(&start);
    assert!(change.abs() < 1e-12, "energy balance changed by {change:e}");
    let snap = event.snapshot();
    for (k, &id) in snap.id.iter().enumerate() {
        assert_eq!(snap.position[k].x, scene.spheres[id as usize].position.x);
        assert!(
            snap.position[k].y < 0.0101,
            "sphere {id} is not on the floor"
        );
    }
    // A second run is the same run, pass for pass. Contract: bitwise, the event solver (f64 on
    // the CPU) against itself; no adapter is involved. Against the CPU backend only the ids
    // compare, which depend on no rounding here.
    let mut again = Simulation::new(&scene, Backend::Event, Precision::F64).unwrap();
    again.step(6000).unwrap();
    assert_eq!(again.snapshot(), snap);
    assert_eq!(again.diagnostics(), d);
}

#[test]
fn an_outflow_that_empties_the_scene_stops_the_run_saying_so() {
    let mut scene = rain(500);
    scene.outflows = vec![Outflow::beyond(DVec3::new(0.0, 0.05, 0.0), DVec3::NEG_Y).every(500)];
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    let e = sim.step(6000).expect_err("stops");
    assert!(
        e.to_string().contains("every movable sphere has left"),
        "{e}"
    );
}

const FILE: &str = r#"
[simulation]
dt = 5e-5
steps = 6000
gravity = [0.0, -9.81, 0.0]
contact = "spring-dashpot"
stiffness = 2e4

[[block]]
min = [0.02, 0.1, 0.0]
count = [12, 1, 1]
spacing = 0.04
radius = 0.01
mass = 0.01
restitution = 0.5

[[plane]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
restitution = 0.5

[[outflow]]
min = [0.0, -1.0, -1.0]
max = [0.2, 0.03, 1.0]
every = 500
"#;

#[test]
fn a_run_reports_what_left_in_its_outputs_and_resumes_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("rain.toml");
    std::fs::write(&scene, FILE).unwrap();
    let mut backends = vec!["cpu"];
    if common::contract::gpu_contract("outflow checkpoints").is_some() {
        backends.push("gpu");
    }
    for backend in backends {
        let d = dir.path().join(backend);
        let out = d.join("out");
        let extra = ["--every", "1000", "--output", out.to_str().unwrap()];
        let (text, stats) = run_scene_file(&scene, &d, backend, &extra);
        assert!(
            text.contains("open system: 5 spheres removed"),
            "{backend}: the summary says what left: {text}"
        );
        assert_eq!(stats["removed_spheres"], 5, "{backend}");
        assert_eq!(
            stats["particles"], 12,
            "{backend}: the spheres the run began with"
        );
        assert!(stats["removed_mass"].as_f64().unwrap() > 0.0);
        let log = std::fs::read_to_string(d.join("out/diagnostics.csv")).unwrap();
        let header: Vec<&str> = log.lines().next().unwrap().split(',').collect();
        let column = header
            .iter()
            .position(|&c| c == "removed_spheres")
            .expect("a removed_spheres column");
        assert_eq!(
            header[column..],
            [
                "removed_spheres",
                "removed_mass",
                "removed_energy",
                "inserted_spheres",
                "inserted_mass",
                "inserted_energy",
                "insertion_failures"
            ]
        );
        let last: Vec<&str> = log.lines().last().unwrap().split(',').collect();
        assert_eq!(last[column], "5", "{backend}: {log}");
        // The final CSV names the spheres that stayed by the ids they started with.
        let csv = std::fs::read_to_string(d.join("whole.csv")).unwrap();
        let ids: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap())
            .collect();
        assert_eq!(ids, ["5", "6", "7", "8", "9", "10", "11"], "{backend}");

        // Stopped at step 3300 (after the passes at 500 to 3000) and resumed to 6000.
        assert_resumes_bit_for_bit(&scene, &d, backend, (3300, 6000), &csv);
    }
}

#[test]
fn bad_outflow_tables_are_refused_with_their_line() {
    let bad = |table: &str| {
        let text = format!(
            "[[particle]]\nposition = [0.0, 0.0, 0.0]\nradius = 0.1\nmass = 1.0\n\n{table}"
        );
        Scene::from_toml_str(&text, "bad")
            .expect_err("refused")
            .to_string()
    };
    let e = bad("[[outflow]]\nmin = [0.0, 0.0, 0.0]\n");
    assert!(e.contains("[[outflow]] #0 at line 6"), "{e}");
    assert!(
        e.contains("give a box (min and max) or a half-space"),
        "{e}"
    );
    let e = bad("[[outflow]]\nmin = [1.0, 0.0, 0.0]\nmax = [0.0, 1.0, 1.0]\n");
    assert!(e.contains("[[outflow]] #0 at line 6"), "{e}");
    assert!(e.contains("min must be below max"), "{e}");
    let e = bad("[[outflow]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 0.0]\n");
    assert!(e.contains("normal has zero length"), "{e}");
    let e = bad("[[outflow]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\nevery = 0\n");
    assert!(e.contains("every must be at least 1"), "{e}");
    let e = bad("[[outflow]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\nradius = 1\n");
    assert!(e.contains("unknown field `radius`"), "{e}");
    let ok = Scene::from_toml_str(
        "[[particle]]\nposition = [0.0, 0.0, 0.0]\nradius = 0.1\nmass = 1.0\n\n[[outflow]]\npoint = \
         [0.0, -1.0, 0.0]\nnormal = [0.0, -2.0, 0.0]\n",
        "ok",
    )
    .unwrap();
    assert_eq!(
        ok.outflows,
        [Outflow::beyond(DVec3::new(0.0, -1.0, 0.0), DVec3::NEG_Y)]
    );
    assert_eq!(ok.outflows[0].every, 1000);
}
