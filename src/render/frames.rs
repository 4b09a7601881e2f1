//! `spheresim render`: the scene stepped and drawn offscreen every K steps into
//! `DIR/frame_00000.png`, `frame_00001.png`, …, into a video (`--video FILE`, encoded by ffmpeg
//! as [`super::video`] describes), or both.
//!
//! The camera follows the spheres unless `--eye` or `--target` fix it: each frame is framed
//! from the spheres' current positions, the scene's containers and the planes near them, and
//! smoothed from frame to frame, as [`super::framing`] describes. The progress bar counts
//! steps, updated several times a second (the steps go in chunks sized for about 50 to 200 ms
//! each), and names the frame being made.

use super::framing::{self, Ball};
use super::offscreen::{OFFSCREEN_FORMAT, Offscreen, write_png};
use super::video::{VideoSummary, VideoWriter, check_video};
use super::{
    Camera, ColourMode, DEFAULT_VIEW_DIRECTION, DrawSettings, RenderError, SceneRenderer, Up,
};
use crate::gpu::GpuContext;
use crate::naming::Setting;
use crate::output::prepare_output_dir;
use crate::{Backend, Scene, Simulation};
use glam::Vec3;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Frames written when neither `--frames` nor `--every` is given.
pub const DEFAULT_FRAMES: u64 = 60;

/// Options of [`render_frames`].
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// Frames to write, the first of the initial state (default: see [`frame_plan`]).
    pub frames: Option<u64>,
    /// Steps between frames (default: the scene's steps spread over the frames).
    pub every: Option<u64>,
    /// Image width, pixels (default: `1280`).
    pub width: u32,
    /// Image height, pixels (default: `720`).
    pub height: u32,
    /// Output directory of [`render_frames`], created if missing. [`render_to`] ignores it and
    /// takes its outputs from [`RenderOutputs`].
    pub out: PathBuf,
    /// Camera position, m; with it or [`RenderOptions::target`] the camera stays put (default:
    /// the camera follows the spheres, see [`super::framing`]).
    pub eye: Option<Vec3>,
    /// Point looked at, m; with it or [`RenderOptions::eye`] the camera stays put (default:
    /// the camera follows the spheres).
    pub target: Option<Vec3>,
    /// Vertical field of view, degrees (default: `45`).
    pub fov_deg: Option<f32>,
    /// Sphere colouring (default: material).
    pub colour: ColourMode,
    /// World axis that appears up (default: +y).
    pub up: Up,
    /// Backend that steps the scene (default: auto).
    pub backend: Backend,
    /// Show a progress bar on stderr.
    pub progress: bool,
}

/// A video to write with [`render_to`]: `spheresim render --video FILE --fps N`.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoOptions {
    /// The video file: `.mp4` (H.264) or `.webm` (VP9), written atomically.
    pub path: PathBuf,
    /// Frames per second, finite and above 0 (default: [`super::video::DEFAULT_FPS`], 30).
    pub fps: f64,
}

/// Where [`render_to`] puts the frames: PNG files in a directory, a video, or both (at least
/// one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderOutputs {
    /// Directory for `frame_NNNNN.png`, created if missing (default: no PNG files).
    pub frames_dir: Option<PathBuf>,
    /// The video (default: none).
    pub video: Option<VideoOptions>,
}

/// What [`render_frames`] or [`render_to`] wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSummary {
    /// Frames drawn.
    pub frames: u64,
    /// Steps between frames.
    pub every: u64,
    /// The directory the PNG frames went to; `None` when none were written.
    pub out: Option<PathBuf>,
    /// The video written, if any.
    pub video: Option<VideoSummary>,
    /// Image size `(width, height)`, pixels.
    pub size: (u32, u32),
    /// Backend that stepped the scene.
    pub backend: Backend,
    /// Adapter that drew.
    pub adapter: String,
}

