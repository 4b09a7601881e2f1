// Stage `neighbours`: the Verlet neighbour list with a skin, built on the GPU. Twin of
// src/cpu/neighbours.rs (docs/physics.md, "Neighbour list with a skin").
//
// After the drift of a step that may bin (every step, or with HALT the first of a submission):
// - `needs_rebuild` (cpu::neighbours::needs_rebuild; run inside integrate.wgsl's kick_drift,
//   override DECIDE, to save a pass over the spheres): raises the rebuild flag when some sphere
//   has moved more than its sweep since the last build (a zero skin rebuilds every step);
// - `gate_dispatches` (one thread): turns the flag into the work-group counts of every
//   dispatch of the binning and the build (zero when there is no rebuild), which the host
//   records as indirect dispatches, counts the rebuild, and restores the step tail's counts.
// A build follows a binning (cells widened by the skin, gate_dispatches' cell edge) and runs:
// - with friction history, `keep_old_entries` and `keep_old_rows`: the old rows' partner ids,
//   ξ and wall ξ, kept for the carry;
// - `sweeps`: each sphere's sweep σ (half its skin, plus |v| dt for impulses), its position,
//   its binned cell, and a large sphere's box of cells (the binning's cells, computed here to
//   save the binning a pass over the sorted spheres);
// - `list_count_large` (list.large_chunks work-groups per large sphere, each a contiguous share
//   of its walk), then `list_count`: each sphere's entries, the partners of its candidate walk
//   within r_a + r_b + σ_a + σ_b, into list_start[i] (a large sphere's: its shares' sum);
// - the prefix sum of list_start (stage prefix_sum, in place): each row's first entry, whose
//   first block sums list_count added (sweeps zeroes them);
// - `list_fill` (`list_fill_large`): the rows, in the walk's order (the CPU's order), each entry's sphere, and its
//   owner flag;
// - `relink`: each entry's mirror, found by one entry of the pair in the shorter row;
// - with friction history, `carry_entries` and `carry_walls`: each new entry's ξ from the old
//   entry of the same pair, found by the partner's id in the sphere's old row.
// An entry at or past `capacity` is not written: the status reports the entries a build
// needed, and the host stops with an error when they did not fit.

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;     // xyz, radius
@group(0) @binding(2) var<storage, read> vel: array<vec4<f32>>;     // xyz, inverse mass
@group(0) @binding(3) var<storage, read> ids: array<u32>;
@group(0) @binding(4) var<storage, read> cell_start: array<u32>;    // table_size + 1
@group(0) @binding(6) var<storage, read_write> cells: array<vec4<i32>>;   // binned cell
@group(0) @binding(7) var<storage, read_write> boxes: array<vec4<i32>>;   // 2 per large sphere
@group(0) @binding(8) var<storage, read_write> sweep: array<f32>;   // m
@group(0) @binding(9) var<storage, read_write> list_start: array<u32>;  // n + 1
@group(0) @binding(10) var<storage, read_write> partner: array<u32>;    // capacity
@group(0) @binding(11) var<storage, read_write> link: array<u32>;       // capacity
@group(0) @binding(12) var<storage, read_write> row_of: array<u32>;     // capacity
@group(0) @binding(13) var<storage, read> list: ListParams;
@group(0) @binding(14) var<storage, read_write> x_build: array<vec4<f32>>;  // n, at the last build
// Word 0 the flag (0 keep, 1 rebuild, 2 set-up); 1 and 2 the halt words of even and odd steps.
@group(0) @binding(15) var<storage, read_write> rebuild: array<atomic<u32>, 4>;
@group(0) @binding(16) var<storage, read> full_dims: array<vec4<u32>>;      // per gated dispatch: x, y, 1, 0
@group(0) @binding(17) var<storage, read_write> gated_dims: array<u32>;     // 4 per gated dispatch: indirect x, y, z
@group(0) @binding(18) var<storage, read_write> grid: GridView;
@group(0) @binding(28) var<storage, read_write> running_dims: array<u32>;   // the step tail's: x, y, 1, 0 each
@group(0) @binding(19) var<storage, read_write> status: Status;
// Friction history (16-byte dummies without): new and old entries' partner ids and ξ, and
// every sphere's ξ against each wall (n × walls).
@group(0) @binding(20) var<storage, read> perm: array<u32>;                 // old sorted index of each new one
@group(0) @binding(21) var<storage, read_write> partner_id: array<u32>;     // capacity
@group(0) @binding(22) var<storage, read_write> xi: array<vec4<f32>>;       // capacity, m
@group(0) @binding(23) var<storage, read_write> wall_xi: array<vec4<f32>>;  // n × walls, m
@group(0) @binding(24) var<storage, read_write> old_start: array<u32>;      // n + 1
@group(0) @binding(25) var<storage, read_write> old_partner_id: array<u32>;
@group(0) @binding(26) var<storage, read_write> old_xi: array<vec4<f32>>;
@group(0) @binding(27) var<storage, read_write> old_wall_xi: array<vec4<f32>>;
// Per large sphere, list.large_chunks + 1 words: each work-group's entries of the box walk, then
// the row's total (gpu::neighbours::large_chunks).
@group(0) @binding(29) var<storage, read_write> large_counts: array<atomic<u32>>;
// The list build's walks (list_count, list_fill and their large-sphere work-groups) as one
// kind of pass in the work counters: gpu::work::BUILD_PASS; a visit is a candidate tested, a
// large sphere's box tested, or a cell or sphere of a large sphere's box walk.
const BUILD_PASS: u32 = 2u;
@group(0) @binding(30) var<storage, read_write> work: array<WorkCounters, 3>; // shaders/work.wgsl
// The rows' first block sums (prefix_sum.wgsl's `reduce` of level 0), which list_count adds
// instead of that pass: zeroed by sweeps (a stand-in when the scan is one block).
@group(0) @binding(31) var<storage, read_write> list_sums: array<atomic<u32>>;

