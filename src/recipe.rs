//! The step as data: one ordered list of named passes that both backends follow
//! (docs/architecture.md, "The step's recipe").
//!
//! [`step`] writes the order of a step once. The GPU backend records each pass as its
//! dispatches (`gpu::GpuBackend::record_pass`); the CPU backend runs each pass's twin
//! (`cpu::CpuBackend::run_pass`). A pass names the stage it belongs to (its shader in
//! `shaders/`, its twins in `src/gpu/` and `src/cpu/`), what one invocation covers, when it runs,
//! and the resources it reads and writes by their WGSL names.
//!
//! The model is vello's recording of a frame as a list of commands, each with a CPU and a GPU
//! implementation (linebender/vello, `vello_encoding` and `vello_shaders`' cpu module).

/// What one invocation of a pass covers, hence its dispatch size (`div_ceil` by the work-group
/// size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// One invocation per sphere.
    Spheres,
    /// One invocation per listed pair entry.
    Entries,
    /// One invocation per small sphere's row, a work-group per large sphere's.
    Rows,
    /// Several dispatches of their own sizes (the binning: keys, counts, prefix sum, scatter).
    Stages,
    /// The gravity solver's own passes: one (direct sum) or the tree's build and walk.
    Solver,
}

/// When a pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// In every step.
    Always,
    /// Only in a step that rebuilds the neighbour list. The GPU decides on the device and records
    /// such passes as indirect dispatches whose work-group counts the decision sets; a halting
    /// submission records them in its first step only (`gpu::plan`).
    Rebuild,
}

/// Which pair responses an `impulse_pairs` pass computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairs {
    /// Every listed pair, binary (mass-splitting factors 1).
    Binary,
    /// A matching round's impulses (each sphere's mutual event, decided by the
    /// `earliest_from_pairs` before), then the pairs of which the round moved a sphere, binary.
    /// The GPU sums the round in this pass and the next `earliest_from_pairs` (the fold of
    /// `sum_impulses`, shaders/collide.wgsl "A matching round, folded") and reads the round's
    /// impulses as applied; the CPU sums it in a row pass (`cpu::collide::sum_impulses`,
    /// `Round::Matching`) and applies it here, first.
    Pending,
    /// The colliding pairs again, with the final round's mass-splitting factors.
    Final,
}

/// A pass of the step: what it computes. The names are the stages' (`shaders/<stage>.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// integrate, set-up: the largest small-sphere speed, which sizes the grid's cells.
    MeasureSpeed,
    /// integrate: the first half kick and the drift, with the list's rebuild decision.
    KickDrift,
    /// cell_keys → count → prefix_sum → scatter → gather: the state sorted by cell. On the GPU
    /// without a rebuild the gather copies the state into the other set instead.
    Binning,
    /// neighbours: the list's build from the binning. The CPU also loads its contact bodies here.
    BuildList,
    /// collide, impulses: pair responses (`impulse_pairs`).
    ImpulsePairs(Pairs),
    /// collide, impulses: each sphere's earliest event and pending count from its row
    /// (`earliest_from_pairs`), and on the GPU that event's response, which the next matching
    /// round applies if the event is mutual; `after_round`: a matching round's impulses are
    /// pending (the GPU applies them here).
    EarliestEvents {
        /// A matching round ran before this pass.
        after_round: bool,
    },
    /// collide, impulses: each sphere's sum of the final round's impulses (`sum_impulses`).
    SumImpulses,
    /// integrate: the final round's changes added to the state, before gravity reads it
    /// (`apply_contacts`). Without a gravity pass the end of the step applies them.
    ApplyContacts,
    /// collide, soft laws: each listed pair's force (`collide_pairs`).
    CollidePairs,
    /// collide, soft laws: each sphere's sum of its row and its walls (`sum_pairs`).
    SumPairs,
    /// gravity: mutual accelerations (direct sum or tree).
    Gravity,
    /// integrate: accelerations only (set-up, no time passes).
    Accelerations,
    /// integrate + check: accelerations, the second half kick, the impulses' last round applied
    /// and tallied (impulses without a gravity pass), and the check of every sphere.
    EndOfStep,
}

