//! The GPU backend's options: plain data, kept in a build without the `gpu` feature so that
//! [`Simulation::with_gpu_options`](crate::Simulation::with_gpu_options) and
//! [`Simulation::resume`](crate::Simulation::resume) take them in every build.

/// Options of the GPU backend's set-up (`GpuBackend::new`).
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuOptions {
    /// Lower the work-groups per dispatch dimension below the adapter's limit (tests use this to
    /// exercise 2-D dispatches on small scenes).
    pub max_workgroups_per_dim: Option<u32>,
    /// Lower the largest buffer binding below the adapter's limit, bytes (tests use this to
    /// exercise the too-large error).
    pub max_binding_size: Option<u64>,
    /// The neighbour list's capacity at set-up, entries, in place of six a sphere (or twice
    /// set-up's build, when that fills more than half of it); kept as given unless set-up's
    /// build needs more (tests use this to exercise the list's growth).
    pub list_capacity: Option<u32>,
    /// Compute the drift `x + v dt` without rounding the product, as a fused multiply–add does
    /// (default `false`; `gpu::integrate::FUSED_DRIFT`). A hardware driver may contract
    /// `a*b+c` into one fma (WGSL permits it); a software adapter such as lavapipe does not.
    /// Tests use this to emulate a hardware adapter's rounding on lavapipe: the hardware
    /// contract must accept it and the bit-for-bit contract must reject it.
    pub fused_drift: bool,
    /// Walk items (cells of its box, or small spheres) one lane of a large sphere's list build
    /// takes at most, in place of `gpu::neighbours::LARGE_RUN` (tests lower it to spread a
    /// large sphere over several work-groups at small sizes).
    pub large_run: Option<u32>,
    /// Spheres the buffers hold room for, at least the scene's (default: the scene's): an
    /// open system's pass that inserts spheres writes them into that room instead of setting
    /// the backend up again (`crate::removal`). The dispatches cover the spheres present. Not with
    /// the gravity tree or large spheres, whose buffers keep the scene's count.
    pub sphere_capacity: Option<usize>,
}