// One past bucket k's last sphere in the sorted order: the next bucket's start (the large
// spheres' bucket, k = table_size, ends at n). The CPU reads cell_start[k] + counts[k]; the
// counts are zeroed after the scan (count.wgsl's seed_cell_start), so the GPU reads the next
// start, which is the same number.
fn bucket_end(k: u32) -> u32 {
    if k < params.table_size {
        return cell_start[k + 1u];
    }
    return params.n;
}

// cpu::neighbours::sweeps
@compute @workgroup_size(WG)
fn sweeps(@builtin(global_invocation_id) gid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    // The list's scan covers the room (capacity + 1 rows), which can outnumber the spheres'
    // invocations: each zeroes every (invocations)th block sum.
    let width = nwg.x * WG;
    for (var j = gid.x + gid.y * width; j < arrayLength(&list_sums); j += width * nwg.y) {
        atomicStore(&list_sums[j], 0u);
    }
    if i >= params.n {
        return;
    }
    let p = pos[i];
    let v = vel[i].xyz;
    var s = sphere_skin(params.skin, p.w, params.small_radius_max) * 0.5;
    if params.model == MODEL_IMPULSE {
        s += sqrt(dot3(v, v)) * params.dt;
    }
    sweep[i] = s;
    x_build[i] = p;
    // The cells of the sorted state at binning time (CpuBackend::bin_cells,
    // cpu::collide::large_box), which the walks below start from.
    let axes = grid_axes(params.box_min, params.box_len, grid.cell_edge);
    cells[i] = vec4<i32>(grid_cell(p.xyz, grid.inv_cell_edge, axes), 0);
    if i >= params.n_small {
        // The row's total, which list_count_large's work-groups add to.
        atomicStore(&large_counts[large_base(i - params.n_small) + list.large_chunks], 0u);
        let skins = params.skin + sphere_skin(params.skin, p.w, params.small_radius_max);
        let reach = p.w + params.small_radius_max
            + (sqrt(v.x * v.x + v.y * v.y + v.z * v.z) + grid.small_speed_max) * params.dt
            + skins * 0.5;
        // Unwrapped cells: a periodic scene has no large sphere (Scene::check).
        let k = 2u * (i - params.n_small);
        boxes[k] = vec4<i32>(cell_of(p.xyz - vec3<f32>(reach), grid.inv_cell_edge), 0);
        boxes[k + 1u] = vec4<i32>(cell_of(p.xyz + vec3<f32>(reach), grid.inv_cell_edge), 0);
    }
}

// First word of large sphere k's counts in large_counts.
fn large_base(k: u32) -> u32 {
    return k * (list.large_chunks + 1u);
}

