//! The sphere impostor renderer: one camera-facing quad per sphere with ray–sphere
//! intersection in the fragment shader (`shaders/impostor.wgsl`), planes as translucent quads
//! (`shaders/plane.wgsl`). With the GPU backend it binds the simulation's own state buffers;
//! with the CPU backend it uploads positions and velocities each frame.

use super::camera::Camera;
use super::colour::{self, BACKGROUND, ColourMode};
use crate::{Scene, Simulation};
use bytemuck::{Pod, Zeroable};
use glam::{DVec3, Vec3};
use wgpu::util::DeviceExt;

/// Depth buffer format of every pass.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Uniforms of both shaders (`Uniforms` in `shaders/impostor.wgsl`), 112 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Uniforms {
    /// World-to-clip matrix, column-major.
    pub view_proj: [[f32; 4]; 4],
    /// Camera position, m (w unused).
    pub eye: [f32; 4],
    /// Unit vector towards the light (w unused).
    pub light_dir: [f32; 4],
    /// [`ColourMode::shader_index`].
    pub colour_mode: u32,
    /// 1: unlit, the sphere's colour exactly; 0: diffuse and specular lighting.
    pub flat_shading: u32,
    /// Speed at the top of the speed ramp, m/s.
    pub speed_scale: f32,
    /// 1: each sphere carries a marking turned by its orientation (scenes with rotation).
    pub marking: u32,
}

/// Per input id: colour by material and by initial position, linear RGB (`Info` in the shader).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Info {
    material: [f32; 4],
    initial: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct PlaneVertex {
    position: [f32; 3],
    colour: [f32; 4],
}

/// How a frame is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawSettings {
    /// The camera.
    pub camera: Camera,
    /// What the spheres are coloured by (default: material).
    pub colour: ColourMode,
    /// Unlit spheres (exact colours, for tests) instead of lit ones (default: `false`).
    pub flat: bool,
}

/// Where a frame is drawn: a colour view in the renderer's format and a [`DEPTH_FORMAT`] view of
/// the same size.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// Colour attachment.
    pub colour: &'a wgpu::TextureView,
    /// Depth attachment.
    pub depth: &'a wgpu::TextureView,
    /// Width / height.
    pub aspect: f32,
}

enum Source {
    /// The GPU backend's two state sets; the current one is picked by parity each frame.
    Gpu([wgpu::BindGroup; 2]),
    /// Buffers filled from snapshots of the CPU backend, input order.
    Cpu {
        pos: wgpu::Buffer,
        vel: wgpu::Buffer,
        /// Orientations as the GPU backend lays them out (3 vec4 a sphere, the quaternion
        /// second); a 16-byte stand-in without rotation.
        rot: wgpu::Buffer,
        bind: wgpu::BindGroup,
        /// The step whose state the buffers hold: a paused viewer uploads nothing.
        uploaded: std::cell::Cell<Option<u64>>,
    },
}

/// An open system's drawing: each pass changes the spheres present (and may start the backend
/// again on new buffers), so the sphere data is bound again, and a sphere keeps its
/// initial-position colour by its id.
struct OpenDrawing {
    /// The colour frame of the spheres the run starts with.
    frame: colour::PositionColours,
    /// Initial-position colour by sphere id, from where the sphere entered.
    by_id: Vec<Option<[f32; 3]>>,
    /// [`Simulation::open_passes`] when the spheres were last bound.
    passes: u64,
}

impl OpenDrawing {
    /// The colour of each sphere present, given by its id in `ids` and, the first time an id
    /// is seen, by its position in `spheres` (the pass that put it in).
    fn colours(&mut self, spheres: &[crate::scene::Sphere], ids: &[u64]) -> Vec<[f32; 3]> {
        spheres
            .iter()
            .zip(ids)
            .map(|(s, &id)| {
                let id = id as usize;
                if id >= self.by_id.len() {
                    self.by_id.resize(id + 1, None);
                }
                *self.by_id[id].get_or_insert_with(|| self.frame.colour(s.position, s.radius))
            })
            .collect()
    }
}

/// The per-sphere colours the shader reads, in the order of `spheres`.
fn sphere_info(scene: &Scene, spheres: &[crate::scene::Sphere], initial: &[[f32; 3]]) -> Vec<Info> {
    spheres
        .iter()
        .zip(initial)
        .map(|(s, ini)| {
            let m = colour::material_colour(scene, s.material);
            Info {
                material: [m[0], m[1], m[2], 1.0],
                initial: [ini[0], ini[1], ini[2], 1.0],
            }
        })
        .collect()
}

