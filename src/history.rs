//! Contact history by sphere id: what a backend's soft contacts keep from one step to the next
//! (friction's tangential displacement ξ, the Hertz law's approach speed at first touch, the
//! rolling spring), taken from one backend and given to another that was set up on the same
//! spheres, or on some of them. An open-system pass (docs/open-systems.md) starts the backend
//! again on the spheres that stay; with this, their contacts keep their springs.
//!
//! The entries are keyed by the ids of the two spheres, as the neighbour list keys its history
//! by the partner's id (`cpu::neighbours::NeighbourList::build`), so the order in which either
//! backend sorts its spheres does not matter.

use crate::scene::RollingModel;
use glam::DVec3;

/// What one contact keeps ([`crate::cpu::collide::ContactHistory`]), in f64: an f32 backend's
/// values are exact in it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Kept {
    /// Tangential displacement ξ, m.
    pub xi: DVec3,
    /// Approach speed δ̇⁻ when the contact began, m/s (Hertz law; else 0).
    pub impact: f64,
    /// Spring torque of the rolling resistance on the first body, N·m (EPSD rolling; else 0).
    pub rolling: DVec3,
}

impl Kept {
    /// What one contact keeps from its `vec4<f32>`s in the GPU's list (`neighbours.wgsl`): ξ
    /// and δ̇⁻, then with EPSD rolling resistance (two `vec4`s) the rolling spring.
    pub fn of_vec4s(v: &[[f32; 4]]) -> Self {
        let wide = |a: [f32; 4]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
        Self {
            xi: wide(v[0]),
            impact: v[0][3] as f64,
            rolling: v.get(1).map_or(DVec3::ZERO, |&r| wide(r)),
        }
    }

    /// The `hs` `vec4<f32>`s of [`Kept::of_vec4s`], pushed onto `out` (rounded to f32).
    pub fn push_vec4s(&self, hs: usize, out: &mut Vec<[f32; 4]>) {
        let v = self.xi.as_vec3();
        out.push([v.x, v.y, v.z, self.impact as f32]);
        if hs > 1 {
            let r = self.rolling.as_vec3();
            out.push([r.x, r.y, r.z, 0.0]);
        }
    }
}

/// `vec4<f32>`s a contact's history takes in the GPU's list: 1 (ξ | δ̇⁻), 2 with the rolling
/// spring of [`RollingModel::Epsd`] (its torque | 0); `params.history_stride` in the shaders.
pub fn vec4s_a_contact(rolling: RollingModel) -> usize {
    if rolling == RollingModel::Epsd { 2 } else { 1 }
}

/// A backend's contact history by sphere id (the index of the sphere in the scene the backend
/// was set up on).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactMemory {
    /// `(sphere id, partner id, kept)` of every list entry that keeps something, sorted by the
    /// two ids. An entry is one side of a pair: each keeps its own.
    pub pairs: Vec<(u32, u32, Kept)>,
    /// The first of [`ContactMemory::pairs`] of each sphere id (one per sphere, and their
    /// count last): a lookup scans one sphere's few entries, not all of them.
    pub first: Vec<u32>,
    /// Walls each sphere keeps a history against (the scene's planes and containers).
    pub walls: usize,
    /// `(sphere id, wall, kept)` of every sphere that keeps something against a wall, sorted by
    /// the two.
    pub wall: Vec<(u32, u32, Kept)>,
}

impl ContactMemory {
    /// The memory of `spheres` spheres against `walls` walls from `entries`, `(sphere id,
    /// partner id, kept)` in any order, and `wall(id, w)`, what sphere `id` keeps against
    /// wall `w`. What keeps nothing is left out.
    pub fn collect(
        entries: impl IntoIterator<Item = (u32, u32, Kept)>,
        spheres: usize,
        walls: usize,
        wall: impl Fn(usize, usize) -> Kept,
    ) -> Self {
        let wall_entries = (0..spheres * walls)
            .map(|k| (k / walls, k % walls))
            .map(|(i, w)| (i as u32, w as u32, wall(i, w)));
        Self::of_entries(entries, wall_entries, spheres, walls)
    }

    /// [`ContactMemory::collect`] from the walls' entries, `(sphere id, wall, kept)` in any
    /// order.
    fn of_entries(
        entries: impl IntoIterator<Item = (u32, u32, Kept)>,
        wall_entries: impl IntoIterator<Item = (u32, u32, Kept)>,
        spheres: usize,
        walls: usize,
    ) -> Self {
        let kept = |e: &(u32, u32, Kept)| e.2 != Kept::default();
        let mut pairs: Vec<_> = entries.into_iter().filter(kept).collect();
        pairs.sort_unstable_by_key(|e| (e.0, e.1));
        let mut wall: Vec<_> = wall_entries.into_iter().filter(kept).collect();
        wall.sort_unstable_by_key(|e| (e.0, e.1));
        let mut first = vec![0; spheres + 1];
        for &(id, _, _) in &pairs {
            first[id as usize + 1] += 1;
        }
        for k in 0..spheres {
            first[k + 1] += first[k];
        }
        Self {
            pairs,
            first,
            walls,
            wall,
        }
    }

    /// The spheres the memory is of (those that keep nothing included).
    pub fn spheres(&self) -> usize {
        self.first.len().saturating_sub(1)
    }

