//! The viewer's heads-up lines: frame and step rates ([`RateMeter`]), and an overlay that draws
//! a few lines of text in the window's top-left corner ([`HudOverlay`]) with a built-in 5 × 8
//! pixel font ([`rasterize`]), so no font library or system font is needed. The same line goes
//! into the window title, which some window systems do not show (Wayland without server-side
//! decorations, tiling window managers, full screen).

use std::time::{Duration, Instant};

/// Frames per second and steps per second over the last measuring window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Frames presented per second of wall time.
    pub fps: f64,
    /// Simulation steps per second of wall time.
    pub steps_per_second: f64,
}

/// Counts frames and steps and turns them into [`Rates`] once per `interval` of wall time.
#[derive(Clone, Copy, Debug)]
pub struct RateMeter {
    interval: Duration,
    since: Instant,
    frames: u64,
    steps: u64,
    latest: Option<Rates>,
}

impl RateMeter {
    /// A meter whose first window starts at `now`.
    pub fn new(now: Instant, interval: Duration) -> Self {
        Self {
            interval,
            since: now,
            frames: 0,
            steps: 0,
            latest: None,
        }
    }

    /// Counts one frame that took `steps` steps, at `now`. When `interval` has passed since the
    /// window started, returns the window's rates (also kept as [`RateMeter::latest`]) and
    /// starts the next window.
    pub fn frame(&mut self, now: Instant, steps: u64) -> Option<Rates> {
        self.frames += 1;
        self.steps += steps;
        let secs = now.saturating_duration_since(self.since);
        if secs < self.interval || secs.is_zero() {
            return None;
        }
        let s = secs.as_secs_f64();
        let r = Rates {
            fps: self.frames as f64 / s,
            steps_per_second: self.steps as f64 / s,
        };
        self.since = now;
        self.frames = 0;
        self.steps = 0;
        self.latest = Some(r);
        Some(r)
    }

    /// The rates of the last complete window (`None` before the first).
    pub fn latest(&self) -> Option<Rates> {
        self.latest
    }
}

/// Glyph width, pixels.
pub const GLYPH_W: u32 = 5;
/// Glyph height including one row of descender, pixels.
pub const GLYPH_H: u32 = 8;
/// Horizontal advance per character, pixels.
pub const ADVANCE: u32 = GLYPH_W + 1;
/// Line spacing, pixels.
pub const LINE: u32 = GLYPH_H + 2;
/// Margin inside the overlay's backdrop, pixels.
pub const PAD: u32 = 3;

/// Text colour of the overlay, RGBA.
pub const TEXT_RGBA: [u8; 4] = [235, 235, 235, 255];
/// Backdrop colour of the overlay, RGBA (translucent black).
pub const BACKDROP_RGBA: [u8; 4] = [0, 0, 0, 150];

