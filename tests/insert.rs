//! Insertion (`[[insert]]`): new spheres go where they overlap nothing, as many as asked (or
//! counted as not placed), with new ids; the ledger books what they bring; the CPU and
//! lavapipe insert the same spheres; the event solver inserts without overlap and books what
//! comes in; a checkpoint of a filling, draining silo resumes bit for bit; bad tables are
//! refused with their line; in a periodic chute new spheres clear every image, wrap into the
//! box and keep their images through checkpoints.

mod common;
use common::*;
use glam::DVec3;
use spheresim::scene::{
    BoxContainer, ContactModel, InsertAmount, InsertBuilder, InsertRegion, InsertSizes, Outflow,
    Scene, Sphere,
};
use spheresim::{Backend, Precision, Simulation};

const G: f64 = 9.81;

/// Four rubber grains (r = 1 cm) at rest on the floor of a 10 cm box under gravity, Hertz with
/// rotation, and an insertion of `count` rubber grains of 5 to 7 mm every 1000 steps into a
/// cylinder (r 4 cm, 10 cm tall) above them, 0.2 m/s down.
fn filling(count: u64, seed: u64) -> Scene {
    let mut b = Scene::builder()
        .dt(1e-5)
        .steps(5000)
        .gravity(DVec3::new(0.0, -G, 0.0))
        .contact(ContactModel::Hertz)
        .rotation(true)
        .box_container(
            BoxContainer::new(DVec3::ZERO, DVec3::new(0.1, 0.25, 0.1)).material("rubber"),
        )
        .insert(
            InsertBuilder::new(
                InsertRegion::Cylinder {
                    base: DVec3::new(0.05, 0.1, 0.05),
                    axis: 1,
                    radius: 0.04,
                    height: 0.1,
                },
                InsertSizes::Uniform(0.005, 0.007),
                InsertAmount::Count(count),
            )
            .every(1000)
            .velocity(DVec3::new(0.0, -0.2, 0.0))
            .material("rubber")
            .seed(seed),
        );
    for i in 0..4 {
        b = b.sphere(
            Sphere::new(DVec3::new(0.02 + 0.02 * i as f64, 0.0101, 0.05), 0.01).material("rubber"),
        );
    }
    b.build().unwrap()
}

/// The deepest overlap (m) of spheres `first..` with any sphere or with the box's walls.
fn deepest_overlap(s: &spheresim::Snapshot, first: usize, scene: &Scene) -> f64 {
    let mut depth = f64::NEG_INFINITY;
    for i in first..s.len() {
        for j in 0..s.len() {
            if j != i {
                let gap = (s.position[i] - s.position[j]).length() - s.radius[i] - s.radius[j];
                depth = depth.max(-gap);
            }
        }
        for p in &scene.planes {
            depth = depth.max(s.radius[i] - (s.position[i] - p.point).dot(p.normal));
        }
    }
    depth
}