/// One line for the frames (`wrote 60 frames (…) to DIR`, or `drew 60 frames (…)` without a
/// directory), then, with a video, [`VideoSummary`]'s line: its file, codec, frame count, frames
/// per second and duration.
impl std::fmt::Display for RenderSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} frames ({}x{}, every {} steps, backend {}, drawn on {})",
            if self.out.is_some() { "wrote" } else { "drew" },
            self.frames,
            self.size.0,
            self.size.1,
            self.every,
            self.backend,
            self.adapter,
        )?;
        if let Some(out) = &self.out {
            write!(f, " to {}", out.display())?;
        }
        if let Some(v) = &self.video {
            write!(f, "\n{v}")?;
        }
        Ok(())
    }
}

impl RenderSummary {
    /// The ffmpeg command that turns the PNG frames into `DIR/NAME.mp4` at 30 frames/s (H.264,
    /// yuv420p for players that need it); `None` when no PNG frames were written.
    pub fn ffmpeg_command(&self, name: &str) -> Option<String> {
        let dir = self.out.as_ref()?.display();
        Some(format!(
            "ffmpeg -framerate 30 -i {dir}/frame_%05d.png -c:v libx264 -pix_fmt yuv420p {dir}/{name}.mp4"
        ))
    }
}

/// Name of the built-in scene whose render default is cut short by [`default_steps`].
const WALL_BREAK: &str = "wall-break";

/// Steps `spheresim render` covers when `--steps` is not given: the scene's own `steps`, except
/// for the built-in `wall-break`. Its steps (at least 1 500, 0.15 s) carry the ball about 3 m,
/// ten times through the wall and beyond, so most frames would show debris after the impact.
/// There the default is the steps that carry the ball (its largest sphere) through the wall and
/// half as far again, `ceil(1.5 (gap + wall thickness + ball diameter) / (v dt))`: the travel
/// the scene's builder computes before it raises the count to 1 500. Never more than the
/// scene's steps; a scene without a moving largest sphere or without other spheres keeps them.
pub fn default_steps(scene: &Scene) -> u64 {
    let steps = scene.sim.steps;
    if scene.name != WALL_BREAK {
        return steps;
    }
    let Some((k, ball)) = scene
        .spheres
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.radius.total_cmp(&b.1.radius))
    else {
        return steps;
    };
    let speed = ball.velocity.length();
    let dir = ball.velocity / speed;
    let (mut front, mut back) = (f64::INFINITY, f64::NEG_INFINITY);
    for (i, s) in scene.spheres.iter().enumerate() {
        if i != k {
            let along = s.position.dot(dir);
            front = front.min(along - s.radius);
            back = back.max(along + s.radius);
        }
    }
    let gap = front - (ball.position.dot(dir) + ball.radius);
    let travel = 1.5 * (gap.max(0.0) + (back - front) + 2.0 * ball.radius);
    let n = (travel / (speed * scene.sim.dt)).ceil();
    if n.is_finite() && n >= 1.0 {
        (n as u64).min(steps)
    } else {
        steps
    }
}

/// Frame count and spacing for `steps` steps: both given are kept; one given sets the other so
/// the frames span all steps; neither gives at most [`DEFAULT_FRAMES`], as many as the spacing
/// `ceil(steps / (DEFAULT_FRAMES − 1))` needs to reach `steps` (fewer for short scenes).
/// [`render_frames`] draws frame `i` at step `min(i · every, steps)` unless both were given.
///
/// # Errors
/// [`RenderError::Invalid`] when either is zero.
pub fn frame_plan(
    steps: u64,
    frames: Option<u64>,
    every: Option<u64>,
) -> Result<(u64, u64), RenderError> {
    if frames == Some(0) {
        return Err(RenderError::Invalid(format!(
            "{} must be at least 1",
            Setting::Frames
        )));
    }
    if every == Some(0) {
        return Err(RenderError::Invalid(format!(
            "{} must be at least 1",
            Setting::Every
        )));
    }
    Ok(match (frames, every) {
        (Some(f), Some(e)) => (f, e),
        (Some(f), None) => (
            f,
            if f > 1 {
                steps.div_ceil(f - 1).max(1)
            } else {
                1
            },
        ),
        (None, Some(e)) => (steps.div_ceil(e) + 1, e),
        (None, None) => {
            let every = steps.div_ceil(DEFAULT_FRAMES - 1).max(1);
            (steps.div_ceil(every) + 1, every)
        }
    })
}