// One thread, after kick_drift's rebuild decision (integrate.wgsl's needs_rebuild): the
// indirect work-group counts of the gated dispatches (those of `full_dims` with a rebuild, none
// without) and of the step's tail (all of `full_dims`: a halting kick_drift zeroed them), the
// rebuild count (set-up's not counted), and with a rebuild the binning grid's cell edge. Clears
// the halt words and the speed maximum for the steps after it.
@compute @workgroup_size(1)
fn gate_dispatches() {
    var flag = atomicLoad(&rebuild[0]);
    // A halting step's decision (kick_drift with HALT): this step is the one it held back.
    if flag == 0u && (atomicLoad(&rebuild[1]) | atomicLoad(&rebuild[2])) != 0u {
        flag = 1u;
    }
    atomicStore(&rebuild[1], 0u);
    atomicStore(&rebuild[2], 0u);
    // A zero skin re-bins in every step; needs_rebuild is not run.
    if flag == 0u && params.skin <= 0.0 {
        flag = 1u;
    }
    // Left as decided: gather reads it.
    atomicStore(&rebuild[0], flag);
    if flag == 1u {
        atomicAdd(&status.rebuilds, 1u);
    }
    let on = flag != 0u;
    if on {
        // The binning's grid (cell_keys): the cell edge from the speed² kick_drift recorded.
        let vmax = sqrt(bitcast<f32>(grid.speed_max_bits));
        let h = grid_cell_edge(params.small_radius_max, params.skin, vmax, params.dt);
        grid.small_speed_max = vmax;
        grid.cell_edge = h;
        grid.inv_cell_edge = 1.0 / h;
        // The new list's spheres start from their positions.
        atomicStore(&status.reach, 0u);
    }
    // The next drift records its own maximum.
    grid.speed_max_bits = 0u;
    for (var k = 0u; k < arrayLength(&full_dims); k++) {
        let f = full_dims[k];
        gated_dims[4u * k] = select(0u, f.x, on);
        gated_dims[4u * k + 1u] = select(0u, f.y, on);
        gated_dims[4u * k + 2u] = select(0u, 1u, on);
        gated_dims[4u * k + 3u] = 0u;
        running_dims[4u * k] = f.x;
        running_dims[4u * k + 1u] = f.y;
        running_dims[4u * k + 2u] = 1u;
        running_dims[4u * k + 3u] = 0u;
    }
}

// Before a build with friction history: the old entries' partner ids and ξ
// (cpu::neighbours::NeighbourList::build's old_partner_id, old_xi).
@compute @workgroup_size(WG)
fn keep_old_entries(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = linear_index(gid, list.dispatch_x);
    if e >= min(list_start[params.n], list.capacity) {
        return;
    }
    old_partner_id[e] = partner_id[e];
    for (var h = 0u; h < params.history_stride; h++) {
        old_xi[params.history_stride * e + h] = xi[params.history_stride * e + h];
    }
}

// Before a build with friction history: the old rows and wall ξ.
@compute @workgroup_size(WG)
fn keep_old_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    old_start[i] = list_start[i];
    if i == 0u {
        old_start[params.n] = list_start[params.n];
    }
    let hs = params.history_stride;
    for (var k = 0u; k < hs * params.n_planes; k++) {
        old_wall_xi[hs * i * params.n_planes + k] = wall_xi[hs * i * params.n_planes + k];
    }
}

// After a build with friction history, one entry each: its partner's id and its ξ, carried
// from the old entry of the same pair in the sphere's old row, or zero
// (cpu::neighbours::NeighbourList::build).
@compute @workgroup_size(WG)
fn carry_entries(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = linear_index(gid, list.dispatch_x);
    if e >= min(list_start[params.n], list.capacity) {
        return;
    }
    let id = ids[partner[e]];
    partner_id[e] = id;
    let o = perm[row_of[e]];
    let hs = params.history_stride;
    var found = NO_MIRROR;
    let end = min(old_start[o + 1u], list.capacity);
    for (var m = old_start[o]; m < end; m++) {
        if old_partner_id[m] == id {
            found = m;
            break;
        }
    }
    for (var h = 0u; h < hs; h++) {
        var kept = vec4<f32>(0.0);
        if found != NO_MIRROR {
            kept = old_xi[hs * found + h];
        }
        xi[hs * e + h] = kept;
    }
}

// After a build with friction history: each sphere's wall ξ, into the new order
// (cpu::scatter::gather_rows).
@compute @workgroup_size(WG)
fn carry_walls(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n {
        return;
    }
    let o = perm[i];
    let hs = params.history_stride;
    for (var k = 0u; k < hs * params.n_planes; k++) {
        wall_xi[hs * i * params.n_planes + k] = old_wall_xi[hs * o * params.n_planes + k];
    }
}