/// One pass of the recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pass {
    /// The label of its debug group and its profiler stage: `stage::entry`.
    pub name: &'static str,
    /// What it computes.
    pub kind: Kind,
    /// What one invocation covers.
    pub size: Size,
    /// When it runs.
    pub gate: Gate,
    /// Resources it reads, by their WGSL names ([`resource`] maps the few variables named
    /// otherwise): what its [`entries`] read before the pass writes it, and for a pass gated by
    /// the rebuild its indirect arguments (`gated_dims`). A stage swapped between the backends
    /// (`cpu::swap`) transfers what its passes read. `tests/gpu_shaders.rs` checks both lists
    /// against the shaders through naga.
    pub reads: &'static [&'static str],
    /// Resources it writes, by their WGSL names.
    pub writes: &'static [&'static str],
}

impl Pass {
    /// Whether the pass belongs to the step's head (the drift, the binning and the list's
    /// build), before the contact stage.
    pub fn head(&self) -> bool {
        matches!(
            self.kind,
            Kind::MeasureSpeed | Kind::KickDrift | Kind::Binning | Kind::BuildList
        )
    }
}

/// The shader entry points that record a pass on the GPU, in order, as `(stage file, entry
/// point)` (`gpu::GpuBackend::record_pass`): those of every variant (override constants select
/// a variant's code, and naga, which checks the lists, sees all of it). Gravity is the direct
/// sum's; the tree's passes use only `pos`, `acc` and `a_mutual` of the step's resources.
pub fn entries(kind: Kind) -> &'static [(&'static str, &'static str)] {
    match kind {
        Kind::MeasureSpeed => &[("integrate", "measure_speed")],
        Kind::KickDrift => &[("integrate", "kick_drift")],
        Kind::Binning => &[
            ("neighbours", "gate_dispatches"),
            ("cell_keys", "cell_keys"),
            ("count", "seed_cell_start"),
            ("prefix_sum", "reduce"),
            ("prefix_sum", "scan_blocks"),
            ("scatter", "place"),
            ("scatter", "rank"),
            ("gather", "gather"),
        ],
        Kind::BuildList => &[
            ("neighbours", "keep_old_entries"),
            ("neighbours", "keep_old_rows"),
            ("neighbours", "sweeps"),
            ("neighbours", "list_count_large"),
            ("neighbours", "list_count"),
            ("prefix_sum", "reduce"),
            ("prefix_sum", "scan_blocks"),
            ("neighbours", "list_fill"),
            ("neighbours", "list_fill_large"),
            ("neighbours", "relink"),
            ("neighbours", "carry_entries"),
            ("neighbours", "carry_walls"),
        ],
        Kind::ImpulsePairs(_) => &[("collide", "impulse_pairs")],
        Kind::EarliestEvents { .. } => &[("collide", "earliest_from_pairs")],
        Kind::SumImpulses => &[("collide", "sum_impulses")],
        Kind::ApplyContacts => &[("integrate", "apply_contacts")],
        Kind::CollidePairs => &[("collide", "collide_pairs")],
        Kind::SumPairs => &[("collide", "sum_pairs")],
        Kind::Gravity => &[("gravity", "gravity")],
        Kind::Accelerations => &[("integrate", "accelerations")],
        Kind::EndOfStep => &[("integrate", "end_of_step")],
    }
}

/// Per-sphere state that only one pass reads and writes, and reads again in a later step: the
/// periodic images (`integrate::kick_drift`). A stage swapped between the backends
/// (`cpu::swap::exchange`) brings it back although no other pass reads it.
pub const CARRIED: &[&str] = &["image"];

