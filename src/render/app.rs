//! `spheresim view`: a winit window drawing the simulation as it runs, with an orbit camera.
//!
//! Controls: left-drag orbits (about the up axis, [`ViewOptions::up`]), right-drag or
//! shift+left-drag pans, the wheel zooms, F frames the spheres where they are now, space pauses
//! and resumes, N steps once, R resets, + and − change the steps per frame (A: adaptive again),
//! C cycles the colouring, H hides or shows the heads-up lines, P saves a PNG screenshot, Esc or
//! closing the window quits.
//!
//! Heads-up lines, drawn in the window's top-left corner ([`super::hud`]) and also put in the
//! window title, refreshed twice a second: scene, N, simulated time, frames/s and steps/s; then
//! steps per frame, colouring, total energy and whether paused.

use super::framing::{self, Ball};
use super::hud::{HudOverlay, RateMeter};
use super::impostor::{Target, depth_view};
use super::offscreen::{Offscreen, write_png};
use super::{ColourMode, DrawSettings, OrbitCamera, RenderError, SceneRenderer, Up};
use crate::gpu::GpuContext;
use crate::{Backend, Scene, Simulation};
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// Share of a frame the stepping may take when the steps per frame adapt, s (the frame stays
/// near 30 frames/s however slow a step is, down to one step per frame).
pub const STEP_BUDGET: Duration = Duration::from_millis(20);

/// Options of [`run_viewer`].
#[derive(Clone, Debug, Default)]
pub struct ViewOptions {
    /// Backend that steps the scene (default: auto; see [`super::open_simulation`]).
    pub backend: Backend,
    /// Quit after drawing this many frames (default: run until closed).
    pub exit_after_frames: Option<u64>,
    /// Initial colouring (default: material).
    pub colour: ColourMode,
    /// Fixed steps per frame (default: adapt to [`STEP_BUDGET`]).
    pub steps_per_frame: Option<u64>,
    /// Start paused.
    pub paused: bool,
    /// World axis that appears up; the camera orbits about it (default: +y).
    pub up: Up,
}

/// What a viewer session did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewSummary {
    /// Frames presented.
    pub frames: u64,
    /// Steps done by the simulation at exit (since the last reset).
    pub steps: u64,
    /// Adapter that drew.
    pub adapter: String,
    /// Backend that stepped.
    pub backend: String,
}

impl std::fmt::Display for ViewSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "viewer closed after {} frames, {} steps (backend {}, drawn on {})",
            self.frames, self.steps, self.backend, self.adapter
        )
    }
}

/// Opens the window and runs until it is closed, Esc is pressed, or
/// [`ViewOptions::exit_after_frames`] frames were drawn.
///
/// # Errors
/// [`RenderError::Window`] when no display is available or the window or surface cannot be
/// made; [`RenderError::Gpu`] without an adapter that can present to the window;
/// [`RenderError::Sim`] when the scene cannot start.
pub fn run_viewer(scene: Scene, opts: ViewOptions) -> Result<ViewSummary, RenderError> {
    let event_loop = EventLoop::new().map_err(|e| {
        RenderError::Window(format!(
            "cannot connect to a display ({e}); run under a desktop session, or use \
             `spheresim render` or `xvfb-run -a spheresim view ...` on a headless machine"
        ))
    })?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App {
        scene,
        opts,
        gfx: None,
        error: None,
        summary: ViewSummary::default(),
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| RenderError::Window(e.to_string()))?;
    if let Some(g) = &app.gfx {
        app.summary.steps = g.sim.steps_done();
    }
    match app.error {
        Some(e) => Err(e),
        None => Ok(app.summary),
    }
}

struct App {
    scene: Scene,
    opts: ViewOptions,
    gfx: Option<Gfx>,
    error: Option<RenderError>,
    summary: ViewSummary,
}

/// Everything that lives while the window is open. `surface` is declared before `window` so it
/// is dropped first.
struct Gfx {
    surface: wgpu::Surface<'static>,
    name: String,
    window: Arc<Window>,
    config: wgpu::SurfaceConfiguration,
    ctx: GpuContext,
    renderer: SceneRenderer,
    depth: wgpu::TextureView,
    sim: Simulation,
    camera: OrbitCamera,
    colour: ColourMode,
    paused: bool,
    single_step: bool,
    steps_per_frame: u64,
    adaptive: bool,
    screenshot: bool,
    // Input state.
    cursor: Option<(f64, f64)>,
    left: bool,
    right: bool,
    shift: bool,
    up: Up,
    // Heads-up lines.
    frames: u64,
    rates: RateMeter,
    hud: HudOverlay,
    hud_visible: bool,
    /// Refresh the heads-up lines at the next frame rather than at the next rate window.
    hud_dirty: bool,
    energy: Option<f64>,
}