#[test]
fn new_spheres_overlap_nothing_and_take_new_ids() {
    let scene = filling(40, 1);
    for precision in [Precision::F32, Precision::F64] {
        let mut sim = Simulation::new(&scene, Backend::Cpu, precision).unwrap();
        sim.step(1000).unwrap();
        let s = sim.snapshot();
        assert_eq!(s.len(), 44, "{precision:?}");
        assert_eq!(s.id, (0..44).collect::<Vec<u64>>());
        let depth = deepest_overlap(&s, 4, &scene);
        assert!(depth < 0.0, "a new sphere overlaps by {depth:e} m");
        let d = sim.diagnostics();
        assert_eq!((d.inserted_spheres, d.insertion_failures), (40, 0));
        for i in 4..44 {
            assert!((0.005..=0.007).contains(&s.radius[i]));
            let x = s.position[i] - DVec3::new(0.05, 0.1, 0.05);
            assert!(x.x.hypot(x.z) <= 0.04 - s.radius[i] + 1e-6);
            assert!(x.y >= s.radius[i] - 1e-6 && x.y <= 0.1 - s.radius[i] + 1e-6);
            // Rubber at 1100 kg/m³; f32 rounds the mass.
            let m = 1100.0 * 4.0 / 3.0 * std::f64::consts::PI * s.radius[i].powi(3);
            assert!(
                rel(s.mass[i], m, 0.0) < 1e-6,
                "sphere {i}: {} kg",
                s.mass[i]
            );
            assert!((s.velocity[i] - DVec3::new(0.0, -0.2, 0.0)).length() < 1e-7);
        }
        let mass: f64 = s.mass[4..].iter().sum();
        assert!(rel(d.inserted_mass, mass, 0.0) < 1e-6);
        // Four more passes: the grains fall 2 mm between two, so the cylinder fills and some
        // find no place; every one asked for is placed or counted.
        sim.step(4000).unwrap();
        let d = sim.diagnostics();
        assert_eq!(d.inserted_spheres + d.insertion_failures, 200);
        let n = 4 + d.inserted_spheres;
        assert_eq!(sim.ids(), (0..n).collect::<Vec<u64>>());
    }
}

#[test]
fn the_event_solver_inserts_without_overlap_and_balances_its_ledger() {
    // The filling with instantaneous collisions and no rotation, which the event solver takes.
    // In its 0.05 s the new grains fall about 2 cm inside the cylinder, above the four on the
    // floor: they meet one another, never a pile that the event solver could not resolve.
    let mut scene = filling(40, 1);
    scene.sim.contact = ContactModel::Impulse;
    scene.sim.rotation = false;
    let run = || {
        let mut sim = Simulation::new(&scene, Backend::Event, Precision::F64).unwrap();
        let start = sim.diagnostics();
        sim.step(5000).unwrap();
        (sim.snapshot(), start, sim.diagnostics(), sim.ids())
    };
    let (s, start, d, ids) = run();
    assert_eq!(d.inserted_spheres + d.insertion_failures, 200);
    assert!(d.inserted_spheres > 40, "{d:?}");
    let n = 4 + d.inserted_spheres;
    assert_eq!(ids, (0..n).collect::<Vec<u64>>());
    assert_eq!(s.len() as u64, n);
    // Hard spheres: nothing overlaps beyond rounding, the new grains or the old.
    let depth = deepest_overlap(&s, 0, &scene);
    assert!(depth < 1e-12, "spheres overlap by {depth:e} m");
    // Exact motion between events: the energy the grains brought is booked to rounding.
    let drift = (d.energy_balance() - start.energy_balance()) / d.energy_scale();
    assert!(drift.abs() < 1e-12, "energy balance changed by {drift:e}");
    assert!(d.inserted_energy > 0.0);
    // Contract: bitwise, the event solver (f64 on the CPU) against itself; no adapter.
    let (again, _, d2, _) = run();
    assert_eq!(again, s);
    assert_eq!(d2, d);
}

#[test]
fn placement_is_deterministic_and_follows_the_seed() {
    let run = |seed| {
        let mut sim = Simulation::new(&filling(40, seed), Backend::Cpu, Precision::F32).unwrap();
        sim.step(2500).unwrap();
        sim.snapshot()
    };
    let (a, b, c) = (run(1), run(1), run(2));
    assert_eq!(a, b);
    assert_ne!(a.position, c.position);
    assert_eq!(a.len(), c.len());
}

#[test]
fn a_full_region_counts_what_it_could_not_place() {
    // 400 grains a pass into a cylinder that holds far fewer.
    let mut sim = Simulation::new(&filling(400, 1), Backend::Cpu, Precision::F32).unwrap();
    sim.step(1000).unwrap();
    let d = sim.diagnostics();
    assert!(d.insertion_failures > 0, "{d:?}");
    assert_eq!(d.inserted_spheres + d.insertion_failures, 400);
    assert_eq!(sim.particles() as u64, 4 + d.inserted_spheres);
    assert!(deepest_overlap(&sim.snapshot(), 4, &filling(400, 1)) < 0.0);
}