/// The GPU's own buffers, by stage file and WGSL name, which no recipe list names: set-up's
/// constants (written by the host only), the step tail's dispatch arguments (a halting
/// submission's), each stage's scratch (written and read within one pass) and the work
/// counters. A stage file `"*"` means every one.
pub const GPU_OWN: &[(&str, &str)] = &[
    ("*", "params"),
    ("neighbours", "list"),
    ("collide", "list"),
    ("prefix_sum", "sp"),
    ("neighbours", "full_dims"),
    ("neighbours", "running_dims"),
    ("integrate", "running_dims"),
    ("count", "counts"),
    ("cell_keys", "counts"),
    ("cell_keys", "slot"),
    ("scatter", "slot"),
    ("scatter", "arrival"),
    ("prefix_sum", "block_sums"),
    ("cell_keys", "scan_sums"),
    ("count", "scan_sums"),
    ("neighbours", "list_sums"),
    ("neighbours", "old_start"),
    ("neighbours", "old_partner_id"),
    ("neighbours", "old_xi"),
    ("neighbours", "old_wall_xi"),
    ("neighbours", "large_counts"),
    ("collide", "work"),
    ("neighbours", "work"),
];

/// The step's resource that variable `var` of stage file `stage` binds in a pass of `kind`:
/// its own name, or where the WGSL names it otherwise, the recipe's name (gather's source and
/// destination sets, the prefix sum's array, the second halves of the pair results); `None`
/// for one of [`GPU_OWN`]. The one place the two namings meet.
pub fn resource<'a>(kind: Kind, stage: &str, var: &'a str) -> Option<&'a str> {
    if GPU_OWN
        .iter()
        .any(|&(s, v)| (s == stage || s == "*") && v == var)
    {
        return None;
    }
    Some(match (stage, var) {
        ("gather", v) if v.starts_with("src_") || v.starts_with("dst_") => match &v[4..] {
            "id" => "ids",
            rest => rest,
        },
        ("prefix_sum", "data") if kind == Kind::BuildList => "list_start",
        ("prefix_sum", "data") => "cell_start",
        ("collide", "pair_out_1" | "pair_out_2" | "pair_out_3") => "pair_out",
        ("collide", "pair_more_1" | "pair_more_2" | "pair_more_3") => "pair_more",
        (_, v) => v,
    })
}

/// What decides a step's passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The impulse model (else a soft law).
    pub impulse: bool,
    /// Mutual gravity is on (direct sum or tree).
    pub gravity: bool,
    /// Matching rounds of the impulse model ([`crate::setup::MATCHING_ROUNDS`]).
    pub rounds: usize,
}

/// What `earliest_from_pairs` reads: its row's links and results and the walls, the event's
/// result (`link`, `pair_out`, `pair_more`: `round_candidate`), and after a round the pending
/// impulses, the event (own) and the flag on its entry (`apply_pending`); `wall_xi`
/// statically, through `wall_contact` (soft history only).
const EARLIEST: &[&str] = &[
    "pos",
    "vel",
    "acc",
    "ids",
    "props",
    "rot",
    "list_start",
    "partner",
    "link",
    "pair_out",
    "pair_more",
    "planes",
    "earliest",
    "contact",
    "contact_dx",
    "dissipated",
    "status",
    "wall_xi",
];

/// What the impulse model's pair passes read (`impulse_pairs`, every variant: the pending
/// round's reads `contact` and `earliest`, the final's `earliest`, both the pairs' earlier
/// results).
const IMPULSE_PAIRS: &[&str] = &[
    "pos",
    "vel",
    "props",
    "ids",
    "rot",
    "earliest",
    "contact",
    "contact_dx",
    "list_start",
    "partner",
    "link",
    "row_of",
    "pair_more",
];

fn pass(
    name: &'static str,
    kind: Kind,
    size: Size,
    gate: Gate,
    reads: &'static [&'static str],
    writes: &'static [&'static str],
) -> Pass {
    Pass {
        name,
        kind,
        size,
        gate,
        reads,
        writes,
    }
}

