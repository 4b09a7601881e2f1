//! Offscreen capture: a colour and a depth texture, copied back row by row (256-byte padded
//! rows, as wgpu requires) to tightly packed 8-bit RGBA; PNG encoding with atomic writes.

use super::impostor::{Target, depth_view, texture_2d};
use crate::output::{OutputError, write_atomic};
use std::path::Path;

/// Colour format of offscreen images (8-bit sRGB, as PNG stores it).
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// An offscreen render target of fixed size.
pub struct Offscreen {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    format: wgpu::TextureFormat,
    colour: wgpu::Texture,
    /// View to draw colour into.
    pub colour_view: wgpu::TextureView,
    /// View to draw depth into ([`super::impostor::DEPTH_FORMAT`]).
    pub depth_view: wgpu::TextureView,
    readback: wgpu::Buffer,
    padded_row: u32,
}

impl Offscreen {
    /// A `width` × `height` target of `format`, which must be a 4-byte RGBA or BGRA format
    /// (default use: [`OFFSCREEN_FORMAT`]; the viewer's screenshots use the window's format).
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        format: wgpu::TextureFormat,
    ) -> Self {
        let colour = texture_2d(
            device,
            "offscreen colour",
            width,
            height,
            format,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let padded_row = (4 * width).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("offscreen read-back"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            width,
            height,
            format,
            colour_view: colour.create_view(&Default::default()),
            colour,
            depth_view: depth_view(device, width, height),
            readback,
            padded_row,
        }
    }

    /// Width / height.
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }

    /// The views to draw into.
    pub fn target(&self) -> Target<'_> {
        Target {
            colour: &self.colour_view,
            depth: &self.depth_view,
            aspect: self.aspect(),
        }
    }

    /// Submits `enc` (which drew into [`Offscreen::colour_view`]) with a copy of the image
    /// appended, waits, and returns the pixels as RGBA, 4 bytes each, rows top to bottom.
    ///
    /// # Panics
    /// When the device is lost while waiting.
    pub fn finish_and_read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mut enc: wgpu::CommandEncoder,
    ) -> Vec<u8> {
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.colour,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([enc.finish()]);
        let slice = self.readback.slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("map offscreen image"));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("GPU device lost while waiting");
        let row = 4 * self.width as usize;
        let mut out = Vec::with_capacity(row * self.height as usize);
        {
            let data = slice.get_mapped_range().expect("mapped range");
            for y in 0..self.height as usize {
                let start = y * self.padded_row as usize;
                out.extend_from_slice(&data[start..start + row]);
            }
        }
        self.readback.unmap();
        if matches!(
            self.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            for px in out.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        out
    }
}

/// Writes `rgba` (`width` × `height` pixels, 4 bytes each, rows top to bottom) as an 8-bit RGBA
/// PNG, atomically (nothing is left at `path` on failure).
///
/// # Errors
/// [`OutputError::Write`] naming `path` and why.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), OutputError> {
    write_atomic(path, |w| {
        let mut enc = png::Encoder::new(w, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(rgba)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    })
}
