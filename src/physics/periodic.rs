//! Periodic boundaries (docs/open-systems.md): the minimum-image convention and the wrap of a
//! position into the box, with the count of box lengths it crossed (M. P. Allen and
//! D. J. Tildesley, *Computer Simulation of Liquids*, 2nd ed., OUP 2017, §1.6.2 and §5.2).
//!
//! A non-periodic axis has the half-length of the largest finite float here
//! ([`PeriodicBox::open`]; WGSL may assume no infinities), so that every comparison below is
//! false on it and a non-periodic scene computes exactly what it computed
//! before periodic boundaries existed. The WGSL copies are in `shaders/common.wgsl`, under the
//! same names.

use crate::Real;

/// The periodic box in the backend's precision `R`: its lower corner `min` (m), its edges
/// `len` (m) and half-edges `half` (m, the largest finite `R` on an axis that is not periodic).
#[derive(Clone, Copy, Debug)]
pub struct PeriodicBox<R: Real> {
    /// Lower corner, m (0 on an axis that is not periodic).
    pub min: [R; 3],
    /// Edge lengths, m (0 on an axis that is not periodic).
    pub len: [R; 3],
    /// Half the edge lengths, m (the largest finite `R` on an axis that is not periodic).
    pub half: [R; 3],
    /// Whether any axis is periodic: without, [`minimum_image`] returns at once, so that the
    /// pair loops of a closed scene pay one predictable branch.
    pub on: bool,
}

impl<R: Real> PeriodicBox<R> {
    /// No periodic axis.
    pub fn open() -> Self {
        Self {
            min: [R::zero(); 3],
            len: [R::zero(); 3],
            half: [R::max_value(); 3],
            on: false,
        }
    }

    /// The box `[min, max)` (m, f64) on the axes where `axes` is true, rounded to `R` once per
    /// value; `half` is rounded from the f64 half-length.
    pub fn of(axes: [bool; 3], min: [f64; 3], max: [f64; 3]) -> Self {
        let mut b = Self::open();
        for a in 0..3 {
            if axes[a] {
                b.min[a] = R::of(min[a]);
                b.len[a] = R::of(max[a] - min[a]);
                b.half[a] = R::of(0.5 * (max[a] - min[a]));
                b.on = true;
            }
        }
        b
    }

    /// Whether any axis is periodic.
    pub fn any(&self) -> bool {
        self.on
    }

    /// Whether axis `a` is periodic.
    #[inline(always)]
    pub fn is_periodic(&self, a: usize) -> bool {
        self.len[a] > R::zero()
    }
}

/// The minimum image of a separation `d` (m): on each periodic axis, `d − L` when `d > L/2`,
/// `d + L` when `d < −L/2` (Allen and Tildesley §1.6.2). Positions lie within one box length of
/// each other (they are wrapped every step), so one correction suffices; comparisons rather
/// than `round(d / L)` keep it exact and the same on every backend.
#[inline(always)]
pub fn minimum_image<R: Real>(d: R::V3, pbox: &PeriodicBox<R>) -> R::V3 {
    if !pbox.on {
        return d;
    }
    let mut c = R::comps(d);
    for (c, (&half, &len)) in c.iter_mut().zip(pbox.half.iter().zip(&pbox.len)) {
        if *c > half {
            *c -= len;
        } else if *c < -half {
            *c += len;
        }
    }
    R::vec(c[0], c[1], c[2])
}

/// Wraps position `x` (m) into the box on its periodic axes: `x − L` at or past the upper face,
/// `x + L` below the lower one, and adds the crossing (+1 or −1) to `image`, the count of box
/// lengths the sphere's unwrapped position lies away (`x_unwrapped = x + image × L`). A
/// position moves less than a box length in a step, so one correction suffices.
#[inline(always)]
pub fn wrap_position<R: Real>(x: R::V3, image: &mut [i32; 3], pbox: &PeriodicBox<R>) -> R::V3 {
    let mut c = R::comps(x);
    for a in 0..3 {
        if pbox.len[a] > R::zero() {
            if c[a] >= pbox.min[a] + pbox.len[a] {
                c[a] -= pbox.len[a];
                image[a] += 1;
            } else if c[a] < pbox.min[a] {
                c[a] += pbox.len[a];
                image[a] -= 1;
            }
        }
    }
    R::vec(c[0], c[1], c[2])
}

/// Cells along a periodic axis of length `len` (m) for the grid's cell edge `h` (m): `⌊L/h⌋`,
/// at least 1, so that the cells (of edge `L / n ≥ h`) tile the axis exactly and a sphere's
/// neighbour cells across the face are the first and last. Fewer than three cells make the
/// wrapped neighbour cells repeat; the candidate walk then visits each bucket once
/// (`cpu::collide::candidates::for_each_neighbour_bucket`).
#[inline(always)]
pub fn periodic_cells<R: Real>(len: R, h: R) -> i32 {
    (len / h).floor_i32().max(1)
}

/// The offset `c` of a cell coordinate wrapped onto `[0, n)` (`n` cells along a periodic
/// axis; `n = 0`: not periodic, `c` unchanged). `c` lies within one box of the range.
#[inline(always)]
pub fn wrap_cell(c: i32, n: i32) -> i32 {
    if n == 0 {
        c
    } else if c < 0 {
        c + n
    } else if c >= n {
        c - n
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn the_minimum_image_is_the_nearest_copy_and_leaves_open_axes_alone() {
        let b = PeriodicBox::<f32>::of([true, false, true], [0.0; 3], [1.0, 1.0, 2.0]);
        let d = minimum_image::<f32>(Vec3::new(0.9, 0.9, -1.5), &b);
        assert!(
            (d - Vec3::new(-0.1, 0.9, 0.5)).abs().max_element() < 1e-6,
            "{d}"
        );
        let open = PeriodicBox::<f32>::open();
        let far = Vec3::new(1e30, -1e30, 3.0);
        assert_eq!(minimum_image::<f32>(far, &open), far);
    }

    #[test]
    fn a_wrapped_position_counts_its_crossings() {
        let b = PeriodicBox::<f64>::of([true, true, false], [-1.0; 3], [1.0; 3]);
        let mut image = [0; 3];
        let x = wrap_position::<f64>(glam::DVec3::new(1.25, -1.5, 7.0), &mut image, &b);
        assert_eq!(image, [1, -1, 0]);
        assert!((x - glam::DVec3::new(-0.75, 0.5, 7.0)).length() < 1e-12);
        // Exactly on the upper face belongs to the lower one.
        let x = wrap_position::<f64>(glam::DVec3::new(1.0, 0.0, 0.0), &mut image, &b);
        assert_eq!((x.x, image[0]), (-1.0, 2));
    }

    #[test]
    fn cells_tile_the_axis_and_wrap() {
        assert_eq!(periodic_cells::<f32>(1.0, 0.3), 3);
        assert_eq!(periodic_cells::<f32>(1.0, 2.0), 1);
        assert_eq!(
            (wrap_cell(-1, 5), wrap_cell(5, 5), wrap_cell(2, 5)),
            (4, 0, 2)
        );
        assert_eq!(wrap_cell(-7, 0), -7);
    }
}