/// How often the heads-up lines (and the rates in them) are refreshed.
pub const HUD_INTERVAL: Duration = Duration::from_millis(500);

impl Gfx {
    fn new(
        event_loop: &ActiveEventLoop,
        scene: &Scene,
        opts: &ViewOptions,
    ) -> Result<Self, RenderError> {
        let attrs = Window::default_attributes()
            .with_title(format!("spheresim — {}", scene.name))
            .with_inner_size(winit::dpi::LogicalSize::new(1280.0, 720.0));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .map_err(|e| RenderError::Window(format!("cannot create the window: {e}")))?,
        );
        let instance = wgpu::Instance::new(GpuContext::instance_descriptor());
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| RenderError::Window(format!("cannot create a wgpu surface: {e}")))?;
        let ctx = GpuContext::with_instance(&instance, Some(&surface))?;
        let size = window.inner_size();
        let caps = surface.get_capabilities(&ctx.adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| {
                RenderError::Window(format!(
                    "adapter {} cannot present to this window",
                    ctx.adapter_name()
                ))
            })?;
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![],
            ..surface
                .get_default_config(&ctx.adapter, size.width.max(1), size.height.max(1))
                .ok_or_else(|| RenderError::Window("the surface is not supported".into()))?
        };
        surface.configure(&ctx.device, &config);
        let sim = super::open_simulation(scene, opts.backend, &ctx)?;
        if let Some(n) = sim.notice() {
            eprintln!("notice: {n}");
        }
        // Framed on the spheres the run starts with (an insertion with `start = 0` filled them).
        let started = sim.open_scene().cloned();
        let scene = started.as_ref().unwrap_or(scene);
        let renderer = SceneRenderer::new(&ctx.device, format, scene, &sim);
        let depth = depth_view(&ctx.device, config.width, config.height);
        let camera = frame_scene(scene, opts.up, &config);
        let hud = HudOverlay::new(&ctx.device, format);
        eprintln!(
            "{}: {} spheres, backend {} on {}, drawing on {}",
            scene.name,
            scene.spheres.len(),
            sim.backend(),
            sim.adapter(),
            ctx.adapter_name()
        );
        Ok(Self {
            surface,
            name: scene.name.clone(),
            window,
            config,
            renderer,
            depth,
            sim,
            camera,
            colour: opts.colour,
            paused: opts.paused,
            single_step: false,
            steps_per_frame: opts.steps_per_frame.unwrap_or(1).max(1),
            adaptive: opts.steps_per_frame.is_none(),
            screenshot: false,
            cursor: None,
            left: false,
            right: false,
            shift: false,
            up: opts.up,
            frames: 0,
            rates: RateMeter::new(Instant::now(), HUD_INTERVAL),
            hud,
            hud_visible: true,
            hud_dirty: true,
            energy: None,
            ctx,
        })
    }

    fn settings(&self) -> DrawSettings {
        DrawSettings {
            camera: self.camera.camera(),
            colour: self.colour,
            flat: false,
        }
    }

    fn resize(&mut self, width: u32, height: u32) {
        self.config.width = width.max(1);
        self.config.height = height.max(1);
        self.surface.configure(&self.ctx.device, &self.config);
        self.depth = depth_view(&self.ctx.device, self.config.width, self.config.height);
    }

    /// Steps, draws and presents one frame. Returns whether a frame was presented.
    fn frame(&mut self) -> Result<bool, RenderError> {
        let k = if self.single_step {
            1
        } else if self.paused {
            0
        } else {
            self.steps_per_frame
        };
        self.single_step = false;
        let before = self.sim.steps_done();
        if k > 0 {
            let t0 = Instant::now();
            if let Err(e) = self.sim.step(k) {
                eprintln!("{e}; paused (R resets)");
                self.paused = true;
            }
            let took = t0.elapsed();
            if self.adaptive && !self.paused {
                // Proportional control towards the budget, at most doubling per frame.
                let ratio = STEP_BUDGET.as_secs_f64() / took.as_secs_f64().max(1e-6);
                let next = (k as f64 * ratio.min(2.0)).floor() as u64;
                self.steps_per_frame = next.clamp(1, 1 << 16);
            }
        }
        self.renderer
            .update(&self.ctx.device, &self.ctx.queue, &mut self.sim);

        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                let size = self.window.inner_size();
                self.resize(size.width, size.height);
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(RenderError::Window(
                    "the surface texture failed validation".into(),
                ));
            }
        };
        let view = frame.texture.create_view(&Default::default());
        let aspect = self.config.width as f32 / self.config.height as f32;
        let settings = self.settings();
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.renderer.draw(
            &self.ctx.queue,
            &mut enc,
            &Target {
                colour: &view,
                depth: &self.depth,
                aspect,
            },
            &settings,
            &self.sim,
        );
        let stepped = self.sim.steps_done().saturating_sub(before);
        if self.rates.frame(Instant::now(), stepped).is_some() {
            self.hud_dirty = true;
        }
        if self.hud_dirty {
            self.hud_dirty = false;
            self.update_hud();
        }
        if self.hud_visible {
            let scale = if self.config.height >= 600 { 2 } else { 1 };
            self.hud.draw(
                &self.ctx.queue,
                &mut enc,
                &view,
                (self.config.width, self.config.height),
                (8, 8),
                scale,
            );
        }
        self.ctx.queue.submit([enc.finish()]);
        self.window.pre_present_notify();
        self.ctx.queue.present(frame);
        // Lets wgpu reclaim finished submissions (staging memory of the uploads, command
        // buffers); without it memory grows every frame.
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        self.frames += 1;
        if self.screenshot {
            self.screenshot = false;
            self.save_screenshot(&settings);
        }
        Ok(true)
    }

    fn save_screenshot(&mut self, settings: &DrawSettings) {
        let (w, h) = (self.config.width, self.config.height);
        let target = Offscreen::new(&self.ctx.device, w, h, self.config.format);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.renderer.draw(
            &self.ctx.queue,
            &mut enc,
            &target.target(),
            settings,
            &self.sim,
        );
        let rgba = target.finish_and_read(&self.ctx.device, &self.ctx.queue, enc);
        let safe: String = self
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let name = format!("spheresim-{safe}-step{:08}.png", self.sim.steps_done());
        match write_png(std::path::Path::new(&name), w, h, &rgba) {
            Ok(()) => eprintln!("screenshot: {name}"),
            Err(e) => eprintln!("screenshot failed: {e}"),
        }
    }

    /// Rebuilds the heads-up lines (title and overlay) from the latest rates.
    fn update_hud(&mut self) {
        // Diagnostics read back from the GPU: twice a second at most.
        self.energy = Some(self.sim.diagnostics().total_energy());
        let lines = hud_lines(&HudState {
            scene: &self.name,
            particles: self.sim.particles(),
            time: self.sim.time(),
            rates: self.rates.latest(),
            steps_per_frame: self.steps_per_frame,
            adaptive: self.adaptive,
            colour: self.colour,
            energy: self.energy,
            paused: self.paused,
            up: self.up,
        });
        log::debug!("{}", lines.join(" | "));
        self.window.set_title(&lines[0]);
        let shown = if self.hud_visible { &lines[..] } else { &[] };
        self.hud.set_text(&self.ctx.device, &self.ctx.queue, shown);
    }
}