    /// The memory of a GPU backend's list, as read back from its buffers: `ids`, the input id
    /// of each sorted slot; `start`, each slot's first entry (at least `n + 1`); `partner`, each
    /// entry's partner id; `xi` and `wall_xi`, `hs` `vec4<f32>`s a contact in the layout of
    /// `neighbours.wgsl` (ξ and δ̇⁻, then with EPSD rolling resistance the rolling spring),
    /// `walls` a sphere for the walls. Entries past the list's capacity (`partner`'s length) are
    /// not read.
    ///
    /// # Errors
    /// A message when the arrays do not fit each other.
    pub fn of_gpu_list(
        ids: &[u32],
        start: &[u32],
        partner: &[u32],
        xi: &[[f32; 4]],
        wall_xi: &[[f32; 4]],
        hs: usize,
        walls: usize,
    ) -> Result<Self, String> {
        let n = ids.len();
        let total = start.get(n).map_or(0, |&t| (t as usize).min(partner.len()));
        if start.len() < n + 1
            || start[..=n].windows(2).any(|w| w[0] > w[1])
            || xi.len() < hs * total
            || wall_xi.len() < hs * n * walls
            || ids.iter().any(|&id| id as usize >= n)
        {
            return Err("its contact history does not fit its neighbour list".into());
        }
        let kept = |v: &[[f32; 4]], k: usize| Kept::of_vec4s(&v[hs * k..hs * (k + 1)]);
        let entries = (0..n).flat_map(|i| {
            (start[i] as usize..(start[i + 1] as usize).min(total))
                .map(move |e| (ids[i], partner[e], kept(xi, e)))
        });
        let slot = slots(ids);
        Ok(Self::collect(entries, n, walls, |id, w| {
            kept(wall_xi, slot[id] * walls + w)
        }))
    }

    /// Checks that a backend of `spheres` spheres and `walls` walls can take this memory.
    ///
    /// # Errors
    /// A message naming both counts when the walls differ or the memory holds more spheres.
    pub fn fits(&self, spheres: usize, walls: usize) -> Result<(), String> {
        if self.walls != walls || self.spheres() > spheres {
            return Err(format!(
                "the contact history holds {} spheres against {} walls; this backend has \
                 {spheres} spheres and {walls} walls",
                self.spheres(),
                self.walls
            ));
        }
        Ok(())
    }

    /// Whether nothing is kept: no entry, and no sphere against a wall. Giving such a memory
    /// to a backend just set up changes nothing (it keeps none either).
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty() && self.wall.is_empty()
    }

    /// What the entry of sphere `id` for partner `partner` keeps (zero when it keeps nothing).
    pub fn pair(&self, id: u32, partner: u32) -> Kept {
        let (Some(&a), Some(&b)) = (self.first.get(id as usize), self.first.get(id as usize + 1))
        else {
            return Kept::default();
        };
        self.pairs[a as usize..b as usize]
            .iter()
            .find(|e| e.1 == partner)
            .map_or(Kept::default(), |e| e.2)
    }

    /// What sphere `id` keeps against wall `w` (zero for a sphere it does not hold).
    pub fn wall(&self, id: u32, w: usize) -> Kept {
        self.wall
            .binary_search_by_key(&(id, w as u32), |e| (e.0, e.1))
            .map_or(Kept::default(), |k| self.wall[k].2)
    }

    /// The same memory for a backend set up on other spheres: `new_id[old]` is the new id of
    /// the sphere that had id `old`, or `None` for one that is gone; `spheres` spheres in all
    /// (those past the renumbered ones are new, and keep nothing). The entries of a gone
    /// sphere, and those naming it as the partner, are dropped.
    pub fn renumber(&self, new_id: &[Option<u32>], spheres: usize) -> Self {
        let to = |old: u32| new_id.get(old as usize).copied().flatten();
        let pairs = self
            .pairs
            .iter()
            .filter_map(|&(i, j, k)| Some((to(i)?, to(j)?, k)));
        let wall = self
            .wall
            .iter()
            .filter_map(|&(i, w, k)| Some((to(i)?, w, k)));
        Self::of_entries(pairs, wall, spheres, self.walls)
    }
}

/// The sorted slot of each input id, from the input id of each slot.
pub fn slots(ids: &[u32]) -> Vec<usize> {
    let mut slot = vec![0; ids.len()];
    for (i, &id) in ids.iter().enumerate() {
        slot[id as usize] = i;
    }
    slot
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(x: f64) -> Kept {
        Kept {
            xi: DVec3::splat(x),
            impact: x,
            rolling: DVec3::ZERO,
        }
    }

    #[test]
    fn renumbering_drops_the_gone_and_moves_the_rest() {
        let m = ContactMemory::collect(
            [
                (2, 0, kept(1.0)),
                (0, 2, kept(2.0)),
                (1, 2, kept(3.0)),
                (0, 1, Kept::default()),
            ],
            3,
            1,
            |i, _| kept(10.0 + i as f64),
        );
        assert_eq!(m.pairs.len(), 3, "the entry that keeps nothing is left out");
        assert_eq!(m.pair(0, 2), kept(2.0));
        assert_eq!(m.pair(2, 0), kept(1.0));
        assert_eq!(m.pair(0, 1), Kept::default());
        // Sphere 1 leaves; 0 stays 0, 2 becomes 1, and a new sphere 2 arrives.
        let r = m.renumber(&[Some(0), None, Some(1)], 3);
        assert_eq!(r.pairs.len(), 2);
        assert_eq!(r.pair(0, 1), kept(2.0));
        assert_eq!(r.pair(1, 0), kept(1.0));
        assert_eq!(r.wall(1, 0), kept(12.0));
        assert_eq!(r.wall(2, 0), Kept::default());
        assert_eq!(r.wall.len(), 2, "the new sphere keeps nothing");
        assert_eq!(r.spheres(), 3);
        assert_eq!(r.pair(2, 0), Kept::default());
    }
}
