// The work counters of an instrumented replay (src/gpu/work.rs), appended to the stages that
// count them (collide and neighbours, gpu::pipelines::STAGES). Each stage declares its binding
// `work: array<WorkCounters, 3>` and calls report_visits with its kind of pass: collide.wgsl's
// ENTRY_PASS and ROW_PASS, neighbours.wgsl's BUILD_PASS.

// Visits per invocation, over every pass of one kind in the replayed steps: candidate pairs,
// or for the list build's walks candidates, boxes and cells. 64-bit sums as (lo, hi) words.
struct WorkCounters {
    max_visits: atomic<u32>,
    invocations_lo: atomic<u32>,
    invocations_hi: atomic<u32>,
    visits_lo: atomic<u32>,
    visits_hi: atomic<u32>,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// True in the replay that counts work (`spheresim bench`); the timed steps run without it.
override COUNT_VISITS: bool = false;

// What this invocation has visited (handle).
var<private> visits: u32;

// Books this invocation's visits in the work counters of its kind of pass (COUNT_VISITS only).
fn report_visits(kind: u32) {
    if COUNT_VISITS {
        atomicMax(&work[kind].max_visits, visits);
        // 64-bit sums: a carry into the high word when the low one wraps.
        if atomicAdd(&work[kind].invocations_lo, 1u) == 0xffffffffu {
            atomicAdd(&work[kind].invocations_hi, 1u);
        }
        let old = atomicAdd(&work[kind].visits_lo, visits);
        if old + visits < old {
            atomicAdd(&work[kind].visits_hi, 1u);
        }
    }
}