/// The view direction (from the point looked at towards the eye) with `up` up:
/// [`DEFAULT_VIEW_DIRECTION`] turned by [`Up::basis`].
pub fn view_direction(up: Up) -> Vec3 {
    up.basis() * DEFAULT_VIEW_DIRECTION
}

/// The camera framing `ball` along [`view_direction`]`(up)` with a vertical field of view of
/// `fov_deg` (default: [`super::camera::DEFAULT_FOV_DEG`]).
pub fn ball_camera(ball: Ball, up: Up, fov_deg: Option<f32>, aspect: f32) -> Camera {
    Camera::framing_sphere(
        ball.centre.as_vec3(),
        ball.radius as f32,
        view_direction(up),
        up,
        fov_deg.unwrap_or(super::camera::DEFAULT_FOV_DEG),
        aspect,
    )
}

/// A fixed camera of `spheresim render` (with `--eye` or `--target`): where one of them is
/// missing it is placed as the automatic camera of the initial state would be (the scene's
/// initial framing, [`framing::initial_target`]'s context, along [`view_direction`]).
pub fn render_camera(
    scene: &Scene,
    eye: Option<Vec3>,
    target: Option<Vec3>,
    fov_deg: Option<f32>,
    up: Up,
    aspect: f32,
) -> Camera {
    let ball = framing::initial_target(scene).map_or(
        Ball {
            centre: glam::DVec3::ZERO,
            radius: 1.0,
        },
        |t| t.context,
    );
    let framed = ball_camera(ball, up, fov_deg, aspect);
    if eye.is_none() && target.is_none() {
        return framed;
    }
    let radius = ball.radius as f32;
    let t = target.unwrap_or(framed.target);
    let e = eye.unwrap_or(t + (framed.eye - framed.target));
    let mut c = Camera::look_at_up(e, t, up);
    let d = (e - t).length();
    c.near = (d - 3.0 * radius).max(d * 1e-3);
    c.far = d + 3.0 * radius.max(d);
    c.fov_y_deg = framed.fov_y_deg;
    c
}

/// Steps per call of [`Simulation::step`] while rendering: doubles while a chunk takes under
/// 50 ms, halves while one takes over 200 ms (as `spheresim run` does), so the progress bar
/// moves several times a second however long a step takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk(pub u64);

impl Chunk {
    /// The next chunk after one that took `took`.
    pub fn after(self, took: Duration) -> Self {
        if took < Duration::from_millis(50) {
            Chunk((self.0 * 2).min(1 << 20))
        } else if took > Duration::from_millis(200) && self.0 > 1 {
            Chunk(self.0 / 2)
        } else {
            self
        }
    }
}

/// Steps `scene` and writes `frames` images `every` steps apart into `opts.out`, the first of
/// the initial state: [`render_to`] with PNG files only.
///
/// # Errors
/// As [`render_to`].
pub fn render_frames(scene: &Scene, opts: &RenderOptions) -> Result<RenderSummary, RenderError> {
    render_to(
        scene,
        opts,
        &RenderOutputs {
            frames_dir: Some(opts.out.clone()),
            video: None,
        },
    )
}