/// The font: rows top to bottom, `#` lit; the baseline is row 7 of 8, the last row holds
/// descenders. Characters not listed draw as `?` (a few stand-ins are mapped first, see
/// [`glyph`]).
const FONT: &[(char, &str)] = &[
    (' ', "..... ..... ..... ..... ..... ..... ..... ....."),
    ('0', ".###. #...# #..## #.#.# ##..# #...# .###. ....."),
    ('1', "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###. ....."),
    ('2', ".###. #...# ....# ...#. ..#.. .#... ##### ....."),
    ('3', "##### ...#. ..#.. ...#. ....# #...# .###. ....."),
    ('4', "...#. ..##. .#.#. #..#. ##### ...#. ...#. ....."),
    ('5', "##### #.... ####. ....# ....# #...# .###. ....."),
    ('6', "..##. .#... #.... ####. #...# #...# .###. ....."),
    ('7', "##### ....# ...#. ..#.. .#... .#... .#... ....."),
    ('8', ".###. #...# #...# .###. #...# #...# .###. ....."),
    ('9', ".###. #...# #...# .#### ....# ...#. .##.. ....."),
    ('A', ".###. #...# #...# ##### #...# #...# #...# ....."),
    ('B', "####. #...# #...# ####. #...# #...# ####. ....."),
    ('C', ".###. #...# #.... #.... #.... #...# .###. ....."),
    ('D', "###.. #..#. #...# #...# #...# #..#. ###.. ....."),
    ('E', "##### #.... #.... ####. #.... #.... ##### ....."),
    ('F', "##### #.... #.... ####. #.... #.... #.... ....."),
    ('G', ".###. #...# #.... #.### #...# #...# .#### ....."),
    ('H', "#...# #...# #...# ##### #...# #...# #...# ....."),
    ('I', ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###. ....."),
    ('J', "..### ...#. ...#. ...#. ...#. #..#. .##.. ....."),
    ('K', "#...# #..#. #.#.. ##... #.#.. #..#. #...# ....."),
    ('L', "#.... #.... #.... #.... #.... #.... ##### ....."),
    ('M', "#...# ##.## #.#.# #.#.# #...# #...# #...# ....."),
    ('N', "#...# #...# ##..# #.#.# #..## #...# #...# ....."),
    ('O', ".###. #...# #...# #...# #...# #...# .###. ....."),
    ('P', "####. #...# #...# ####. #.... #.... #.... ....."),
    ('Q', ".###. #...# #...# #...# #.#.# #..#. .##.# ....."),
    ('R', "####. #...# #...# ####. #.#.. #..#. #...# ....."),
    ('S', ".#### #.... #.... .###. ....# ....# ####. ....."),
    ('T', "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ....."),
    ('U', "#...# #...# #...# #...# #...# #...# .###. ....."),
    ('V', "#...# #...# #...# #...# #...# .#.#. ..#.. ....."),
    ('W', "#...# #...# #...# #.#.# #.#.# #.#.# .#.#. ....."),
    ('X', "#...# #...# .#.#. ..#.. .#.#. #...# #...# ....."),
    ('Y', "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#.. ....."),
    ('Z', "##### ....# ...#. ..#.. .#... #.... ##### ....."),
    ('a', "..... ..... .###. ....# .#### #...# .#### ....."),
    ('b', "#.... #.... #.##. ##..# #...# #...# ####. ....."),
    ('c', "..... ..... .###. #.... #.... #...# .###. ....."),
    ('d', "....# ....# .##.# #..## #...# #...# .#### ....."),
    ('e', "..... ..... .###. #...# ##### #.... .###. ....."),
    ('f', "..##. .#..# .#... ###.. .#... .#... .#... ....."),
    ('g', "..... ..... .#### #...# #...# .#### ....# .###."),
    ('h', "#.... #.... #.##. ##..# #...# #...# #...# ....."),
    ('i', "..#.. ..... .##.. ..#.. ..#.. ..#.. .###. ....."),
    ('j', "...#. ..... ..##. ...#. ...#. ...#. #..#. .##.."),
    ('k', "#.... #.... #..#. #.#.. ##... #.#.. #..#. ....."),
    ('l', ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###. ....."),
    ('m', "..... ..... ##.#. #.#.# #.#.# #.#.# #.#.# ....."),
    ('n', "..... ..... #.##. ##..# #...# #...# #...# ....."),
    ('o', "..... ..... .###. #...# #...# #...# .###. ....."),
    ('p', "..... ..... ####. #...# #...# ####. #.... #...."),
    ('q', "..... ..... .#### #...# #...# .#### ....# ....#"),
    ('r', "..... ..... #.##. ##..# #.... #.... #.... ....."),
    ('s', "..... ..... .###. #.... .###. ....# ####. ....."),
    ('t', ".#... .#... ###.. .#... .#... .#..# ..##. ....."),
    ('u', "..... ..... #...# #...# #...# #..## .##.# ....."),
    ('v', "..... ..... #...# #...# #...# .#.#. ..#.. ....."),
    ('w', "..... ..... #...# #...# #.#.# #.#.# .#.#. ....."),
    ('x', "..... ..... #...# .#.#. ..#.. .#.#. #...# ....."),
    ('y', "..... ..... #...# #...# #...# .#### ....# .###."),
    ('z', "..... ..... ##### ...#. ..#.. .#... ##### ....."),
    ('.', "..... ..... ..... ..... ..... .##.. .##.. ....."),
    (',', "..... ..... ..... ..... ..... .##.. ..#.. .#..."),
    (':', "..... .##.. .##.. ..... .##.. .##.. ..... ....."),
    (';', "..... .##.. .##.. ..... .##.. ..#.. .#... ....."),
    ('-', "..... ..... ..... ##### ..... ..... ..... ....."),
    ('+', "..... ..#.. ..#.. ##### ..#.. ..#.. ..... ....."),
    ('=', "..... ..... ##### ..... ##### ..... ..... ....."),
    ('/', "..... ....# ...#. ..#.. .#... #.... ..... ....."),
    ('|', "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ....."),
    ('(', "...#. ..#.. .#... .#... .#... ..#.. ...#. ....."),
    (')', ".#... ..#.. ...#. ...#. ...#. ..#.. .#... ....."),
    ('[', ".###. .#... .#... .#... .#... .#... .###. ....."),
    (']', ".###. ...#. ...#. ...#. ...#. ...#. .###. ....."),
    ('_', "..... ..... ..... ..... ..... ..... ##### ....."),
    ('%', "##... ##..# ...#. ..#.. .#... #..## ...## ....."),
    ('!', "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#.. ....."),
    ('?', ".###. #...# ....# ...#. ..#.. ..... ..#.. ....."),
    ('\'', "..#.. ..#.. .#... ..... ..... ..... ..... ....."),
    ('"', ".#.#. .#.#. ..... ..... ..... ..... ..... ....."),
    ('*', "..... ..#.. #.#.# .###. #.#.# ..#.. ..... ....."),
    ('#', ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#. ....."),
    ('<', "...#. ..#.. .#... #.... .#... ..#.. ...#. ....."),
    ('>', ".#... ..#.. ...#. ....# ...#. ..#.. .#... ....."),
    ('~', "..... ..... .#... #.#.# ...#. ..... ..... ....."),
];

/// The rows of `c`'s glyph, top to bottom, bit 4 the leftmost pixel. Dashes (— –) draw as
/// `-`, `×` as `x`, `·` as `.`, anything else not in the font as `?`.
pub fn glyph(c: char) -> [u8; GLYPH_H as usize] {
    let c = match c {
        '—' | '–' | '−' => '-',
        '×' => 'x',
        '·' => '.',
        '\t' => ' ',
        c => c,
    };
    let text = FONT
        .iter()
        .find(|(k, _)| *k == c)
        .or_else(|| FONT.iter().find(|(k, _)| *k == '?'))
        .map_or("", |(_, t)| *t);
    let mut rows = [0u8; GLYPH_H as usize];
    for (row, bits) in rows.iter_mut().zip(text.split(' ')) {
        *row = bits
            .bytes()
            .fold(0u8, |acc, b| (acc << 1) | u8::from(b == b'#'));
    }
    rows
}

/// An RGBA image, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextImage {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// 4 bytes per pixel.
    pub rgba: Vec<u8>,
}

impl TextImage {
    /// The pixel at column `x`, row `y`.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let k = 4 * (y * self.width + x) as usize;
        [
            self.rgba[k],
            self.rgba[k + 1],
            self.rgba[k + 2],
            self.rgba[k + 3],
        ]
    }
}

/// `lines` drawn with the built-in font, [`TEXT_RGBA`] on a [`BACKDROP_RGBA`] backdrop with a
/// [`PAD`]-pixel margin: character `i` of line `j` has its top-left pixel at
/// `(PAD + i ADVANCE, PAD + j LINE)`.
pub fn rasterize(lines: &[String]) -> TextImage {
    let cols = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    let width = 2 * PAD + (cols * ADVANCE).saturating_sub(1).max(1);
    let height = 2 * PAD + (lines.len() as u32 * LINE).saturating_sub(2).max(1);
    let mut rgba: Vec<u8> = BACKDROP_RGBA
        .iter()
        .copied()
        .cycle()
        .take(4 * (width * height) as usize)
        .collect();
    for (j, line) in lines.iter().enumerate() {
        for (i, c) in line.chars().enumerate() {
            let (x0, y0) = (PAD + i as u32 * ADVANCE, PAD + j as u32 * LINE);
            for (dy, row) in glyph(c).iter().enumerate() {
                for dx in 0..GLYPH_W {
                    if row & (1 << (GLYPH_W - 1 - dx)) != 0 {
                        let k = 4 * ((y0 + dy as u32) * width + x0 + dx) as usize;
                        rgba[k..k + 4].copy_from_slice(&TEXT_RGBA);
                    }
                }
            }
        }
    }
    TextImage {
        width,
        height,
        rgba,
    }
}

/// Overlay uniforms (`Hud` in [`HUD_WGSL`]), 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct HudUniforms {
    origin: [f32; 2],
    size: [f32; 2],
    viewport: [f32; 2],
    scale: f32,
    _pad: f32,
}

