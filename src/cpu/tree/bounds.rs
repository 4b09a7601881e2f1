//! Stage `tree_bounds`: the axis-aligned box of all bodies, by a reduction.

use crate::Real;

/// Smallest and largest coordinate over `position` (m), as `(lo, hi)`; `(0, 0)` when empty.
/// A min/max reduction, so the result does not depend on the order of the bodies.
pub fn tree_bounds<R: Real>(position: &[R::V3]) -> (R::V3, R::V3) {
    let Some(&first) = position.first() else {
        return (R::zero3(), R::zero3());
    };
    let (mut lo, mut hi) = (R::comps(first), R::comps(first));
    for &p in position {
        for (k, x) in R::comps(p).into_iter().enumerate() {
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
    }
    (R::vec(lo[0], lo[1], lo[2]), R::vec(hi[0], hi[1], hi[2]))
}