/// The passes of one step, in order; `init`: set-up's evaluation at time 0 (no kick, no drift,
/// no matching rounds, nothing applied: contact counts, soft forces and accelerations only).
pub fn step(c: Config, init: bool) -> Vec<Pass> {
    use Gate::*;
    use Size::*;
    let mut p = Vec::with_capacity(24);
    if init {
        p.push(pass(
            "integrate::measure_speed",
            Kind::MeasureSpeed,
            Spheres,
            Always,
            &["pos", "vel", "grid"],
            &["grid"],
        ));
    } else {
        p.push(pass(
            "integrate::kick_drift",
            Kind::KickDrift,
            Spheres,
            Always,
            &[
                "pos", "vel", "acc", "rot", "grid", "x_build", "sweep", "rebuild", "status", "ids",
                "image",
            ],
            &["pos", "vel", "rot", "grid", "rebuild", "status", "image"],
        ));
    }
    p.push(pass(
        "cell_keys..gather",
        Kind::Binning,
        Stages,
        Rebuild,
        &[
            "pos", "vel", "acc", "props", "ids", "rot", "grid", "rebuild", "status",
        ],
        &[
            "pos",
            "vel",
            "acc",
            "props",
            "ids",
            "rot",
            "grid",
            "status",
            "rebuild",
            "gated_dims",
            "cell_start",
            "keys",
            "perm",
        ],
    ));
    p.push(pass(
        "neighbours::build",
        Kind::BuildList,
        Stages,
        Rebuild,
        &[
            "pos",
            "vel",
            "ids",
            "grid",
            "cell_start",
            "gated_dims",
            "perm",
            "list_start",
            "partner_id",
            "xi",
            "wall_xi",
            "status",
        ],
        &[
            "cells",
            "boxes",
            "list_start",
            "partner",
            "link",
            "row_of",
            "x_build",
            "sweep",
            "partner_id",
            "xi",
            "wall_xi",
            "status",
        ],
    ));
    if c.impulse {
        p.push(pass(
            "collide::impulse_pairs",
            Kind::ImpulsePairs(Pairs::Binary),
            Entries,
            Always,
            IMPULSE_PAIRS,
            &["pair_out", "pair_more"],
        ));
        let earliest = |after_round: bool| {
            pass(
                "collide::earliest_from_pairs",
                Kind::EarliestEvents { after_round },
                Rows,
                Always,
                EARLIEST,
                &[
                    "earliest",
                    "pos",
                    "vel",
                    "dissipated",
                    "status",
                    "contact",
                    "contact_dx",
                    // Statically reachable through wall_contact (soft history only).
                    "wall_xi",
                ],
            )
        };
        let sum_impulses = pass(
            "collide::sum_impulses",
            Kind::SumImpulses,
            Rows,
            Always,
            &[
                "pos",
                "vel",
                "props",
                "ids",
                "rot",
                "earliest",
                "list_start",
                "partner",
                "link",
                "pair_out",
                "pair_more",
                "planes",
                "wall_xi",
            ],
            // `earliest` only for its statically reachable wall forces (never written
            // with impulses: SharedBuffers::earliest).
            &[
                "contact",
                "contact_dx",
                "contact_counts",
                "wall_xi",
                "earliest",
            ],
        );
        let rounds = if init { 0 } else { c.rounds };
        for r in 0..rounds {
            p.push(earliest(r > 0));
            p.push(pass(
                "collide::impulse_pairs",
                Kind::ImpulsePairs(Pairs::Pending),
                Entries,
                Always,
                IMPULSE_PAIRS,
                &["pair_out", "pair_more"],
            ));
        }
        if !init {
            p.push(earliest(rounds > 0));
        }
        p.push(pass(
            "collide::impulse_pairs",
            Kind::ImpulsePairs(Pairs::Final),
            Entries,
            Always,
            IMPULSE_PAIRS,
            &["pair_out", "pair_more"],
        ));
        p.push(sum_impulses);
        if !init && c.gravity {
            p.push(pass(
                "integrate::apply_contacts",
                Kind::ApplyContacts,
                Spheres,
                Always,
                &[
                    "pos",
                    "vel",
                    "acc",
                    "ids",
                    "contact",
                    "contact_dx",
                    "contact_counts",
                    "dissipated",
                    "status",
                ],
                &["pos", "vel", "dissipated", "status"],
            ));
        }
    } else {
        p.push(pass(
            "collide::collide_pairs",
            Kind::CollidePairs,
            Entries,
            Always,
            &[
                "pos",
                "vel",
                "props",
                "ids",
                "rot",
                "list_start",
                "partner",
                "link",
                "row_of",
                "xi",
            ],
            &["pair_out", "pair_more", "pair_spin", "xi"],
        ));
        p.push(pass(
            "collide::sum_pairs",
            Kind::SumPairs,
            Rows,
            Always,
            &[
                "pos",
                "vel",
                "props",
                "ids",
                "rot",
                "list_start",
                "link",
                "pair_out",
                "pair_more",
                "pair_spin",
                "planes",
                "wall_xi",
            ],
            &[
                "contact",
                "contact_dx",
                "contact_counts",
                "torque",
                "wall_xi",
                // The walls' forces (SharedBuffers::earliest).
                "earliest",
            ],
        ));
    }
    if c.gravity {
        p.push(pass(
            "gravity",
            Kind::Gravity,
            Solver,
            Always,
            &["pos", "acc"],
            &["a_mutual"],
        ));
    }
    if init {
        p.push(pass(
            "integrate::accelerations",
            Kind::Accelerations,
            Spheres,
            Always,
            &["pos", "vel", "acc", "rot", "contact", "a_mutual", "torque"],
            &["acc", "rot"],
        ));
    } else {
        p.push(pass(
            "integrate::end_of_step",
            Kind::EndOfStep,
            Spheres,
            Always,
            &[
                "pos",
                "vel",
                "acc",
                "rot",
                "ids",
                "contact",
                "contact_dx",
                "contact_counts",
                "a_mutual",
                "torque",
                "dissipated",
                "grid",
                "status",
            ],
            &["acc", "vel", "pos", "rot", "dissipated", "status", "grid"],
        ));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(c: Config, init: bool) -> Vec<&'static str> {
        step(c, init).iter().map(|p| p.name).collect()
    }

    #[test]
    fn an_impulse_step_has_two_passes_a_matching_round() {
        let c = Config {
            impulse: true,
            gravity: false,
            rounds: 3,
        };
        let n = step(c, false).len();
        let two = step(Config { rounds: 2, ..c }, false).len();
        assert_eq!(n - two, 2);
        // kick_drift, binning, build, binary pairs, 3 × 2, earliest, final pairs, final sum, end.
        assert_eq!(n, 3 + 1 + 6 + 3 + 1);
        let with_gravity = names(Config { gravity: true, ..c }, false);
        let apply = with_gravity
            .iter()
            .position(|&n| n == "integrate::apply_contacts")
            .expect("applied before gravity");
        assert_eq!(with_gravity[apply + 1], "gravity");
    }

    #[test]
    fn set_up_has_no_kick_no_rounds_and_ends_with_accelerations() {
        let c = Config {
            impulse: true,
            gravity: true,
            rounds: 3,
        };
        let p = step(c, true);
        assert_eq!(p[0].kind, Kind::MeasureSpeed);
        assert!(p.iter().all(|p| !matches!(
            p.kind,
            Kind::KickDrift | Kind::EarliestEvents { .. } | Kind::ApplyContacts | Kind::EndOfStep
        )));
        assert_eq!(p.last().unwrap().kind, Kind::Accelerations);
    }

    #[test]
    fn only_the_binning_and_the_build_wait_for_a_rebuild() {
        for impulse in [false, true] {
            let c = Config {
                impulse,
                gravity: true,
                rounds: 3,
            };
            let gated: Vec<Kind> = step(c, false)
                .iter()
                .filter(|p| p.gate == Gate::Rebuild)
                .map(|p| p.kind)
                .collect();
            assert_eq!(gated, [Kind::Binning, Kind::BuildList]);
        }
    }
}