// The walking sphere: its index, centre, radius plus sweep, and what the walk does with the
// partners in reach (count them, or write them from entry `walk_at` on).
var<private> walk_i: u32;
var<private> walk_x: vec3<f32>;
var<private> walk_reach: f32;
var<private> walk_fill: bool;
var<private> walk_at: u32;
var<private> walk_count: u32;

// One candidate j of the walk: listed when cpu::collide::in_reach(x_i, r_i + σ_i, x_j,
// r_j + σ_j, 0) holds.
fn candidate(j: u32) {
    visits += 1u;
    let other = pos[j];
    let reach = walk_reach + (other.w + sweep[j]);
    let d = minimum_image(other.xyz - walk_x, params.box_len, params.box_half);
    if dot3(d, d) > 1.01 * reach * reach {
        return;
    }
    walk_count += 1u;
    if walk_fill {
        if walk_at < list.capacity {
            partner[walk_at] = j;
            row_of[walk_at] = walk_i;
            link[walk_at] = select(0u, OWNED, ids[walk_i] < ids[j]) | NO_MIRROR;
        }
        walk_at += 1u;
    }
}

// cpu::collide::SEEN_FILTER_MULTIPLIER
const SEEN_FILTER_MULTIPLIER: u32 = 0x9e3779b9u;

fn in_box(c: vec3<i32>, k: u32) -> bool {
    return all(boxes[2u * k].xyz <= c) && all(c <= boxes[2u * k + 1u].xyz);
}

// cpu::collide::for_each_candidate for small sphere i: the 27 neighbour buckets, then the
// large spheres whose box holds its cell.
fn for_each_candidate(i: u32) {
    let n_small = params.n_small;
    let cell = cells[i].xyz;
    // Periodic axes wrap the neighbour cells (cpu::cell_keys::neighbour_buckets).
    let wrap = grid_axes(params.box_min, params.box_len, grid.cell_edge).cells;
    var seen: array<u32, 27>;
    var n_seen = 0u;
    // cpu::collide::seen_filter_bit: a bucket outside the filter is new without a search.
    var seen_bits: array<u32, 8>;
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let c = cell + vec3<i32>(dx, dy, dz);
                let w = vec3<i32>(wrap_cell(c.x, wrap.x), wrap_cell(c.y, wrap.y), wrap_cell(c.z, wrap.z));
                let k = hash_cell(w, params.table_size);
                let b = (k * SEEN_FILTER_MULTIPLIER) >> 24u;
                let bit = 1u << (b & 31u);
                var dup = false;
                if (seen_bits[b >> 5u] & bit) != 0u {
                    for (var s = 0u; s < n_seen; s++) {
                        dup = dup || seen[s] == k;
                    }
                }
                if dup {
                    continue;
                }
                seen_bits[b >> 5u] |= bit;
                seen[n_seen] = k;
                n_seen += 1u;
                let end = bucket_end(k);
                for (var j = cell_start[k]; j < end; j++) {
                    if j != i {
                        candidate(j);
                    }
                }
            }
        }
    }
    for (var j = n_small; j < params.n; j++) {
        visits += 1u;
        if in_box(cell, j - n_small) {
            candidate(j);
        }
    }
}

// ---- Large spheres: list.large_chunks work-groups each ---------------------------------------
//
// A large sphere's box can hold a good part of the scene. Its walk (for_each_candidate's
// large-sphere branch: the box's cells, or every small sphere when the box has more cells than
// there are small spheres, then the other large spheres) is cut into contiguous runs, one a lane
// of each of its list.large_chunks work-groups, so that the runs in (work-group, lane) order are
// the walk: an entry goes after those of the work-groups and lanes before it (the work-groups'
// counts summed, then an exclusive scan of the lanes'), and the row is the CPU's. Work-group 0
// also walks the other large spheres, which come last. No lane walks more than
// gpu::neighbours::LARGE_RUN items, at any N or box size (up to LARGE_GROUPS_MAX work-groups).