/// Steps `scene` and draws `frames` images `every` steps apart, the first of the initial state,
/// into `outputs`: PNG files in a directory, a video, or both. Every check (options, the
/// directory, the video's extension, size and directory, ffmpeg and its encoder) is made before
/// any stepping; the video is fed the frames in order and renamed onto its file only when
/// ffmpeg succeeds.
///
/// # Errors
/// [`RenderError::Invalid`] for a zero frame count, spacing or size, a size over the adapter's
/// texture limit, a field of view outside (0, 180), or no output; [`RenderError::Output`]
/// naming the directory when it cannot be created or written; [`RenderError::Video`] naming the
/// video when its extension, frame rate or size is refused, its directory is not writable,
/// ffmpeg is missing (with how to install it) or fails; [`RenderError::Gpu`] without an
/// adapter; [`RenderError::Sim`] when stepping fails.
pub fn render_to(
    scene: &Scene,
    opts: &RenderOptions,
    outputs: &RenderOutputs,
) -> Result<RenderSummary, RenderError> {
    if outputs.frames_dir.is_none() && outputs.video.is_none() {
        return Err(RenderError::Invalid(format!(
            "nothing to write: give {} (PNG frames), {} (.mp4 or .webm), or both",
            Setting::FramesDir,
            Setting::Video
        )));
    }
    let (frames, every) = frame_plan(scene.sim.steps, opts.frames, opts.every)?;
    if opts.width == 0 || opts.height == 0 {
        return Err(RenderError::Invalid(format!(
            "{} {}x{}: width and height must be at least 1",
            Setting::Size,
            opts.width,
            opts.height
        )));
    }
    if let Some(f) = opts.fov_deg
        && !(f > 0.0 && f < 180.0)
    {
        return Err(RenderError::Invalid(format!(
            "{} {f}: must be between 0 and 180 degrees",
            Setting::Fov
        )));
    }
    if opts.backend == Backend::Event {
        return Err(RenderError::Invalid(format!(
            "{} cannot be drawn: use {}",
            Setting::BackendEvent,
            Setting::DrawableBackends
        )));
    }
    if let Some(v) = &outputs.video {
        check_video(&v.path, opts.width, opts.height, v.fps)?;
    }
    let ctx = GpuContext::new()?;
    let max = ctx.limits.max_texture_dimension_2d;
    if opts.width > max || opts.height > max {
        return Err(RenderError::Invalid(format!(
            "{} {}x{}: over the adapter's largest texture, {max} pixels a side",
            Setting::Size,
            opts.width,
            opts.height
        )));
    }
    // Created only once every option is known to be good.
    if let Some(dir) = &outputs.frames_dir {
        prepare_output_dir(dir)?;
    }
    let mut video = match &outputs.video {
        Some(v) => Some(VideoWriter::new(&v.path, opts.width, opts.height, v.fps)?),
        None => None,
    };
    let mut sim = super::open_simulation(scene, opts.backend, &ctx)?;
    // Framed on the spheres the run starts with (an insertion with `start = 0` filled them).
    let started = sim.open_scene().cloned();
    let scene = started.as_ref().unwrap_or(scene);
    let target = Offscreen::new(&ctx.device, opts.width, opts.height, OFFSCREEN_FORMAT);
    let mut renderer = SceneRenderer::new(&ctx.device, OFFSCREEN_FORMAT, scene, &sim);
    let fixed = (opts.eye.is_some() || opts.target.is_some()).then(|| {
        render_camera(
            scene,
            opts.eye,
            opts.target,
            opts.fov_deg,
            opts.up,
            target.aspect(),
        )
    });
    // The last frame shows the scene's last step, unless the user set both count and spacing.
    let clamp = opts.frames.is_none() || opts.every.is_none();
    let steps = scene.sim.steps;
    let frame_step = |f: u64| {
        if clamp {
            f.saturating_mul(every).min(steps)
        } else {
            f.saturating_mul(every)
        }
    };
    let total = frame_step(frames - 1);
    let bar = if opts.progress {
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps  {msg}  eta {eta}",
            )
            .expect("valid template"),
        );
        b.enable_steady_tick(Duration::from_millis(200));
        b
    } else {
        ProgressBar::hidden()
    };
    let mut chunk = Chunk(1);
    let mut framed: Option<Ball> = None;
    let rate = framing::follow_rate(frames);
    for f in 0..frames {
        let at = frame_step(f);
        bar.set_message(format!("frame {}/{frames}", f + 1));
        while sim.steps_done() < at {
            let k = chunk.0.min(at - sim.steps_done());
            let t0 = Instant::now();
            if let Err(e) = sim.step(k) {
                bar.abandon();
                return Err(e.into());
            }
            chunk = chunk.after(t0.elapsed());
            bar.set_position(sim.steps_done());
        }
        renderer.update(&ctx.device, &ctx.queue, &mut sim);
        let camera = match fixed {
            Some(c) => c,
            None => {
                framed = follow_frame(scene, &mut sim, framed, rate);
                let ball = framed.unwrap_or(Ball {
                    centre: glam::DVec3::ZERO,
                    radius: 1.0,
                });
                ball_camera(ball, opts.up, opts.fov_deg, target.aspect())
            }
        };
        let settings = DrawSettings {
            camera,
            colour: opts.colour,
            flat: false,
        };
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        renderer.draw(&ctx.queue, &mut enc, &target.target(), &settings, &sim);
        let rgba = target.finish_and_read(&ctx.device, &ctx.queue, enc);
        if let Some(dir) = &outputs.frames_dir {
            write_frame(dir, f, opts, &rgba).inspect_err(|_| bar.abandon())?;
        }
        if let Some(v) = video.as_mut() {
            v.push_frame(&rgba).inspect_err(|_| bar.abandon())?;
        }
    }
    if video.is_some() {
        bar.set_message("finishing the video");
    }
    let video = video
        .map(VideoWriter::finish)
        .transpose()
        .inspect_err(|_| bar.abandon())?;
    bar.finish_and_clear();
    Ok(RenderSummary {
        frames,
        every,
        out: outputs.frames_dir.clone(),
        video,
        size: (opts.width, opts.height),
        backend: sim.backend(),
        adapter: ctx.adapter_name(),
    })
}

