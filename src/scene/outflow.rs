//! Outflow regions (`[[outflow]]`): where spheres leave an open system.

use glam::DVec3;

/// Steps between two outflow passes when a table gives no `every`.
pub const DEFAULT_OUTFLOW_EVERY: u64 = 1000;

/// Where an [`Outflow`] takes spheres out.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum OutflowRegion {
    /// An axis-aligned box, m: a sphere whose centre lies inside (`min ≤ x < max` on every
    /// axis) leaves.
    Box {
        /// Lower corner, m.
        min: DVec3,
        /// Upper corner, m (above `min` on every axis).
        max: DVec3,
    },
    /// A half-space, m: a sphere whose centre lies beyond the plane through `point`, on the side
    /// `normal` points to (`(x − point)·normal > 0`), leaves.
    Beyond {
        /// A point on the plane, m.
        point: DVec3,
        /// Unit normal pointing out of the domain (normalised by the builders).
        normal: DVec3,
    },
}

/// An outflow (`[[outflow]]`): every `every` steps, the movable spheres whose centres lie in
/// `region` are removed from the simulation. Their count, mass and energy are booked
/// (`Diagnostics::removed_spheres`, `removed_mass`, `removed_energy`), and the spheres that
/// stay keep their ids. Fixed spheres never leave.
///
/// Build with [`Outflow::of_box`] or [`Outflow::beyond`], then [`Outflow::every`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Outflow {
    /// Where spheres leave.
    pub region: OutflowRegion,
    /// Steps between two passes (≥ 1; default [`DEFAULT_OUTFLOW_EVERY`]). A pass runs after
    /// every step that is a multiple of it.
    pub every: u64,
}

impl Outflow {
    /// Spheres whose centres enter the box `min..max` (m) leave.
    pub fn of_box(min: DVec3, max: DVec3) -> Self {
        Self {
            region: OutflowRegion::Box { min, max },
            every: DEFAULT_OUTFLOW_EVERY,
        }
    }

    /// Spheres whose centres pass the plane through `point` (m) towards `normal` leave;
    /// `normal` is normalised here (a zero or non-finite one is refused by `Scene::check`).
    pub fn beyond(point: DVec3, normal: DVec3) -> Self {
        let scale = normal.abs().max_element();
        let normal = if scale > 0.0 && scale.is_finite() {
            (normal / scale).normalize()
        } else {
            normal
        };
        Self {
            region: OutflowRegion::Beyond { point, normal },
            every: DEFAULT_OUTFLOW_EVERY,
        }
    }

    /// Steps between two passes (≥ 1).
    pub fn every(mut self, steps: u64) -> Self {
        self.every = steps;
        self
    }

    /// True when a sphere centred at `x` (m) leaves through this outflow.
    pub fn takes(&self, x: DVec3) -> bool {
        match self.region {
            OutflowRegion::Box { min, max } => x.cmpge(min).all() && x.cmplt(max).all(),
            OutflowRegion::Beyond { point, normal } => (x - point).dot(normal) > 0.0,
        }
    }

    /// Why the outflow is unusable, if it is: non-finite or empty boxes, zero normals, `every`
    /// of 0.
    pub fn problem(&self) -> Option<String> {
        let finite = |name: &str, v: DVec3| {
            (!v.is_finite()).then(|| format!("{name} must be finite, got {v:?}"))
        };
        if self.every == 0 {
            return Some("every must be at least 1 step, got 0".into());
        }
        match self.region {
            OutflowRegion::Box { min, max } => finite("min", min)
                .or_else(|| finite("max", max))
                .or_else(|| {
                    (!min.cmplt(max).all()).then(|| {
                        format!("min must be below max on every axis, got min {min}, max {max}")
                    })
                }),
            OutflowRegion::Beyond { point, normal } => finite("point", point)
                .or_else(|| finite("normal", normal))
                .or_else(|| (normal == DVec3::ZERO).then(|| "normal has zero length".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_takes_centres_inside_it_and_a_half_space_those_beyond_its_plane() {
        let b = Outflow::of_box(DVec3::ZERO, DVec3::ONE);
        assert!(b.takes(DVec3::splat(0.5)));
        assert!(b.takes(DVec3::ZERO));
        assert!(!b.takes(DVec3::new(0.5, 1.0, 0.5)));
        assert!(!b.takes(DVec3::new(-0.1, 0.5, 0.5)));
        let h = Outflow::beyond(DVec3::new(0.0, -1.0, 0.0), DVec3::new(0.0, -3.0, 0.0));
        assert_eq!(
            h.region,
            OutflowRegion::Beyond {
                point: DVec3::new(0.0, -1.0, 0.0),
                normal: DVec3::NEG_Y
            }
        );
        assert!(h.takes(DVec3::new(5.0, -1.5, 0.0)));
        assert!(!h.takes(DVec3::new(5.0, -1.0, 0.0)));
        assert!(!h.takes(DVec3::new(5.0, 0.5, 0.0)));
    }

    #[test]
    fn unusable_outflows_say_why() {
        let p = |o: Outflow| o.problem().unwrap_or_default();
        assert!(p(Outflow::of_box(DVec3::ONE, DVec3::ZERO)).contains("min must be below max"));
        assert!(p(Outflow::of_box(DVec3::NAN, DVec3::ONE)).contains("min must be finite"));
        assert!(p(Outflow::beyond(DVec3::ZERO, DVec3::ZERO)).contains("zero length"));
        assert!(p(Outflow::beyond(DVec3::ZERO, DVec3::Y).every(0)).contains("every"));
        assert_eq!(Outflow::beyond(DVec3::ZERO, DVec3::Y).problem(), None);
    }
}