// The share of lane `lid` of work-group `chunk` of large sphere i's walk: part 0 its box, part 1
// the large spheres (work-group 0's lanes only).
fn walk_large_share(i: u32, lid: u32, part: u32, chunk: u32) {
    let n_small = params.n_small;
    if part == 1u {
        let n_large = params.n - n_small;
        let per = (n_large + WG - 1u) / WG;
        let end = n_small + min((lid + 1u) * per, n_large);
        for (var j = n_small + lid * per; j < end; j++) {
            if j != i {
                candidate(j);
            }
        }
        return;
    }
    let runs = list.large_chunks * WG;
    let run = chunk * WG + lid;
    let kb = i - n_small;
    let lo = boxes[2u * kb].xyz;
    let hi = boxes[2u * kb + 1u].xyz;
    let span = vec3<f32>(hi - lo) + vec3<f32>(1.0);
    if span.x * span.y * span.z > f32(n_small) {
        // Fewer spheres than cells: every small sphere's cell against the box.
        let per = (n_small + runs - 1u) / runs;
        let end = min((run + 1u) * per, n_small);
        for (var j = run * per; j < end; j++) {
            visits += 1u;
            if in_box(cells[j].xyz, kb) {
                candidate(j);
            }
        }
        return;
    }
    // At most n_small cells: the count fits in u32. Linear index x fastest, then y, then z,
    // as the serial loops go.
    let size = vec3<u32>(hi - lo) + vec3<u32>(1u);
    let n_cells = size.x * size.y * size.z;
    let per = (n_cells + runs - 1u) / runs;
    let end = min((run + 1u) * per, n_cells);
    for (var l = run * per; l < end; l++) {
        visits += 1u;
        let c = lo + vec3<i32>(vec3<u32>(l % size.x, (l / size.x) % size.y, l / (size.x * size.y)));
        let k = hash_cell(c, params.table_size);
        let stop = bucket_end(k);
        // Buckets alias cells: this cell's spheres only, so that none comes twice.
        for (var j = cell_start[k]; j < stop; j++) {
            if all(cells[j].xyz == c) {
                candidate(j);
            }
        }
    }
}

var<workgroup> wg_scan: array<u32, WG>;

// Exclusive scan of `value` over the work-group's lanes (Hillis–Steele): this lane's offset
// and the total.
fn lanes_exclusive_scan(lid: u32, value: u32) -> vec2<u32> {
    wg_scan[lid] = value;
    workgroupBarrier();
    for (var offset = 1u; offset < WG; offset *= 2u) {
        var add = 0u;
        if lid >= offset {
            add = wg_scan[lid - offset];
        }
        workgroupBarrier();
        wg_scan[lid] += add;
        workgroupBarrier();
    }
    let total = wg_scan[WG - 1u];
    workgroupBarrier();
    return vec2<u32>(wg_scan[lid] - value, total);
}

// Large sphere (sorted index; n or more for a padding work-group of a 2-D dispatch) and share
// of work-group `wid`: list.large_chunks consecutive work-groups per large sphere.
fn large_share(wid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    let g = wid.x + wid.y * nwg.x;
    return vec2<u32>(params.n_small + g / list.large_chunks, g % list.large_chunks);
}

// Starts a walk for sphere i: counts its partners in reach, or (fill) writes them from `at`.
fn begin_walk(i: u32, fill: bool, at: u32) {
    let me = pos[i];
    walk_i = i;
    walk_x = me.xyz;
    walk_reach = me.w + sweep[i];
    walk_fill = fill;
    walk_at = at;
    walk_count = 0u;
}

// The walk of lane `lid` of work-group `chunk` over part `part` of large sphere i (i < n).
fn walk_large(i: u32, lid: u32, part: u32, chunk: u32, fill: bool, at: u32) {
    begin_walk(i, fill, at);
    walk_large_share(i, lid, part, chunk);
}

// list_count for the large spheres: each work-group's entries of the box walk (work-group 0:
// also those among the large spheres), added to the row's total, which list_count moves into
// list_start.
@compute @workgroup_size(WG)
fn list_count_large(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let share = large_share(wid, nwg);
    let i = share.x;
    if i >= params.n {
        return;
    }
    let chunk = share.y;
    let base = large_base(i - params.n_small);
    walk_large(i, lid, 0u, chunk, false, 0u);
    let boxed = lanes_exclusive_scan(lid, walk_count).y;
    var large = 0u;
    if chunk == 0u {
        walk_large(i, lid, 1u, 0u, false, 0u);
        large = lanes_exclusive_scan(lid, walk_count).y;
    }
    if lid == 0u {
        atomicStore(&large_counts[base + chunk], boxed);
        // Integer sums commute: the total is the same in any order of the work-groups.
        atomicAdd(&large_counts[base + list.large_chunks], boxed + large);
    }
    report_visits(BUILD_PASS);
}

