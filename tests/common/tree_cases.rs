//! Point sets for the gravity tree's tests (CPU stages and their GPU twins).

use glam::DVec3;

/// A small deterministic generator (64-bit LCG, Knuth's constants), uniform in [0, 1).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Point sets that stress the tree: uniform, clustered (two clumps 10⁴ apart), all at one
/// point, a line, and the smallest sizes.
pub fn cases() -> Vec<(&'static str, Vec<DVec3>)> {
    let mut g = Lcg(5);
    let mut uniform = Vec::new();
    for _ in 0..700 {
        uniform.push(DVec3::new(g.next(), g.next(), g.next()));
    }
    let mut clumps = Vec::new();
    for k in 0..500 {
        let c = if k % 2 == 0 { 0.0 } else { 1e4 };
        clumps.push(DVec3::new(
            c + 1e-3 * g.next(),
            1e-3 * g.next(),
            g.next() * 1e-3,
        ));
    }
    let same = vec![DVec3::new(1.0, 2.0, 3.0); 37];
    let line: Vec<DVec3> = (0..65).map(|i| DVec3::new(i as f64, 0.0, 0.0)).collect();
    let mut dups = uniform[..50].to_vec();
    dups.extend_from_slice(&uniform[..50]);
    vec![
        ("uniform", uniform),
        ("clumps", clumps),
        ("same point", same),
        ("line", line),
        ("duplicates", dups),
        ("one", vec![DVec3::new(0.5, 0.5, 0.5)]),
        ("two", vec![DVec3::ZERO, DVec3::new(1.0, 0.0, 0.0)]),
        (
            "three",
            vec![
                DVec3::ZERO,
                DVec3::new(1.0, 0.0, 0.0),
                DVec3::new(0.0, 2.0, 1.0),
            ],
        ),
    ]
}