/// Draws a simulation's spheres and its scene's planes into a colour and a depth target.
pub struct SceneRenderer {
    sphere_pipeline: wgpu::RenderPipeline,
    plane_pipeline: wgpu::RenderPipeline,
    uniform_buf: wgpu::Buffer,
    uniform_bind: wgpu::BindGroup,
    sphere_layout: wgpu::BindGroupLayout,
    info_buf: wgpu::Buffer,
    ids_identity: wgpu::Buffer,
    plane_buf: Option<wgpu::Buffer>,
    plane_vertices: u32,
    source: Source,
    n: u32,
    /// With outflows or insertions: what binds the spheres again after a pass.
    open: Option<OpenDrawing>,
    speed_scale: f32,
    /// The scene rotates: each sphere carries a marking turned by its orientation.
    marking: bool,
    format: wgpu::TextureFormat,
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Box around the spheres and the planes' anchor points, m.
fn scene_box(scene: &Scene) -> (DVec3, DVec3) {
    let (mut lo, mut hi) = scene
        .bounds()
        .unwrap_or((DVec3::splat(-1.0), DVec3::splat(1.0)));
    for p in &scene.planes {
        lo = lo.min(p.point);
        hi = hi.max(p.point);
    }
    (lo, hi)
}

/// Two triangles per plane: a rectangle in the plane about the projection of the scene box's
/// centre, as large as the box across (the box's own face for axis-aligned planes), but at
/// least half the box's largest extent along each side, so a floor under a ball dropped from
/// high up is wider than the ball.
fn plane_quads(scene: &Scene) -> Vec<PlaneVertex> {
    let (lo, hi) = scene_box(scene);
    let centre = (lo + hi) * 0.5;
    let half = (hi - lo) * 0.5 * 1.02 + DVec3::splat(1e-6);
    let half = half.max(DVec3::splat(0.5 * half.max_element()));
    let mut out = Vec::new();
    for p in &scene.planes {
        let n = p.normal.normalize();
        let c = centre - n * (centre - p.point).dot(n);
        let axis = n.abs().max_element();
        let (u, v) = if axis > 0.999 {
            // Axis-aligned: the other two world axes, sized by the box.
            let a = n.abs().to_array();
            let k = (0..3).find(|&i| a[i] == axis).unwrap_or(0);
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            let mut u = DVec3::ZERO;
            let mut v = DVec3::ZERO;
            u[i] = half[i];
            v[j] = half[j];
            (u, v)
        } else {
            let u = n.any_orthonormal_vector();
            let v = n.cross(u);
            let r = half.length();
            (u * r, v * r)
        };
        let colour = [0.55, 0.65, 0.8, 0.12];
        let corner = |a: f64, b: f64| PlaneVertex {
            position: (c + u * a + v * b).as_vec3().to_array(),
            colour,
        };
        out.extend([
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
        ]);
    }
    out
}

impl SceneRenderer {
    /// Builds the pipelines for colour targets of `format` and binds `sim`'s spheres. `sim` must
    /// run on `device` when it is on the GPU backend; `scene` is the scene it was built from.
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        scene: &Scene,
        sim: &Simulation,
    ) -> Self {
        // An open scene's spheres as the run starts: an insertion with `start = 0` filled it.
        let spheres = sim
            .open_scene()
            .map_or(&scene.spheres[..], |o| &o.spheres[..]);
        let n = spheres.len() as u32;
        let uniform_buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render uniforms"),
            size: std::mem::size_of::<Uniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let uniform_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render uniforms"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let uniform_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render uniforms"),
            layout: &uniform_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform_buf.as_entire_binding(),
            }],
        });
        let sphere_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sphere data"),
            entries: &[
                storage_entry(0),
                storage_entry(1),
                storage_entry(2),
                storage_entry(3),
                storage_entry(4),
            ],
        });

        let frame = colour::PositionColours::of(spheres);
        let mut open = sim.open_scene().map(|_| OpenDrawing {
            frame: frame.clone(),
            by_id: Vec::new(),
            passes: sim.open_passes(),
        });
        let initial = match &mut open {
            Some(o) => o.colours(spheres, &sim.ids()),
            None => spheres
                .iter()
                .map(|s| frame.colour(s.position, s.radius))
                .collect(),
        };
        let info = sphere_info(scene, spheres, &initial);
        let info_buf = init_storage(device, "sphere colours", bytemuck::cast_slice(&info));
        let ids: Vec<u32> = (0..n).collect();
        let ids_identity = init_storage(device, "identity ids", bytemuck::cast_slice(&ids));
        let max_speed = spheres
            .iter()
            .map(|s| s.velocity.length())
            .fold(0.0, f64::max);
        let speed_scale = if max_speed > 0.0 {
            (0.5 * max_speed) as f32
        } else {
            1.0
        };

        let planes = plane_quads(scene);
        let plane_buf = (!planes.is_empty()).then(|| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plane quads"),
                contents: bytemuck::cast_slice(&planes),
                usage: wgpu::BufferUsages::VERTEX,
            })
        });

        let sphere_module =
            device.create_shader_module(wgpu::include_wgsl!("../../shaders/impostor.wgsl"));
        let plane_module =
            device.create_shader_module(wgpu::include_wgsl!("../../shaders/plane.wgsl"));
        let sphere_pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("spheres"),
            bind_group_layouts: &[Some(&uniform_layout), Some(&sphere_layout)],
            immediate_size: 0,
        });
        let plane_pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("planes"),
            bind_group_layouts: &[Some(&uniform_layout)],
            immediate_size: 0,
        });
        let sphere_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("sphere impostors"),
            layout: Some(&sphere_pl),
            vertex: wgpu::VertexState {
                module: &sphere_module,
                entry_point: Some("vs_sphere"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &sphere_module,
                entry_point: Some("fs_sphere"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let plane_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("planes"),
            layout: Some(&plane_pl),
            vertex: wgpu::VertexState {
                module: &plane_module,
                entry_point: Some("vs_plane"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<PlaneVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4],
                })],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &plane_module,
                entry_point: Some("fs_plane"),
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

        let marking = scene.sim.rotation;
        let source = make_source(
            device,
            &sphere_layout,
            &info_buf,
            &ids_identity,
            (n, marking),
            sim,
        );
        Self {
            sphere_pipeline,
            plane_pipeline,
            uniform_buf,
            uniform_bind,
            sphere_layout,
            info_buf,
            ids_identity,
            plane_buf,
            plane_vertices: planes.len() as u32,
            source,
            n,
            open,
            speed_scale,
            marking,
            format,
        }
    }

    /// The colour format the pipelines draw into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Binds the spheres of `sim` (after a reset rebuilt it; same scene); with outflows or
    /// insertions, those its last pass left: their count, colours and buffers.
    pub fn bind(&mut self, device: &wgpu::Device, sim: &Simulation) {
        if let (Some(open), Some(scene)) = (self.open.as_mut(), sim.open_scene()) {
            let initial = open.colours(&scene.spheres, &sim.ids());
            open.passes = sim.open_passes();
            self.n = scene.spheres.len() as u32;
            let info = sphere_info(scene, &scene.spheres, &initial);
            self.info_buf = init_storage(device, "sphere colours", bytemuck::cast_slice(&info));
            let ids: Vec<u32> = (0..self.n).collect();
            self.ids_identity = init_storage(device, "identity ids", bytemuck::cast_slice(&ids));
        }
        self.source = make_source(
            device,
            &self.sphere_layout,
            &self.info_buf,
            &self.ids_identity,
            (self.n, self.marking),
            sim,
        );
    }

    /// Spheres the next frame draws: the scene's, or an open system's after its last pass.
    pub fn instances(&self) -> u32 {
        self.n
    }

    /// Brings the sphere data up to date: after an open system's pass, the spheres present
    /// bound again; on the GPU backend nothing more (the shaders read its buffers); on the CPU
    /// backend a snapshot upload when the simulation stepped since the last.
    pub fn update(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, sim: &mut Simulation) {
        if self
            .open
            .as_ref()
            .is_some_and(|o| o.passes != sim.open_passes())
        {
            self.bind(device, sim);
        }
        if let Source::Cpu {
            pos,
            vel,
            rot,
            uploaded,
            ..
        } = &self.source
        {
            if uploaded.get() == Some(sim.steps_done()) {
                return;
            }
            uploaded.set(Some(sim.steps_done()));
            let snap = sim.snapshot();
            let p: Vec<[f32; 4]> = snap
                .position
                .iter()
                .zip(&snap.radius)
                .map(|(x, r)| [x.x as f32, x.y as f32, x.z as f32, *r as f32])
                .collect();
            let v: Vec<[f32; 4]> = snap
                .velocity
                .iter()
                .map(|x| [x.x as f32, x.y as f32, x.z as f32, 0.0])
                .collect();
            queue.write_buffer(pos, 0, bytemuck::cast_slice(&p));
            queue.write_buffer(vel, 0, bytemuck::cast_slice(&v));
            if self.marking {
                let q: Vec<[f32; 4]> = (0..snap.len())
                    .flat_map(|i| {
                        let q = snap.orientation.get(i).copied().unwrap_or_default();
                        let q = [q.x as f32, q.y as f32, q.z as f32, q.w as f32];
                        [[0.0; 4], q, [0.0; 4]]
                    })
                    .collect();
                queue.write_buffer(rot, 0, bytemuck::cast_slice(&q));
            }
        }
    }

    /// Records a pass that clears `target` and draws the spheres, then the planes.
    pub fn draw(
        &self,
        queue: &wgpu::Queue,
        enc: &mut wgpu::CommandEncoder,
        target: &Target<'_>,
        settings: &DrawSettings,
        sim: &Simulation,
    ) {
        let Target {
            colour,
            depth,
            aspect,
        } = *target;
        let cam = settings.camera;
        let fwd = (cam.target - cam.eye).normalize_or(Vec3::NEG_Z);
        let right = fwd.cross(cam.up).normalize_or(Vec3::X);
        let up = right.cross(fwd);
        // Key light over the viewer's right shoulder.
        let light = (-fwd + 0.6 * up + 0.5 * right).normalize();
        let u = Uniforms {
            view_proj: cam.view_proj(aspect).to_cols_array_2d(),
            eye: cam.eye.extend(1.0).to_array(),
            light_dir: light.extend(0.0).to_array(),
            colour_mode: settings.colour.shader_index(),
            flat_shading: u32::from(settings.flat),
            speed_scale: self.speed_scale,
            marking: u32::from(self.marking),
        };
        queue.write_buffer(&self.uniform_buf, 0, bytemuck::bytes_of(&u));
        let sphere_bind = match &self.source {
            Source::Gpu(b) => &b[sim.gpu_backend().map_or(0, |g| g.current_set())],
            Source::Cpu { bind, .. } => bind,
        };
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: colour,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: BACKGROUND[0],
                        g: BACKGROUND[1],
                        b: BACKGROUND[2],
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.uniform_bind, &[]);
        if self.n > 0 {
            pass.set_pipeline(&self.sphere_pipeline);
            pass.set_bind_group(1, sphere_bind, &[]);
            pass.draw(0..6, 0..self.n);
        }
        if let Some(buf) = &self.plane_buf {
            pass.set_pipeline(&self.plane_pipeline);
            pass.set_vertex_buffer(0, buf.slice(..));
            pass.draw(0..self.plane_vertices, 0..1);
        }
    }
}

