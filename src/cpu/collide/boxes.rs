//! A large sphere's cell box ([`large_box`]), fixed at binning time: the cells its candidates
//! come from. Apart from the candidate walk because it reads the neighbour list's skin
//! (`neighbours::sphere_skin`), and `neighbours` imports the walk.

use crate::Real;
use crate::cpu::cell_keys::{GridAxes, cell_of};
use crate::cpu::neighbours::sphere_skin;

use super::bodies::{CellBox, CollideParams};

/// The cells a large sphere can reach this step: its radius plus the largest small radius plus
/// both speeds times dt, plus half the neighbour-list skin of each (the large sphere's from
/// `neighbours::sphere_skin`), around its centre at binning time.
#[inline(always)]
pub fn large_box<R: Real>(x: R::V3, v: R::V3, r: R, params: &CollideParams<R>) -> CellBox {
    let skins = params.skin + sphere_skin(params.skin, r, params.small_radius_max);
    let reach = r
        + params.small_radius_max
        + (R::norm2(v).sqrt() + params.small_speed_max) * params.dt
        + skins * R::of(0.5);
    let reach3 = R::vec(reach, reach, reach);
    // Unwrapped cells: a periodic scene has no large sphere (`Scene::check`).
    let open = GridAxes::open();
    (
        cell_of::<R>(x - reach3, params.inv_cell_edge, &open),
        cell_of::<R>(x + reach3, params.inv_cell_edge, &open),
    )
}