/// What the heads-up lines show.
#[derive(Clone, Copy, Debug)]
pub struct HudState<'a> {
    /// Scene name.
    pub scene: &'a str,
    /// Number of spheres.
    pub particles: usize,
    /// Simulated time, s.
    pub time: f64,
    /// Latest rates (`None` before the first half second).
    pub rates: Option<super::hud::Rates>,
    /// Steps per frame.
    pub steps_per_frame: u64,
    /// Whether the steps per frame adapt.
    pub adaptive: bool,
    /// Colouring.
    pub colour: ColourMode,
    /// Total energy, J.
    pub energy: Option<f64>,
    /// Paused.
    pub paused: bool,
    /// Up axis.
    pub up: Up,
}

/// The heads-up lines: the first (also the window title) e.g.
/// `spheresim — wall-break — N 10000 — t 0.0123 s — 58.9 fps — 1180 steps/s`, the second the
/// steps per frame, colouring, energy, up axis and whether paused.
pub fn hud_lines(h: &HudState<'_>) -> Vec<String> {
    let rates = match h.rates {
        Some(r) => format!("{:.1} fps — {:.0} steps/s", r.fps, r.steps_per_second),
        None => "... fps — ... steps/s".to_string(),
    };
    let first = format!(
        "spheresim — {} — N {} — t {:.4} s — {rates}{}",
        h.scene,
        h.particles,
        h.time,
        if h.paused { " — paused" } else { "" }
    );
    let second = format!(
        "{} steps/frame{} — colour {} — E {:.4e} J — up {} — H hides",
        h.steps_per_frame,
        if h.adaptive { " (auto)" } else { "" },
        h.colour.label(),
        h.energy.unwrap_or(f64::NAN),
        h.up,
    );
    vec![first, second]
}

