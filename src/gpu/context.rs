//! wgpu instance, adapter, device and queue.

use super::GpuError;

/// The GPU a backend runs on.
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
}

impl GpuContext {
    /// Opens the adapter chosen by the environment: `WGPU_BACKEND` (e.g. `vulkan`, `metal`,
    /// `dx12`, `gl`) restricts the backends (default: Vulkan, Metal, DX12), `WGPU_ADAPTER_NAME`
    /// picks the first adapter whose name contains it (case-insensitive); otherwise the
    /// high-performance default.
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`] when no adapter is found, [`GpuError::Device`] when the device
    /// cannot be created.
    pub fn new() -> Result<Self, GpuError> {
        pollster::block_on(Self::new_async())
    }

    async fn new_async() -> Result<Self, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        if std::env::var_os("WGPU_BACKEND").is_none() {
            // Vulkan, Metal, DX12 (and browser WebGPU). The GL backend is for old hardware, and
            // probing it on a machine without a display only prints EGL errors.
            desc.backends = wgpu::Backends::PRIMARY;
        }
        let desc_backends = desc.backends;
        let instance = wgpu::Instance::new(desc);
        let adapter =
            match std::env::var("WGPU_ADAPTER_NAME") {
                // Matched here rather than by wgpu's helper, which panics when nothing matches.
                Ok(wanted) => {
                    let wanted_lc = wanted.to_lowercase();
                    let adapters = instance.enumerate_adapters(desc_backends).await;
                    let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
                    adapters
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&wanted_lc))
                    .ok_or_else(|| {
                        GpuError::NoAdapter(format!(
                            "WGPU_ADAPTER_NAME={wanted:?} matches none of the adapters found: {}",
                            if names.is_empty() { "none".to_string() } else { names.join(", ") }
                        ))
                    })?
                }
                Err(_) => instance
                    .request_adapter(&wgpu::RequestAdapterOptions {
                        power_preference: wgpu::PowerPreference::HighPerformance,
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
        })
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