/// The overlay's shader: one screen-space quad reading its texture texel by texel (no sampler),
/// `scale` screen pixels per texel.
pub const HUD_WGSL: &str = r"
struct Hud {
    origin: vec2<f32>,    // top-left corner, pixels from the viewport's top-left
    size: vec2<f32>,      // texture size, texels
    viewport: vec2<f32>,  // pixels
    scale: f32,           // pixels per texel
    _pad: f32,
}

@group(0) @binding(0) var<uniform> h: Hud;
@group(0) @binding(1) var text: texture_2d<f32>;

@vertex
fn vs_hud(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0),
    );
    let p = h.origin + corners[vi] * h.size * h.scale;
    return vec4<f32>(p.x / h.viewport.x * 2.0 - 1.0, 1.0 - p.y / h.viewport.y * 2.0, 0.0, 1.0);
}

@fragment
fn fs_hud(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let t = vec2<i32>(floor((frag.xy - h.origin) / h.scale));
    let last = vec2<i32>(textureDimensions(text)) - vec2<i32>(1, 1);
    return textureLoad(text, clamp(t, vec2<i32>(0, 0), last), 0);
}
";

/// Draws a [`rasterize`]d text image over a colour target (alpha-blended, after the scene).
pub struct HudOverlay {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform_buf: wgpu::Buffer,
    image: Option<(u32, u32, wgpu::Texture, wgpu::BindGroup)>,
}

