//! Spheres taken out and put in inside a backend's own binning: an open system's pass without
//! setting the backend up again (docs/open-systems.md, "How a pass runs").
//!
//! Both backends do the same, step for step, so that they stay twins:
//! 1. each leaving sphere gets the radius [`LEAVING_RADIUS`], which bins it in the large
//!    spheres' bucket, the last of the table and empty in a scene without large spheres;
//! 2. the new spheres (placed on the host) are appended after those present, into the room the
//!    backend keeps;
//! 3. every sphere's id is renumbered by [`new_ids`] (the spheres that stay keep their order,
//!    the new ones follow), and so are the partner ids of the list's entries, by which a build
//!    carries each contact's history;
//! 4. set-up's recipe runs on the state as it is: the speed, the binning, whose stable counting
//!    sort puts the leaving spheres after all others, and the list's build, which carries the
//!    history of the contacts that remain (a new sphere's old row is empty). The backend then
//!    keeps the first `n − removed + added` spheres, and set-up's force evaluation gives the
//!    accelerations. That evaluation starts no history (set-up's rule), so the history carried
//!    is put back after it.

/// The id a leaving sphere maps to in [`new_ids`]: no sphere's, and no partner's.
pub const GONE: u32 = u32::MAX;

/// The radius (m) that bins a leaving sphere in the large spheres' bucket: above any small
/// sphere's radius in f32 and f64.
pub const LEAVING_RADIUS: f32 = f32::MAX;

/// Each sphere's id after the spheres with `leaving[id]` are taken out: its rank among the
/// spheres that stay (so ids stay `0..n'`, in the same order), or [`GONE`].
pub fn new_ids(leaving: &[bool]) -> Vec<u32> {
    let mut next = 0;
    leaving
        .iter()
        .map(|&gone| {
            if gone {
                GONE
            } else {
                next += 1;
                next - 1
            }
        })
        .collect()
}

/// `values` by old id without the entries of the leaving spheres (the inputs kept by id, such
/// as the radii as given).
pub fn keep_staying<T: Copy>(values: &mut Vec<T>, leaving: &[bool]) {
    let mut k = 0;
    values.retain(|_| {
        k += 1;
        !leaving[k - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spheres_that_stay_are_numbered_in_order() {
        let leaving = [false, true, false, true, true, false];
        assert_eq!(new_ids(&leaving), vec![0, GONE, 1, GONE, GONE, 2]);
        let mut v = vec![10, 11, 12, 13, 14, 15];
        keep_staying(&mut v, &leaving);
        assert_eq!(v, vec![10, 12, 15]);
    }
}