/// Orbit camera framing the scene's initial state as `spheresim render`'s first frame does
/// ([`framing::initial_target`]), with `up` up.
fn frame_scene(scene: &Scene, up: Up, config: &wgpu::SurfaceConfiguration) -> OrbitCamera {
    let ball = framing::initial_target(scene).map_or(
        Ball {
            centre: glam::DVec3::ZERO,
            radius: 1.0,
        },
        |t| t.context,
    );
    orbit(ball, up, config)
}

/// Orbit camera framing the spheres where they are now (one read-back) with their containers
/// and near planes ([`framing::frame_target`]), with `up` up.
fn frame_current(
    scene: &Scene,
    sim: &mut Simulation,
    up: Up,
    config: &wgpu::SurfaceConfiguration,
) -> OrbitCamera {
    let snap = sim.snapshot();
    match framing::frame_target(scene, &snap.position, &snap.radius) {
        Some(t) => orbit(t.context, up, config),
        None => frame_scene(scene, up, config),
    }
}

fn orbit(ball: Ball, up: Up, config: &wgpu::SurfaceConfiguration) -> OrbitCamera {
    OrbitCamera::framing_sphere(
        ball.centre.as_vec3(),
        ball.radius as f32,
        super::frames::view_direction(up),
        up,
        config.width as f32 / config.height.max(1) as f32,
    )
}

impl App {
    fn key(&mut self, event_loop: &ActiveEventLoop, key: &Key) {
        log::debug!("key {key:?}");
        let Some(g) = self.gfx.as_mut() else { return };
        match key {
            Key::Named(NamedKey::Escape) => event_loop.exit(),
            Key::Named(NamedKey::Space) => g.paused = !g.paused,
            Key::Character(c) => match c.to_lowercase().as_str() {
                "n" => {
                    g.paused = true;
                    g.single_step = true;
                }
                "r" => match super::open_simulation(&self.scene, self.opts.backend, &g.ctx) {
                    Ok(sim) => {
                        g.sim = sim;
                        g.renderer.bind(&g.ctx.device, &g.sim);
                    }
                    Err(e) => eprintln!("reset failed: {e}"),
                },
                "+" | "=" => {
                    g.adaptive = false;
                    g.steps_per_frame = (g.steps_per_frame * 2).min(1 << 20);
                }
                "-" | "_" => {
                    g.adaptive = false;
                    g.steps_per_frame = (g.steps_per_frame / 2).max(1);
                }
                "a" => g.adaptive = true,
                "c" => g.colour = g.colour.next(),
                "h" => g.hud_visible = !g.hud_visible,
                "f" => g.camera = frame_current(&self.scene, &mut g.sim, g.up, &g.config),
                "p" => g.screenshot = true,
                _ => {}
            },
            _ => {}
        }
        // Show the change at once rather than at the next half-second tick.
        g.hud_dirty = true;
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        match Gfx::new(event_loop, &self.scene, &self.opts) {
            Ok(g) => {
                self.summary.adapter = g.ctx.adapter_name();
                self.summary.backend = g.sim.backend().to_string();
                g.window.request_redraw();
                self.gfx = Some(g);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput { ref event, .. }
                if event.state == ElementState::Pressed =>
            {
                self.key(event_loop, &event.logical_key);
            }
            _ => {}
        }
        let Some(g) = self.gfx.as_mut() else { return };
        match event {
            WindowEvent::Resized(size) => g.resize(size.width, size.height),
            WindowEvent::ModifiersChanged(m) => g.shift = m.state().shift_key(),
            WindowEvent::MouseInput { state, button, .. } => {
                log::debug!("mouse {button:?} {state:?}");
                let down = state == ElementState::Pressed;
                match button {
                    MouseButton::Left => g.left = down,
                    MouseButton::Right => g.right = down,
                    _ => {}
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some((x0, y0)) = g.cursor {
                    let (dx, dy) = ((position.x - x0) as f32, (position.y - y0) as f32);
                    if g.right || (g.left && g.shift) {
                        g.camera.pan(dx, dy, g.config.height as f32);
                    } else if g.left {
                        g.camera.rotate(dx, dy);
                    }
                }
                g.cursor = Some((position.x, position.y));
            }
            WindowEvent::CursorLeft { .. } => g.cursor = None,
            WindowEvent::MouseWheel { delta, .. } => {
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => (p.y / 40.0) as f32,
                };
                g.camera.zoom(notches);
            }
            WindowEvent::RedrawRequested => match g.frame() {
                Ok(_) => {
                    self.summary.frames = g.frames;
                    if self.opts.exit_after_frames.is_some_and(|n| g.frames >= n) {
                        event_loop.exit();
                    }
                }
                Err(e) => {
                    self.error = Some(e);
                    event_loop.exit();
                }
            },
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(g) = &self.gfx {
            g.window.request_redraw();
        }
    }
}
