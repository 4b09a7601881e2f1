//! The CPU backend's step allocates nothing: a counting global allocator (this test binary's
//! own) sees the same number of allocations for a short and a long run of steps, so the count
//! per step is zero. What a call to `step_many` allocates once (e.g. handing the work to the
//! thread pool) does not grow with the steps.

use spheresim::Precision;
use spheresim::cpu::CpuBackend;
use spheresim::scene::{Scene, builtin};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn scene(name: &str, n: usize) -> Scene {
    builtin::build(name, Some(n)).expect("built-in scene")
}

/// Allocations made while `f` runs.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    f();
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

/// Allocations of a call stepping 2 and of one stepping 12 steps, each the fewer of two calls:
/// rayon's injection queue takes a new block once every few dozen calls from outside the pool,
/// which can fall into either call but not into both of a pair.
fn per_step_allocations<R: spheresim::Real>(s: &Scene) -> (u64, u64) {
    let mut b = CpuBackend::<R>::new(s);
    // Warm-up: scratch arrays reach their sizes.
    b.step_many(3).expect("finite");
    let mut run = |k| allocations(|| b.step_many(k).expect("finite"));
    let short = run(2).min(run(2));
    let long = run(12).min(run(12));
    (short, long)
}

#[test]
fn a_cpu_step_allocates_nothing() {
    // Soft contact with friction history, impulses with a large sphere, mutual gravity, a gas;
    // above and below the one-thread threshold (cpu::SERIAL_BELOW).
    let cases = [
        ("wall-stand", 2000),
        ("wall-break", 2000),
        ("orbits", 300),
        ("box-gas", 3000),
        ("box-gas", 200),
    ];
    for (name, n) in cases {
        let s = scene(name, n);
        for precision in [Precision::F32, Precision::F64] {
            let (short, long) = match precision {
                Precision::F32 => per_step_allocations::<f32>(&s),
                Precision::F64 => per_step_allocations::<f64>(&s),
            };
            assert_eq!(
                short, long,
                "{name} ({n} spheres, {precision}): {short} allocations in 2 steps, {long} in 12"
            );
        }
    }
}