impl HudOverlay {
    /// The pipeline for colour targets of `format`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("hud"),
            source: wgpu::ShaderSource::Wgsl(HUD_WGSL.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("hud"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
            ],
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("hud"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("hud"),
            layout: Some(&pl),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_hud"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_hud"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let uniform_buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hud uniforms"),
            size: std::mem::size_of::<HudUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            pipeline,
            layout,
            uniform_buf,
            image: None,
        }
    }

    /// Replaces the text with `lines` (an empty slice hides the overlay).
    pub fn set_text(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, lines: &[String]) {
        if lines.is_empty() {
            self.image = None;
            return;
        }
        let img = rasterize(lines);
        if self
            .image
            .as_ref()
            .is_none_or(|(w, h, ..)| (*w, *h) != (img.width, img.height))
        {
            let texture = super::impostor::texture_2d(
                device,
                "hud text",
                img.width,
                img.height,
                wgpu::TextureFormat::Rgba8Unorm,
                wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            );
            let view = texture.create_view(&Default::default());
            let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("hud"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.uniform_buf.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                ],
            });
            self.image = Some((img.width, img.height, texture, bind));
        }
        let (_, _, texture, _) = self.image.as_ref().expect("made above");
        queue.write_texture(
            texture.as_image_copy(),
            &img.rgba,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * img.width),
                rows_per_image: Some(img.height),
            },
            wgpu::Extent3d {
                width: img.width,
                height: img.height,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Records a pass drawing the text at pixel `origin` (from the top-left corner) of the
    /// `width` × `height` target `view`, `scale` pixels per font pixel, over what is there.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &self,
        queue: &wgpu::Queue,
        enc: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        (width, height): (u32, u32),
        origin: (u32, u32),
        scale: u32,
    ) {
        let Some((w, h, _, bind)) = &self.image else {
            return;
        };
        let u = HudUniforms {
            origin: [origin.0 as f32, origin.1 as f32],
            size: [*w as f32, *h as f32],
            viewport: [width.max(1) as f32, height.max(1) as f32],
            scale: scale.max(1) as f32,
            _pad: 0.0,
        };
        queue.write_buffer(&self.uniform_buf, 0, bytemuck::bytes_of(&u));
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("hud"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.draw(0..6, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_come_once_per_interval() {
        let t0 = Instant::now();
        let mut m = RateMeter::new(t0, Duration::from_millis(500));
        assert_eq!(m.latest(), None);
        // 30 frames of 40 steps over 0.6 s; the meter reports at the first frame past 0.5 s.
        let mut got = None;
        for i in 1..=30u64 {
            let r = m.frame(t0 + Duration::from_millis(20 * i), 40);
            if i < 25 {
                assert_eq!(r, None, "frame {i}");
            } else if i == 25 {
                got = r;
            }
        }
        let r = got.expect("rates after 0.5 s");
        assert!((r.fps - 50.0).abs() < 1e-9, "{r:?}");
        assert!((r.steps_per_second - 2000.0).abs() < 1e-9, "{r:?}");
        assert_eq!(m.latest(), Some(r));
        // The next window starts afresh: 5 frames of 40 steps so far, paused frames add none.
        let r2 = m.frame(t0 + Duration::from_millis(1000), 0).unwrap();
        assert!((r2.fps - 12.0).abs() < 1e-9, "{r2:?}");
        assert!((r2.steps_per_second - 400.0).abs() < 1e-9, "{r2:?}");
    }

    #[test]
    fn every_printable_ascii_character_has_a_glyph_of_its_own_size() {
        for (c, text) in FONT {
            let rows: Vec<&str> = text.split(' ').collect();
            assert_eq!(rows.len(), GLYPH_H as usize, "{c:?}");
            assert!(
                rows.iter()
                    .all(|r| r.len() == GLYPH_W as usize && r.bytes().all(|b| b"#.".contains(&b))),
                "{c:?}"
            );
            assert_eq!(
                FONT.iter().filter(|(k, _)| k == c).count(),
                1,
                "{c:?} twice"
            );
        }
        let question = glyph('?');
        for c in (' '..='~').filter(|c| !"$&@\\^`{}".contains(*c)) {
            if c != '?' {
                assert_ne!(glyph(c), question, "{c:?} has no glyph");
            }
        }
        assert_eq!(glyph('—'), glyph('-'));
        assert_eq!(glyph('€'), question);
        assert_eq!(glyph(' '), [0; 8]);
    }

    #[test]
    fn rasterized_text_lights_the_glyph_pixels_on_the_backdrop() {
        let img = rasterize(&["1.".into(), "|".into()]);
        assert_eq!(img.width, 2 * PAD + 2 * ADVANCE - 1);
        assert_eq!(img.height, 2 * PAD + 2 * LINE - 2);
        assert_eq!(img.rgba.len(), (4 * img.width * img.height) as usize);
        // '1' has its top pixel in column 2, row 0; '.' its dot in columns 1–2 of rows 5–6.
        assert_eq!(img.pixel(PAD + 2, PAD), TEXT_RGBA);
        assert_eq!(img.pixel(PAD, PAD), BACKDROP_RGBA);
        assert_eq!(img.pixel(PAD + ADVANCE + 1, PAD + 5), TEXT_RGBA);
        assert_eq!(img.pixel(PAD + ADVANCE, PAD + 5), BACKDROP_RGBA);
        // '|' on the second line: column 2, rows 0–6.
        for dy in 0..7 {
            assert_eq!(img.pixel(PAD + 2, PAD + LINE + dy), TEXT_RGBA, "row {dy}");
        }
        assert_eq!(img.pixel(0, 0), BACKDROP_RGBA);
    }
}