#[test]
fn the_ledger_books_the_energy_new_spheres_bring() {
    let scene = filling(40, 1);
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    let start = sim.diagnostics();
    sim.step(999).unwrap();
    let before = sim.diagnostics();
    sim.step(1).unwrap();
    let after = sim.diagnostics();
    assert!(after.inserted_energy > 0.0);
    // One step of integration apart: the balance moves by rounding, not by what came in.
    assert!(
        (after.energy_balance() - before.energy_balance()).abs() < 1e-9 * after.inserted_energy,
        "{} against {} (inserted {})",
        after.energy_balance(),
        before.energy_balance(),
        after.inserted_energy
    );
    sim.step(4000).unwrap();
    let end = sim.diagnostics();
    let drift = (end.energy_balance() - start.energy_balance()) / end.energy_scale();
    eprintln!("energy balance change over the fill: {drift:e}");
    assert!(drift.abs() < 5e-3, "{drift:e}");
}

#[test]
fn the_gpu_inserts_what_the_cpu_inserts() {
    use common::contract::{Contract, Twins, gpu_contract};
    let Some(contract) = gpu_contract("insertion twins") else {
        return;
    };
    let mut scene = filling(30, 5);
    scene.outflows = vec![Outflow::beyond(DVec3::new(0.0, 0.02, 0.0), DVec3::NEG_Y).every(1500)];
    let mut t = Twins::new(&scene, contract);
    // The first insertion sets the backend up again with room for as many spheres again; the
    // outflow's pass at step 1500 and the next insertion run in that room, on the same buffers.
    let room = |t: &Twins| {
        let g = t.gpu.gpu_backend().expect("the GPU backend");
        g.state_buffers(g.current_set())[0].size() / 16
    };
    t.step(1000);
    let (first, present) = (room(&t), t.gpu.particles());
    assert!(first > present as u64, "room {first} for {present} spheres");
    t.step(1000);
    assert_eq!(room(&t), first);
    assert!(t.gpu.diagnostics().inserted_spheres == 60 && t.gpu.particles() > present);
    t.step(1000);
    assert_eq!(t.gpu.ids(), t.cpu.ids());
    let (g, c) = (t.gpu.diagnostics(), t.cpu.diagnostics());
    assert_eq!(
        (g.inserted_spheres, g.inserted_mass),
        (c.inserted_spheres, c.inserted_mass)
    );
    if contract == Contract::BitForBit {
        t.assert_states("filling and draining box");
    } else {
        // After the first pass the grains pile up: chaotic, compared on statistics.
        t.assert_statistics("filling and draining box");
    }
}

#[test]
fn a_list_that_grows_keeps_room_for_the_spheres_inserted_in_place() {
    // The same filling and draining box on a GPU list of a few entries, which grows at each
    // set-up and step: the grown list must keep its per-sphere arrays for the room, into which
    // the second insertion writes its spheres.
    use common::contract::{Contract, Twins, gpu_contract};
    let Some(contract) = gpu_contract("insertion twins, a growing list") else {
        return;
    };
    let mut scene = filling(30, 7);
    scene.outflows = vec![Outflow::beyond(DVec3::new(0.0, 0.02, 0.0), DVec3::NEG_Y).every(1500)];
    let opts = spheresim::gpu::GpuOptions {
        list_capacity: Some(8),
        ..common::contract::test_gpu_options()
    };
    let mut t = Twins::with_options(&scene, contract, opts);
    t.step(2000);
    assert_eq!(t.gpu.diagnostics().inserted_spheres, 60);
    assert_eq!(t.gpu.ids(), t.cpu.ids());
    if contract == Contract::BitForBit {
        t.assert_states("filling box on a growing list");
    } else {
        t.assert_statistics("filling box on a growing list");
    }
}

const SILO: &str = r#"
[simulation]
dt = 2e-5
steps = 8000
gravity = [0.0, -9.81, 0.0]
contact = "hertz"
rotation = true