/// Writes frame `f` as `dir/frame_NNNNN.png`.
fn write_frame(dir: &Path, f: u64, opts: &RenderOptions, rgba: &[u8]) -> Result<(), RenderError> {
    Ok(write_png(
        &dir.join(format!("frame_{f:05}.png")),
        opts.width,
        opts.height,
        rgba,
    )?)
}

/// The framed ball after `previous` for the simulation's current state (one read-back),
/// smoothed at `rate` ([`framing::follow`]).
fn follow_frame(
    scene: &Scene,
    sim: &mut Simulation,
    previous: Option<Ball>,
    rate: f64,
) -> Option<Ball> {
    let snap = sim.snapshot();
    match framing::frame_target(scene, &snap.position, &snap.radius) {
        Some(t) => Some(framing::follow(previous, &t, rate)),
        None => previous,
    }
}

/// Parses `--size`: `WIDTHxHEIGHT` in pixels, e.g. `1280x720`, both at least 1.
///
/// # Errors
/// A message quoting the input and saying what is wrong.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?} is not WIDTHxHEIGHT (e.g. 1280x720)"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("{s:?}: {v:?} is not a positive whole number of pixels"))
    };
    Ok((num(w)?, num(h)?))
}

/// Parses `--eye` and `--target`: `x,y,z` in metres, e.g. `-1.5,0.2,3`, all finite.
///
/// # Errors
/// A message quoting the input and saying what is wrong.
pub fn parse_vec3(s: &str) -> Result<glam::Vec3, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|c| c.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{s:?} is not x,y,z ({e})"))?;
    match v[..] {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(glam::Vec3::new(x, y, z)),
        _ => Err(format!("{s:?} is not three finite numbers x,y,z")),
    }
}