// list_fill for the large spheres: each lane counts its run, then writes it at its offset
// (the work-groups before it, then the lanes before it).
@compute @workgroup_size(WG)
fn list_fill_large(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let share = large_share(wid, nwg);
    let i = share.x;
    if i >= params.n {
        return;
    }
    let chunk = share.y;
    let base = large_base(i - params.n_small);
    // The box-walk entries of this sphere's work-groups before this one (all of them for the
    // large-sphere part), summed by the lanes together.
    let end = select(chunk, list.large_chunks, chunk == 0u);
    var before = 0u;
    var box_total = 0u;
    for (var g = lid; g < end; g += WG) {
        let c = atomicLoad(&large_counts[base + g]);
        box_total += c;
        if g < chunk {
            before += c;
        }
    }
    let offset = lanes_exclusive_scan(lid, before).y;
    walk_large(i, lid, 0u, chunk, false, 0u);
    let boxed = lanes_exclusive_scan(lid, walk_count);
    walk_large(i, lid, 0u, chunk, true, list_start[i] + offset + boxed.x);
    if chunk == 0u {
        let boxes_total = lanes_exclusive_scan(lid, box_total).y;
        walk_large(i, lid, 1u, 0u, false, 0u);
        let large = lanes_exclusive_scan(lid, walk_count);
        walk_large(i, lid, 1u, 0u, true, list_start[i] + boxes_total + large.x);
    }
    report_visits(BUILD_PASS);
}


// cpu::neighbours::NeighbourList::build, its counting half: entries of row i (a small
// sphere; the large ones: list_count_large). Then the prefix sum's first `reduce`: a
// work-group's WG rows lie in one block of the scan, and their sum goes to its block sum with
// one atomic (integer sums: the same in any order). No invocation returns before the barrier.
@compute @workgroup_size(WG)
fn list_count(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = linear_index(gid, params.dispatch_x);
    var c = 0u;
    if i < params.n_small {
        begin_walk(i, false, 0u);
        for_each_candidate(i);
        c = walk_count;
        list_start[i] = c;
        report_visits(BUILD_PASS);
    } else if i < params.n {
        // list_count_large's sum of the row's shares.
        let total = large_base(i - params.n_small) + list.large_chunks;
        c = atomicLoad(&large_counts[total]);
        list_start[i] = c;
    }
    let s = workgroup_sum_u32(c);
    if lid == 0u && s != 0u {
        atomicAdd(&list_sums[i / SCAN_BLOCK], s);
    }
}

// cpu::neighbours::NeighbourList::build, its filling half, after the prefix sum (a small
// sphere; the large ones: list_fill_large).
@compute @workgroup_size(WG)
fn list_fill(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid, params.dispatch_x);
    if i >= params.n_small {
        return;
    }
    begin_walk(i, true, list_start[i]);
    for_each_candidate(i);
    report_visits(BUILD_PASS);
}

// Row of sorted sphere i, ordered (entries, index): the pair's entry whose partner's row comes
// first in this order searches that row for its mirror, so that the search is as short as the
// shorter row and each pair is searched once.
fn row_before(j: u32, i: u32) -> bool {
    let len_j = list_start[j + 1u] - list_start[j];
    let len_i = list_start[i + 1u] - list_start[i];
    return len_j < len_i || (len_j == len_i && j < i);
}

// cpu::neighbours::NeighbourList::relink, one entry each: the pair's two entries point at
// each other (the owner flag was set by list_fill; an entry without a mirror keeps NO_MIRROR).
@compute @workgroup_size(WG)
fn relink(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = linear_index(gid, list.dispatch_x);
    if e == 0u {
        atomicMax(&status.list_needed, list_start[params.n]);
    }
    if e >= min(list_start[params.n], list.capacity) {
        return;
    }
    let i = row_of[e];
    let j = partner[e];
    if !row_before(j, i) {
        return;
    }
    let end = list_start[j + 1u];
    for (var m = list_start[j]; m < end; m++) {
        if partner[m] == i {
            link[e] = (link[e] & OWNED) | m;
            link[m] = (link[m] & OWNED) | e;
            return;
        }
    }
}
