//! The angle of repose of a heap, from its surface profile (`spheresim repose`,
//! docs/physics.md §2.7).
//!
//! The heap stands on a horizontal floor with z up. Its axis is the centroid (x, y) of the
//! spheres above the lowest layer; the radial distance ρ from it is cut into bins one mean
//! diameter wide, and each bin's surface height is its highest sphere top `z + r` above the floor
//! (the lowest sphere bottom). The flank is the part of the profile between 20 % and 80 % of the
//! heap's height above the profile's lowest bin (the carpet or the toe), which leaves out the
//! rounded apex and the toe; a least-squares line `h = a + b ρ` through it gives the angle
//! `atan(−b)`. This is the lifted-cylinder measurement of, for example, Itasca PFC's repose-angle
//! example; it reads the heap as axisymmetric.

use crate::Snapshot;

/// Share of the heap's height where the fitted flank starts and ends.
pub const FLANK: (f64, f64) = (0.2, 0.8);

/// A heap's angle of repose and what it was fitted to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Repose {
    /// Angle of repose, degrees.
    pub angle_deg: f64,
    /// Height of the heap's top above the profile's lowest bin, m.
    pub height: f64,
    /// Radial range of the fitted flank, m (from the axis).
    pub flank: (f64, f64),
    /// Bins in the fitted flank.
    pub bins: usize,
    /// Bin width (one mean diameter), m.
    pub bin: f64,
    /// The heap's axis, (x, y) in m.
    pub axis: (f64, f64),
}

/// The angle of repose of the heap in `snap` (module docs).
///
/// # Errors
/// A message when the state is empty or has a non-finite position or radius, or when the
/// profile has fewer than three bins on its flank or does not fall away from the axis (no
/// heap, or one too small or flat to fit).
pub fn angle_of_repose(snap: &Snapshot) -> Result<Repose, String> {
    let n = snap.len();
    if n == 0 {
        return Err("the state has no spheres".into());
    }
    if let Some(i) = (0..n).find(|&i| !(snap.position[i].is_finite() && snap.radius[i].is_finite()))
    {
        return Err(format!("sphere {i} has a non-finite position or radius"));
    }
    let floor = (0..n)
        .map(|i| snap.position[i].z - snap.radius[i])
        .fold(f64::INFINITY, f64::min);
    let r_mean = snap.radius.iter().sum::<f64>() / n as f64;
    let bin = 2.0 * r_mean;
    // The heap: spheres whose bottom is above the lowest layer.
    let heap: Vec<usize> = (0..n)
        .filter(|&i| snap.position[i].z - snap.radius[i] > floor + r_mean)
        .collect();
    if heap.is_empty() {
        return Err("every sphere lies in the lowest layer: there is no heap".into());
    }
    let k = heap.len() as f64;
    let cx = heap.iter().map(|&i| snap.position[i].x).sum::<f64>() / k;
    let cy = heap.iter().map(|&i| snap.position[i].y).sum::<f64>() / k;
    let rho = |i: usize| (snap.position[i].x - cx).hypot(snap.position[i].y - cy);
    let reach = heap.iter().map(|&i| rho(i)).fold(0.0, f64::max) + bin;
    let bins = (reach / bin).ceil() as usize + 1;
    let mut top = vec![f64::NEG_INFINITY; bins];
    for i in 0..n {
        let b = (rho(i) / bin) as usize;
        if b < bins {
            top[b] = top[b].max(snap.position[i].z + snap.radius[i] - floor);
        }
    }
    let profile: Vec<(f64, f64)> = top
        .iter()
        .enumerate()
        .filter(|(_, h)| h.is_finite())
        .map(|(b, &h)| ((b as f64 + 0.5) * bin, h))
        .collect();
    let low = profile.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let high = profile
        .iter()
        .map(|p| p.1)
        .fold(f64::NEG_INFINITY, f64::max);
    let height = high - low;
    let (lo, hi) = (low + FLANK.0 * height, low + FLANK.1 * height);
    let flank: Vec<(f64, f64)> = profile
        .iter()
        .copied()
        .filter(|&(_, h)| h >= lo && h <= hi)
        .collect();
    if flank.len() < 3 {
        return Err(format!(
            "the heap's flank spans {} radial bins of {bin:.3e} m, too few to fit a slope (the \
             heap is {height:.3e} m high)",
            flank.len()
        ));
    }
    let m = flank.len() as f64;
    let (sx, sy) = flank.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / m, sy / m);
    let (sxy, sxx) = flank.iter().fold((0.0, 0.0), |a, p| {
        (a.0 + (p.0 - mx) * (p.1 - my), a.1 + (p.0 - mx) * (p.0 - mx))
    });
    let slope = sxy / sxx;
    if slope.is_nan() || slope >= 0.0 {
        return Err(format!(
            "the surface does not fall away from the heap's axis (fitted slope {slope:.3})"
        ));
    }
    let from = flank.iter().map(|p| p.0).fold(f64::INFINITY, f64::min) - 0.5 * bin;
    let to = flank.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max) + 0.5 * bin;
    Ok(Repose {
        angle_deg: (-slope).atan().to_degrees(),
        height,
        flank: (from, to),
        bins: flank.len(),
        bin,
        axis: (cx, cy),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    /// A cone of spheres of slope `tan a` on a carpet: the fit returns a.
    fn cone(angle_deg: f64) -> Snapshot {
        let r = 0.005;
        let slope = angle_deg.to_radians().tan();
        let (mut position, mut radius) = (Vec::new(), Vec::new());
        let h0 = 0.2;
        let base = h0 / slope;
        let steps = (1.5 * base / r) as i64;
        for i in -steps..=steps {
            for j in -steps..=steps {
                let (x, y) = (i as f64 * r, j as f64 * r);
                let rho = x.hypot(y);
                // Carpet everywhere, the cone's surface sphere where it stands.
                position.push(DVec3::new(x + 0.3, y - 0.1, r));
                let h = h0 - slope * rho;
                if h > 2.0 * r {
                    position.push(DVec3::new(x + 0.3, y - 0.1, h - r));
                }
            }
        }
        radius.resize(position.len(), r);
        let n = position.len();
        Snapshot {
            step: 0,
            time: 0.0,
            velocity: vec![DVec3::ZERO; n],
            mass: vec![1.0; n],
            angular_velocity: Vec::new(),
            orientation: Vec::<DQuat>::new(),
            image: Vec::new(),
            id: Vec::new(),
            position,
            radius,
        }
    }

    #[test]
    fn a_cone_gives_its_angle() {
        for a in [15.0, 30.0, 45.0] {
            let got = angle_of_repose(&cone(a)).unwrap();
            assert!((got.angle_deg - a).abs() < 1.0, "{a}: {got:?}");
            assert!((got.axis.0 - 0.3).abs() < 1e-3 && (got.axis.1 + 0.1).abs() < 1e-3);
        }
    }

    #[test]
    fn no_heap_is_an_error() {
        let mut flat = cone(30.0);
        flat.position.retain(|p| p.z < 0.006);
        flat.radius.truncate(flat.position.len());
        let err = angle_of_repose(&flat).unwrap_err();
        assert!(err.contains("no heap"), "{err}");
        let mut bad = cone(30.0);
        bad.position[3].x = f64::NAN;
        assert!(angle_of_repose(&bad).unwrap_err().contains("sphere 3"));
    }
}
