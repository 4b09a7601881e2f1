//! The library built without the `gpu` Cargo feature (`cargo test --no-default-features --test
//! no_gpu`, as .ci/run runs it): the GPU backend is refused with an error that names it and the
//! feature, `auto` runs on the CPU with a notice saying why, and a GPU run's checkpoint state
//! still resumes, converted to the CPU. With the feature on (the default build) this file is
//! empty.
#![cfg(not(feature = "gpu"))]

use spheresim::checkpoint::{BufferBytes, EngineState, GpuState, Offsets};
use spheresim::gpu::GpuOptions;
use spheresim::scene::builtin;
use spheresim::{Backend, Diagnostics, Precision, SimError, Simulation};

#[test]
fn the_gpu_backend_is_refused_naming_the_backend_and_the_feature() {
    let scene = builtin::build("box-gas", Some(64)).unwrap();
    match Simulation::new(&scene, Backend::Gpu, Precision::F32) {
        Err(
            e @ SimError::Unavailable {
                backend: Backend::Gpu,
                ..
            },
        ) => {
            let msg = e.to_string();
            assert!(
                msg.contains("'gpu'") && msg.contains("`gpu` Cargo feature"),
                "{msg}"
            );
            // A library message: no CLI flag.
            assert!(!msg.contains("--"), "{msg}");
        }
        Err(e) => panic!("expected SimError::Unavailable for the GPU, got {e}"),
        Ok(_) => panic!("the GPU backend ran in a build without the `gpu` feature"),
    }
}

#[test]
fn auto_runs_on_the_cpu_and_says_why() {
    let scene = builtin::build("box-gas", Some(64)).unwrap();
    let mut sim = Simulation::new(&scene, Backend::Auto, Precision::F32).unwrap();
    assert_eq!(sim.backend(), Backend::Cpu);
    let notice = sim.notice().expect("a notice").to_string();
    assert!(notice.contains("`gpu` Cargo feature"), "{notice}");
    let mut cpu = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    sim.step(10).unwrap();
    cpu.step(10).unwrap();
    assert_eq!(sim.snapshot(), cpu.snapshot());
}

/// Little-endian bytes of `words`.
fn bytes<T: Copy>(words: &[T], to_le: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    words.iter().flat_map(|&w| to_le(w)).collect()
}

/// A GPU run's checkpoint state resumes on the CPU: each sphere starts at the position and
/// velocity the GPU slots hold for its id (the slots are in cell order, not input order).
#[test]
fn a_gpu_checkpoint_state_resumes_converted_on_the_cpu() {
    let scene = builtin::build("box-gas", Some(64)).unwrap();
    let n = scene.spheres.len();
    // Slot i holds sphere ids[i]: reversed input order, moved by a known offset.
    let ids: Vec<u32> = (0..n as u32).rev().collect();
    let shift = glam::DVec3::new(1.0 / 64.0, -1.0 / 128.0, 0.0);
    let (mut pos, mut vel) = (Vec::new(), Vec::new());
    for &id in &ids {
        let s = &scene.spheres[id as usize];
        let x = (s.position + shift).as_vec3();
        let v = (s.velocity * 0.5).as_vec3();
        pos.extend([x.x, x.y, x.z, s.radius as f32]);
        vel.extend([v.x, v.y, v.z, 0.0]);
    }
    let buffer = |name: &str, bytes: Vec<u8>| BufferBytes {
        name: name.to_string(),
        bytes,
    };
    let state = EngineState::Gpu(GpuState {
        adapter: "a GPU".to_string(),
        current_set: 0,
        steps_done: 40,
        collisions: 7,
        history_dropped: 0,
        rebuilds: 3,
        buffers: vec![
            buffer("position", bytes(&pos, f32::to_le_bytes)),
            buffer("velocity", bytes(&vel, f32::to_le_bytes)),
            buffer("ids", bytes(&ids, u32::to_le_bytes)),
        ],
    });
    let at = Diagnostics {
        step: 40,
        collisions: 7,
        neighbour_rebuilds: 3,
        ..Default::default()
    };
    let resume = |backend| {
        Simulation::resume(
            &scene,
            &state,
            Offsets::default(),
            &at,
            backend,
            Precision::F32,
            GpuOptions::default(),
        )
    };
    let (mut sim, notice) = resume(Backend::Auto).expect("resumed on the CPU");
    assert_eq!(sim.backend(), Backend::Cpu);
    assert_eq!(sim.steps_done(), 40);
    let notice = notice.expect("a conversion notice");
    assert!(notice.contains("converted"), "{notice}");
    let snap = sim.snapshot();
    for (i, s) in scene.spheres.iter().enumerate() {
        let x = (s.position + shift).as_vec3().as_dvec3();
        let v = (s.velocity * 0.5).as_vec3().as_dvec3();
        assert_eq!((snap.position[i], snap.velocity[i]), (x, v), "sphere {i}");
    }
    sim.step(5).unwrap();
    assert_eq!(sim.steps_done(), 45);

    // Asked for by name, the GPU is refused, naming the feature.
    match resume(Backend::Gpu) {
        Err(e @ SimError::Unavailable { .. }) => {
            assert!(e.to_string().contains("`gpu` Cargo feature"), "{e}")
        }
        Err(e) => panic!("expected SimError::Unavailable, got {e}"),
        Ok(_) => panic!("a GPU state resumed on the GPU without the `gpu` feature"),
    }
}