fn make_source(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    info: &wgpu::Buffer,
    ids_identity: &wgpu::Buffer,
    (n, marking): (u32, bool),
    sim: &Simulation,
) -> Source {
    let group = |pos: &wgpu::Buffer, vel: &wgpu::Buffer, ids: &wgpu::Buffer, rot: &wgpu::Buffer| {
        let entries: Vec<wgpu::BindGroupEntry> = [pos, vel, ids, info, rot]
            .into_iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sphere data"),
            layout,
            entries: &entries,
        })
    };
    match sim.gpu_backend() {
        Some(g) => {
            let [p0, v0, i0] = g.state_buffers(0);
            let [p1, v1, i1] = g.state_buffers(1);
            let (r0, r1) = (g.rotation_buffer(0), g.rotation_buffer(1));
            Source::Gpu([group(p0, v0, i0, r0), group(p1, v1, i1, r1)])
        }
        None => {
            let bytes = 16 * u64::from(n.max(1));
            let make = |label| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: bytes,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            };
            let (pos, vel) = (make("sphere positions"), make("sphere velocities"));
            let rot = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("sphere orientations"),
                size: if marking { 3 * bytes } else { 16 },
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let bind = group(&pos, &vel, ids_identity, &rot);
            Source::Cpu {
                pos,
                vel,
                rot,
                bind,
                uploaded: std::cell::Cell::new(None),
            }
        }
    }
}

fn init_storage(device: &wgpu::Device, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    let mut data = bytes.to_vec();
    data.resize(data.len().max(16), 0);
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: &data,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

/// A single-sample 2-D texture of `width` × `height` pixels.
pub(crate) fn texture_2d(
    device: &wgpu::Device,
    label: &str,
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// A depth target of `width` × `height` pixels in [`DEPTH_FORMAT`].
pub fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    texture_2d(
        device,
        "depth",
        width,
        height,
        DEPTH_FORMAT,
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    )
    .create_view(&Default::default())
}