[[particle]]
position = [0.05, 0.01, 0.05]
radius = 0.01
material = "rubber"
fixed = true

[[box_container]]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.3, 0.1]
material = "rubber"

[[insert]]
min = [0.0, 0.15, 0.0]
max = [0.1, 0.3, 0.1]
radius_range = [0.004, 0.006]
rate = 3000.0
every = 1000
material = "rubber"
velocity = [0.0, -0.5, 0.0]
seed = 3
total = 200

[[outflow]]
point = [0.0, 0.02, 0.0]
normal = [0.0, -1.0, 0.0]
every = 1500
"#;

#[test]
fn a_filling_draining_silo_reports_both_and_resumes_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("silo.toml");
    std::fs::write(&scene, SILO).unwrap();
    let mut backends = vec!["cpu"];
    if common::contract::gpu_contract("insertion checkpoints").is_some() {
        backends.push("gpu");
    }
    for backend in backends {
        let d = dir.path().join(backend);
        let (text, stats) = run_scene_file(&scene, &d, backend, &[]);
        // 3000 spheres/s over 1000 steps of 20 µs: 60 a pass, 200 in all.
        assert_eq!(stats["inserted_spheres"], 200, "{backend}: {text}");
        assert_eq!(stats["insertion_failures"], 0, "{backend}");
        assert!(
            stats["removed_spheres"].as_u64().unwrap() > 0,
            "{backend}: grains reach the outflow"
        );
        assert!(text.contains("200 inserted"), "{backend}: {text}");
        assert!(
            !text.contains("before this run's first step"),
            "{backend}: no fill: {text}"
        );
        let csv = std::fs::read_to_string(d.join("whole.csv")).unwrap();
        let ids: Vec<u64> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ids[0], 0, "{backend}: the fixed grain stays");
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{backend}: ids ascend");
        assert!(*ids.last().unwrap() <= 200);

        // Stopped at step 3500, between passes, and resumed to 8000.
        assert_resumes_bit_for_bit(&scene, &d, backend, (3500, 8000), &csv);
    }
}

