//! Set-up of the CPU backend: a checked scene into the sorted state, the first binning,
//! list and forces (the recipe's set-up passes), and the memory estimate checked before it.

use super::*;

impl<R: Real> CpuBackend<R> {
    /// Sets up a checked scene: converts to precision `R`, splits small and large spheres, sorts
    /// by bucket and evaluates the initial forces.
    pub fn new(scene: &Scene) -> Self {
        Self::from_packed(&PackedScene::new(scene))
    }

    /// Sets up a packed scene (see [`PackedScene`]).
    pub fn from_packed(p: &PackedScene) -> Self {
        let n = p.len();
        let sp = &p.params;
        let n_large = p.large_count(R::of);
        let ts = sp.table_size;
        let mut b = Self {
            params: Params::of(sp),
            planes: p
                .walls
                .iter()
                .map(|w| PlaneBody {
                    kind: w.kind,
                    point: R::v3(w.point),
                    normal: R::v3(w.normal),
                    e: R::of(w.restitution),
                    zeta: R::of(w.zeta),
                    compliance: R::of(w.compliance),
                    mu: R::of(w.friction),
                    rolling_friction: R::of(w.rolling_friction),
                    radius: R::of(w.radius),
                    velocity: R::v3(w.velocity),
                })
                .collect(),
            // The per-sphere arrays from the packed scene: `append` below, as an insertion.
            n_small: 0,
            position: Vec::with_capacity(n),
            velocity: Vec::with_capacity(n),
            acceleration: Vec::with_capacity(n),
            spin: Vec::new(),
            orientation: Vec::new(),
            angular_acceleration: Vec::new(),
            inv_inertia: Vec::new(),
            rolling_friction: Vec::new(),
            radius: Vec::with_capacity(n),
            mass: Vec::with_capacity(n),
            inv_mass: Vec::with_capacity(n),
            restitution: Vec::with_capacity(n),
            zeta: Vec::with_capacity(n),
            compliance: Vec::with_capacity(n),
            mu: Vec::with_capacity(n),
            id: Vec::with_capacity(n),
            image: Vec::new(),
            radius_input: Vec::with_capacity(n),
            mass_input: Vec::with_capacity(n),
            keys: Vec::new(),
            counts: vec![0; ts as usize + 1],
            cell_start: vec![0; ts as usize + 1],
            perm: Vec::new(),
            bodies: Vec::with_capacity(n),
            balls: Vec::with_capacity(n),
            bodies_stale: true,
            pairs: Vec::new(),
            spin_pairs: Vec::new(),
            roll_pairs: Vec::new(),
            impulses: Vec::new(),
            moved: Vec::with_capacity(n),
            sweep: Vec::with_capacity(n),
            cells: Vec::with_capacity(n),
            boxes: Vec::new(),
            contact: Vec::new(),
            wall_force: Vec::new(),
            earliest: Vec::new(),
            list: NeighbourList::default(),
            a_mutual: Vec::new(),
            tree: tree::Tree::new(),
            walk_counts: tree::WalkCounts::default(),
            spare_v3: Vec::with_capacity(n),
            spare_r: Vec::with_capacity(n),
            spare_u32: Vec::with_capacity(n),
            spare_q: Vec::new(),
            spare_i3: Vec::new(),
            block_sums: Vec::new(),
            next_slot: Vec::with_capacity(ts as usize + 1),
            contact_blocks: Vec::new(),
            loss_blocks: Vec::new(),
            step: 0,
            collisions: 0,
            history_dropped: 0,
            contacts: 0,
            spring_energy: 0.0,
            dissipated: 0.0,
            cell_edge: R::one(),
            stage_seconds: [0.0; 6],
            recipe: Vec::new(),
        };
        b.append(p, 0);
        b.n_small = (n - n_large) as u32;
        let mut run = StepRun::new(true);
        b.run_recipe(&recipe::step(b.recipe_config(), true), &mut run);
        b.contacts = run.sums.contacts;
        b.spring_energy = run.sums.energy;
        // The stage timers count steps, not set-up.
        b.stage_seconds = [0.0; 6];
        b.recipe = recipe::step(b.recipe_config(), false);
        b
    }

    /// Estimated heap memory of the backend for `n` spheres, bytes: every per-sphere array at
    /// its element size (with the reordering's spare arrays), the neighbour list at
    /// [`LIST_ENTRIES_ESTIMATE`] entries per sphere (partner, link, build scratch, pair result;
    /// with the friction history's ξ and partner id per entry, both copies during a rebuild,
    /// when `history`, [`contact_history`]; counted for every law),
    /// rotation's state and pair records when `rotation` (with rolling resistance's: a bound),
    /// and the hash table (`table_size(n) + 1` counts and starts). Large-sphere boxes and walls
    /// are not counted (at most 256 boxes).
    pub fn memory_estimate(n: usize, history: bool, rotation: bool) -> u64 {
        use std::mem::size_of;
        let per_entry = if history {
            2 * (size_of::<u32>() + size_of::<collide::ContactHistory<R>>())
        } else {
            0
        };
        // Partner, link, the build's scratch row and the pair result (one law's).
        let pair = if rotation {
            size_of::<collide::RollPairOut<R>>()
        } else {
            size_of::<collide::PairOut<R>>()
        }
        .max(size_of::<collide::PairImpulse<R>>());
        let per_entry = per_entry + 3 * size_of::<u32>() + pair;
        let per_sphere = 7 * size_of::<R::V3>() // position, velocity, acceleration, force, a_mutual, spare, x_build
            + 10 * size_of::<R>() // radius, mass, inverse mass, restitution, ζ, compliance, μ, spare, two sweeps
            + size_of::<bool>() // moved (impulses)
            + 7 * size_of::<u32>() // id, keys, permutation, spare, list counts, rows and old rows
            + 2 * size_of::<f64>() // radius and mass as given
            + size_of::<collide::Body<R>>()
            + size_of::<collide::Ball<R>>()
            + size_of::<[i32; 3]>()
            + size_of::<collide::ContactOut<R>>()
            + size_of::<collide::Event<R>>()
            // Rotation: ω, orientation and its spare, angular acceleration, inverse inertia, μ_r.
            + if rotation {
                2 * size_of::<R::V3>() + 2 * size_of::<[R; 4]>() + 2 * size_of::<R>()
            } else {
                0
            }
            + LIST_ENTRIES_ESTIMATE * per_entry;
        // Counts, starts and the scatter's next free slots.
        let table = 3 * 4 * (cell_keys::table_size(n) as u64 + 1);
        per_sphere as u64 * n as u64 + table
    }
}
