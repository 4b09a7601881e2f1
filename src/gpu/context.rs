//! wgpu instance, adapter, device and queue.

use super::GpuError;

/// Held while an instance, adapter and device are created: NVIDIA's Linux Vulkan driver races
/// when several threads create instances at once and can crash the process (gfx-rs/wgpu#5930).
static CREATION: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn creation_lock() -> std::sync::MutexGuard<'static, ()> {
    CREATION.lock().unwrap_or_else(|e| e.into_inner())
}

/// The process's one wgpu instance, made by the first [`GpuContext::new`] (its environment
/// variables are read then). A Vulkan instance loads and enumerates every driver; making one per
/// backend, dozens in a test process, is where an H200 once answered "vulkan drivers/libraries
/// could not be loaded" midway through a test executable (benches/RESULTS.md, 2026-11-27).
/// Each backend still gets its own device.
static INSTANCE: std::sync::OnceLock<wgpu::Instance> = std::sync::OnceLock::new();

/// The GPU a backend runs on. Clones share the device (the viewer simulates and draws on one).
#[derive(Clone)]
pub struct GpuContext {
    /// Logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// What the adapter says of itself.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was created with: the adapter's own, not WebGPU's defaults
    /// (128 MiB per storage binding, 65 535 work-groups per dimension).
    pub limits: wgpu::Limits,
    /// Whether timestamp queries are available.
    pub timestamps: bool,
    /// The adapter the device was opened on (the viewer asks it for surface capabilities).
    pub adapter: wgpu::Adapter,
    /// The step's compiled stages by `fused_drift`, shared by every backend on this device: an
    /// open system's pass sets a backend up again and reuses them rather than compiling again.
    pub(crate) stages: std::sync::Arc<std::sync::Mutex<Vec<(bool, super::stages::Stages)>>>,
}

impl GpuContext {
    /// Opens the adapter chosen by the environment: `WGPU_BACKEND` (e.g. `vulkan`, `metal`,
    /// `dx12`, `gl`) restricts the backends (default: Vulkan, Metal, DX12), `WGPU_ADAPTER_NAME`
    /// picks the first adapter whose name contains it (case-insensitive); otherwise the
    /// high-performance default. `WGPU_BACKEND` is read once, when the process's instance is
    /// made; every call opens a new device on it.
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`] when no adapter is found, [`GpuError::Device`] when the device
    /// cannot be created.
    pub fn new() -> Result<Self, GpuError> {
        let _one_at_a_time = creation_lock();
        pollster::block_on(Self::new_async())
    }

    async fn new_async() -> Result<Self, GpuError> {
        let instance = INSTANCE.get_or_init(|| wgpu::Instance::new(Self::instance_descriptor()));
        Self::with_instance_async(instance, None).await
    }

    /// The instance settings [`GpuContext::new`] uses: backends from `WGPU_BACKEND` (default:
    /// Vulkan, Metal, DX12), no display handle.
    pub fn instance_descriptor() -> wgpu::InstanceDescriptor {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        if std::env::var_os("WGPU_BACKEND").is_none() {
            // Vulkan, Metal, DX12 (and browser WebGPU). The GL backend is for old hardware, and
            // probing it on a machine without a display only prints EGL errors.
            desc.backends = wgpu::Backends::PRIMARY;
        }
        desc
    }

    /// As [`GpuContext::new`] on an existing instance, choosing an adapter that can present to
    /// `compatible_surface` when one is given (the viewer draws on the device that simulates).
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    pub fn with_instance(
        instance: &wgpu::Instance,
        compatible_surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, GpuError> {
        let _one_at_a_time = creation_lock();
        pollster::block_on(Self::with_instance_async(instance, compatible_surface))
    }

    async fn with_instance_async(
        instance: &wgpu::Instance,
        compatible_surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, GpuError> {
        let adapter = match std::env::var("WGPU_ADAPTER_NAME") {
            // Matched here rather than by wgpu's helper, which panics when nothing matches.
            Ok(wanted) => {
                let wanted_lc = wanted.to_lowercase();
                let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
                let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
                adapters
                    .into_iter()
                    .filter(|a| compatible_surface.is_none_or(|s| a.is_surface_supported(s)))
                    .find(|a| a.get_info().name.to_lowercase().contains(&wanted_lc))
                    .ok_or_else(|| {
                        GpuError::NoAdapter(format!(
                            "WGPU_ADAPTER_NAME={wanted:?} matches none of the adapters found{}: {}",
                            if compatible_surface.is_some() {
                                " that can present to the window"
                            } else {
                                ""
                            },
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        ))
                    })?
            }
            Err(_) => instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    compatible_surface,
                    ..Default::default()
                })
                .await
                .map_err(|e| GpuError::NoAdapter(format!("{e}")))?,
        };
        let info = adapter.get_info();
        let limits = adapter.limits();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut required_features = wgpu::Features::empty();
        if timestamps {
            required_features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("spheresim"),
                required_features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::Device(format!("{e}")))?;
        Ok(Self {
            device,
            queue,
            info,
            limits,
            timestamps,
            adapter,
            stages: Default::default(),
        })
    }

    /// The step's stages for `fused_drift` ([`super::GpuOptions::fused_drift`]): compiled on
    /// the first call, then clones of the same modules and pipelines.
    pub(crate) fn stages(&self, fused_drift: bool) -> super::stages::Stages {
        let mut cache = self.stages.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = cache.iter().find(|(f, _)| *f == fused_drift) {
            return s.clone();
        }
        let s = super::stages::Stages::new(&self.device, fused_drift);
        cache.push((fused_drift, s.clone()));
        s
    }

    /// Whether the adapter is a software rasteriser (Mesa's lavapipe, WARP, SwiftShader: device
    /// type `Cpu`).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// "name (backend, device type)", e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)`.
    pub fn adapter_name(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}