#[test]
fn bad_insert_tables_are_refused_with_their_line() {
    let bad = |table: &str| {
        let text = format!(
            "[[particle]]\nposition = [0.0, 0.0, 0.0]\nradius = 0.1\nmass = 1.0\n\n[[insert]]\n\
             {table}"
        );
        Scene::from_toml_str(&text, "bad")
            .expect_err("refused")
            .to_string()
    };
    let region = "min = [0.0, 1.0, 0.0]\nmax = [1.0, 2.0, 1.0]\n";
    let e = bad(&format!("{region}radius = 0.1\ndensity = 1000.0\n"));
    assert!(e.contains("[[insert]] #0 at line 6"), "{e}");
    assert!(e.contains("give one amount"), "{e}");
    let e = bad("radius = 0.1\ncount = 3\ndensity = 1000.0\n");
    assert!(e.contains("give one region"), "{e}");
    let e = bad(&format!(
        "{region}radius = 0.1\nradius_range = [0.1, 0.2]\ncount = 3\ndensity = 1000.0\n"
    ));
    assert!(e.contains("give one size"), "{e}");
    let e = bad(&format!("{region}radius = 0.1\ncount = 3\n"));
    assert!(e.contains("no density"), "{e}");
    let e = bad(&format!(
        "{region}radius = 0.1\ncount = 3\nmaterial = \"cheese\"\n"
    ));
    assert!(e.contains("cheese"), "{e}");
    let e = bad(&format!(
        "{region}radius = 0.6\ncount = 3\ndensity = 1000.0\n"
    ));
    assert!(e.contains("too small"), "{e}");
    let e = bad(&format!(
        "{region}radii = [0.1, 0.2]\nweights = [1.0]\ncount = 3\ndensity = 1000.0\n"
    ));
    assert!(e.contains("same positive length"), "{e}");
    let e = bad(
        "base = [0.0, 1.0, 0.0]\ncylinder_radius = 0.5\nheight = 1.0\naxis = \"w\"\nradius = \
         0.1\ncount = 3\ndensity = 1000.0\n",
    );
    assert!(e.contains("axis must be"), "{e}");
    let e = bad(&format!(
        "{region}radius = 0.1\nrate = -2.0\ndensity = 1000.0\n"
    ));
    assert!(e.contains("rate must be positive"), "{e}");
    let e = bad(&format!(
        "{region}radius = 0.1\ncount = 3\ndensity = 1000.0\nrestitution = 1.5\n"
    ));
    assert!(e.contains("restitution must be in [0, 1]"), "{e}");
    let e = bad(&format!(
        "{region}radius = 0.1\ncount = 3\ndensity = 1000.0\ntotal = 0\n"
    ));
    assert!(e.contains("total must be at least 1"), "{e}");
    let e = bad(&format!(
        "{region}radius = 0.1\ncount = 3\ndensity = 1000.0\naxis = \"x\"\n"
    ));
    assert!(e.contains("axis belongs to a cylinder"), "{e}");
    // In a periodic box no inserted sphere may ever be large (4 times the smallest radius),
    // nor too large for the box.
    let periodic = |radius: f64| {
        let text = format!(
            "[simulation]\nperiodic = [true, false, false]\n[domain]\nmin = [0.0, 0.0, 0.0]\n\
             max = [4.0, 4.0, 4.0]\n[[particle]]\nposition = [1.0, 1.0, 1.0]\nradius = 0.1\n\
             mass = 1.0\n[[insert]]\nmin = [0.0, 2.0, 0.0]\nmax = [4.0, 3.99, 4.0]\n\
             radius = {radius}\ncount = 3\ndensity = 1000.0\n"
        );
        Scene::from_toml_str(&text, "periodic")
    };
    assert!(periodic(0.4).is_ok());
    let e = periodic(0.45).expect_err("refused").to_string();
    assert!(
        e.contains("[[insert]] #0") && e.contains("within 4 times the smallest radius"),
        "{e}"
    );
    let e = periodic(1.0).expect_err("refused").to_string();
    assert!(e.contains("twice the contact reach"), "{e}");
}

#[test]
fn fixed_spheres_wait_for_the_next_insertion_once_the_outflow_has_taken_the_rest() {
    // One fixed sphere; 5 grains inserted at steps 1000 and 2000 (10 in all) fall 0.17 s out
    // through an outflow checked every 100 steps of 1 ms.
    let scene = Scene::builder()
        .dt(1e-3)
        .steps(4000)
        .gravity(DVec3::new(0.0, -G, 0.0))
        .contact(ContactModel::SpringDashpot)
        .stiffness(1e4)
        .sphere(Sphere::new(DVec3::new(5.0, 0.0, 0.0), 0.1).fixed(true))
        .outflow(Outflow::beyond(DVec3::new(0.0, 0.05, 0.0), DVec3::NEG_Y).every(100))
        .insert(
            InsertBuilder::new(
                InsertRegion::Box {
                    min: DVec3::new(0.0, 0.15, 0.0),
                    max: DVec3::new(1.0, 0.25, 1.0),
                },
                InsertSizes::Fixed(0.01),
                InsertAmount::Count(5),
            )
            .every(1000)
            .total(10)
            .density(1000.0),
        )
        .build()
        .unwrap();
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    sim.step(1900).unwrap();
    let d = sim.diagnostics();
    assert_eq!((d.inserted_spheres, d.removed_spheres), (5, 5));
    assert_eq!(sim.particles(), 1, "the fixed sphere waits alone");
    sim.step(100).unwrap();
    assert_eq!(sim.particles(), 6);
    assert_eq!(sim.ids(), [0, 6, 7, 8, 9, 10]);
    // The second five leave too, and no insertion can add more.
    let e = sim.step(2000).expect_err("nothing left");
    assert!(e.to_string().contains("no insertion can add more"), "{e}");
}

