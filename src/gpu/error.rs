//! Errors of the GPU backend: set-up (no adapter, no device, a scene too large for the
//! adapter) and stepping (a non-finite state, a neighbour list that overflowed).

/// Errors of the GPU backend.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter could be opened.
    #[error(
        "no GPU adapter found ({0}); on a machine without a GPU install Mesa's lavapipe \
         (Debian: mesa-vulkan-drivers) or use {cpu}",
        cpu = crate::naming::Setting::BackendCpu
    )]
    NoAdapter(String),
    /// The device could not be created.
    #[error("cannot create the GPU device: {0}")]
    Device(String),
    /// A buffer would exceed one of the adapter's limits.
    #[error(
        "scene too large for adapter {adapter}: the {buffer} buffer needs {need} bytes for {spheres} \
         spheres, over the adapter's {limit_name} of {limit} bytes; at most {fits} spheres fit"
    )]
    TooLarge {
        /// Adapter name.
        adapter: String,
        /// Which buffer.
        buffer: &'static str,
        /// Its size, bytes.
        need: u64,
        /// Spheres in the scene.
        spheres: usize,
        /// Limit name, e.g. `max_storage_buffer_binding_size`.
        limit_name: &'static str,
        /// Limit, bytes.
        limit: u64,
        /// Spheres that would fit under it.
        fits: u64,
    },
    /// The device ran out of memory while the scene's buffers were allocated.
    #[error(
        "scene too large for adapter {adapter}: allocating about {need} bytes of buffers for \
         {spheres} spheres ran out of device memory ({detail})"
    )]
    OutOfMemory {
        /// Adapter name.
        adapter: String,
        /// Estimated bytes ([`super::buffers::memory_estimate`]).
        need: u64,
        /// Spheres in the scene.
        spheres: usize,
        /// wgpu's message.
        detail: String,
    },
    /// A neighbour-list build needed more entries than the list holds: the steps since are
    /// invalid.
    #[error(
        "the GPU neighbour list overflowed by step {step}: a rebuild needed {needed} entries, \
         over the {capacity} it holds (it grows between submissions when three quarters full; \
         the scene compacted faster than that); rerun from a checkpoint before that step, or \
         with {}",
        crate::naming::Setting::BackendCpu
    )]
    ListOverflow {
        /// Steps done when it was noticed (the end of the submission).
        step: u64,
        /// Entries the build needed.
        needed: u32,
        /// Entries the list holds.
        capacity: u32,
    },
    /// A movable sphere's inverse mass or inverse moment of inertia is not zero in f64 but
    /// below f32's smallest normal number (1.18e-38): a hardware GPU may flush such a subnormal
    /// to zero (NVIDIA's Vulkan driver does), and an inverse mass of zero is a fixed sphere.
    #[error(
        "sphere {sphere}: its {quantity} {value:.3e} is below f32's smallest normal number \
         ({min:.3e}); a GPU may flush it to zero and hold the sphere fixed; rescale the units \
         (a mass above {max_mass:.2e} kg is too heavy for the GPU's f32) or use {cpu}",
        min = f32::MIN_POSITIVE,
        max_mass = 1.0 / f32::MIN_POSITIVE as f64,
        cpu = crate::naming::Setting::BackendCpu
    )]
    Subnormal {
        /// Sphere id (input order).
        sphere: u32,
        /// "inverse mass (1/kg)" or "inverse moment of inertia (1/(kg m²))".
        quantity: &'static str,
        /// Its value in f64.
        value: f64,
    },
    /// A submission reported no completed step (its first step always completes): the device
    /// stopped running the work it was given.
    #[error(
        "the GPU completed none of the {recorded} steps submitted after step {step}: the device \
         stopped running its work; rerun with {}",
        crate::naming::Setting::BackendCpu
    )]
    Stalled {
        /// Steps done before the submission.
        step: u64,
        /// Steps the submission recorded.
        recorded: u64,
    },
}

/// How a GPU step ended early.
#[derive(Debug)]
pub enum StepError {
    /// A non-finite state: `(step, sphere id)` of the first.
    NonFinite(u64, u32),
    /// The device could not go on ([`GpuError::ListOverflow`]).
    Gpu(GpuError),
}