#[test]
fn an_open_runs_csv_reads_back_with_its_ids() {
    let mut scene = filling(30, 2);
    scene.outflows =
        vec![Outflow::of_box(DVec3::new(0.0, -1.0, 0.0), DVec3::new(0.035, 1.0, 1.0)).every(1000)];
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    sim.step(2000).unwrap();
    let snap = sim.snapshot();
    assert!(
        snap.id.windows(2).any(|w| w[1] > w[0] + 1),
        "ids with gaps: {:?}",
        snap.id
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("open.csv");
    spheresim::output::write_csv(&path, &snap).unwrap();
    let back = spheresim::output::read_csv(&path).unwrap();
    assert_eq!(back.id, snap.id);
    assert_eq!(back.position, snap.position);
}

/// A chute periodic in x and z: grains poured into a box that straddles the faces at x = 0 and
/// z = 0, driven along x by a tilted gravity over a floor, and taken out where the floor's
/// strip x ∈ [0.06, 0.1] m meets them. Every pass is every 1000 steps.
const CHUTE: &str = r#"
[simulation]
dt = 2e-5
steps = 6000
gravity = [3.0, -9.81, 0.0]
contact = "hertz"
rotation = true
periodic = [true, false, true]

[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.3, 0.1]

[[plane]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
material = "rubber"

[[plane]]
point = [0.0, 0.3, 0.0]
normal = [0.0, -1.0, 0.0]
material = "rubber"

[[particle]]
position = [0.05, 0.01, 0.05]
radius = 0.01
material = "rubber"
fixed = true

[[insert]]
min = [-0.03, 0.1, -0.03]
max = [0.07, 0.2, 0.07]
radius_range = [0.004, 0.006]
count = 40
every = 1000
total = 150
material = "rubber"
velocity = [0.5, -0.5, 0.0]
seed = 11

[[outflow]]
min = [0.06, -1.0, 0.0]
max = [0.1, 0.02, 0.1]
every = 1000
"#;

/// The deepest overlap (m) of spheres `first..` with any sphere, through the nearest image
/// along x and z (a box of edge `len`).
fn deepest_periodic_overlap(s: &spheresim::Snapshot, first: usize, len: f64) -> f64 {
    let image = |d: DVec3| {
        let w = |c: f64| c - len * (c / len).round();
        DVec3::new(w(d.x), d.y, w(d.z))
    };
    let mut depth = f64::NEG_INFINITY;
    for i in first..s.len() {
        for j in (0..s.len()).filter(|&j| j != i) {
            let gap = image(s.position[i] - s.position[j]).length() - s.radius[i] - s.radius[j];
            depth = depth.max(-gap);
        }
    }
    depth
}

#[test]
fn a_periodic_chute_inserts_across_its_faces_and_drains() {
    let scene = Scene::from_toml_str(CHUTE, "chute").unwrap();
    for precision in [Precision::F32, Precision::F64] {
        let mut sim = Simulation::new(&scene, Backend::Cpu, precision).unwrap();
        sim.step(1000).unwrap();
        let s = sim.snapshot();
        assert_eq!(s.len(), 41, "{precision:?}");
        let depth = deepest_periodic_overlap(&s, 1, 0.1);
        // The f32 state rounds the f64 placement: an overlap of its rounding at most.
        assert!(
            depth <= 1e-8,
            "{precision:?}: new spheres overlap by {depth} m"
        );
        for i in 1..s.len() {
            let (x, im) = (s.position[i], s.image[i]);
            assert!(
                (0.0..0.1).contains(&x.x) && (0.0..0.1).contains(&x.z),
                "{x}"
            );
            // Unwrapped, a new sphere is where the region put it.
            let (ux, uz) = (x.x + 0.1 * f64::from(im[0]), x.z + 0.1 * f64::from(im[2]));
            assert!((-0.03..=0.07).contains(&ux) && (-0.03..=0.07).contains(&uz));
        }
        assert!(
            s.image.iter().any(|im| im[0] == -1) && s.image.iter().any(|im| im[2] == -1),
            "{precision:?}: some grains went in beyond the faces at x = 0 and z = 0"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chute.toml");
    std::fs::write(&path, CHUTE).unwrap();
    let mut backends = vec!["cpu"];
    if common::contract::gpu_contract("periodic insertion checkpoints").is_some() {
        backends.push("gpu");
    }
    for backend in backends {
        let d = dir.path().join(backend);
        let (text, stats) = run_scene_file(&path, &d, backend, &[]);
        assert_eq!(stats["inserted_spheres"], 150, "{backend}: {text}");
        assert!(
            stats["removed_spheres"].as_u64().unwrap() > 0,
            "{backend}: grains reach the outflow"
        );
        let csv = std::fs::read_to_string(d.join("whole.csv")).unwrap();
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let ix = header
            .iter()
            .position(|&c| c == "ix")
            .expect("image columns");
        assert!(
            csv.lines()
                .skip(1)
                .any(|l| l.split(',').nth(ix).unwrap() != "0"),
            "{backend}: images reach the CSV"
        );
        // Stopped between passes and resumed: the images and the open state carry over.
        assert_resumes_bit_for_bit(&path, &d, backend, (2500, 6000), &csv);
    }
}

#[test]
fn the_gpu_inserts_into_a_periodic_chute_what_the_cpu_does() {
    use common::contract::{Contract, Twins, gpu_contract};
    let Some(contract) = gpu_contract("periodic insertion twins") else {
        return;
    };
    let scene = Scene::from_toml_str(CHUTE, "chute").unwrap();
    let mut t = Twins::new(&scene, contract);
    t.step(2000);
    assert_eq!(t.gpu.ids(), t.cpu.ids());
    let (g, c) = (t.gpu.diagnostics(), t.cpu.diagnostics());
    assert_eq!(
        (g.inserted_spheres, g.removed_spheres),
        (c.inserted_spheres, c.removed_spheres)
    );
    if contract == Contract::BitForBit {
        t.assert_states("periodic chute");
    } else {
        t.assert_statistics("periodic chute");
    }
}

#[test]
fn start_sets_the_first_pass_and_zero_fills_before_the_first_step() {
    // start = 500: passes after steps 500, 1500, …
    let mut scene = filling(5, 4);
    scene.inserts[0].start = 500;
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    let mut counts = vec![sim.particles()];
    for n in [499, 1, 999, 1] {
        sim.step(n).unwrap();
        counts.push(sim.particles());
    }
    assert_eq!(counts, [4, 4, 9, 9, 14]);

    // start = 0: the first pass runs when the run is set up; with its total made, no more.
    scene.inserts[0].start = 0;
    scene.inserts[0].total = Some(5);
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    assert_eq!((sim.steps_done(), sim.particles()), (0, 9));
    assert_eq!(sim.diagnostics().inserted_spheres, 5);
    sim.step(3000).unwrap();
    assert_eq!(sim.particles(), 9);
}

#[test]
fn a_chute_filled_before_the_first_step_resumes_without_filling_again() {
    let text = CHUTE.replace(
        "every = 1000\ntotal = 150",
        "every = 1000\nstart = 0\ntotal = 150",
    );
    assert_ne!(text, CHUTE);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chute.toml");
    std::fs::write(&path, &text).unwrap();
    let d = dir.path().join("cpu");
    let (out, stats) = run_scene_file(&path, &d, "cpu", &[]);
    // 41 at the start (40 placed before step 1), 110 more over the passes at 1000 … 3000.
    assert_eq!(stats["particles"], 41, "{out}");
    assert_eq!(stats["inserted_spheres"], 110, "{out}");
    assert!(
        out.contains("open system: 40 spheres") && out.contains("before this run's first step"),
        "the summary names the fill: {out}"
    );
    let csv = std::fs::read_to_string(d.join("whole.csv")).unwrap();
    assert_resumes_bit_for_bit(&path, &d, "cpu", (2500, 6000), &csv);
}
