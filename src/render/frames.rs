//! `spheresim render`: the scene stepped and drawn offscreen every K steps into
//! `DIR/frame_00000.png`, `frame_00001.png`, …

use super::offscreen::{OFFSCREEN_FORMAT, Offscreen, write_png};
use super::{Camera, ColourMode, DEFAULT_VIEW_DIRECTION, DrawSettings, RenderError, SceneRenderer};
use crate::gpu::GpuContext;
use crate::output::prepare_output_dir;
use crate::{Backend, Scene};
use glam::Vec3;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

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
    /// Output directory, created if missing.
    pub out: PathBuf,
    /// Camera position, m (default: framed from the scene's bounds).
    pub eye: Option<Vec3>,
    /// Point looked at, m (default: the centre of the scene's bounds).
    pub target: Option<Vec3>,
    /// Vertical field of view, degrees (default: `45`).
    pub fov_deg: Option<f32>,
    /// Sphere colouring (default: material).
    pub colour: ColourMode,
    /// Backend that steps the scene (default: auto).
    pub backend: Backend,
    /// Show a progress bar on stderr.
    pub progress: bool,
}

/// What [`render_frames`] wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSummary {
    /// Frames written.
    pub frames: u64,
    /// Steps between frames.
    pub every: u64,
    /// The directory.
    pub out: PathBuf,
    /// Backend that stepped the scene.
    pub backend: Backend,
    /// Adapter that drew.
    pub adapter: String,
}

impl RenderSummary {
    /// The ffmpeg command that turns the frames into `DIR/NAME.mp4` at 30 frames/s (H.264,
    /// yuv420p for players that need it).
    pub fn ffmpeg_command(&self, name: &str) -> String {
        let dir = self.out.display();
        format!(
            "ffmpeg -framerate 30 -i {dir}/frame_%05d.png -c:v libx264 -pix_fmt yuv420p {dir}/{name}.mp4"
        )
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
        return Err(RenderError::Invalid("--frames must be at least 1".into()));
    }
    if every == Some(0) {
        return Err(RenderError::Invalid("--every must be at least 1".into()));
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

/// The camera of `spheresim render`: `eye`, `target` and `fov` where given, else framed from
/// the scene's bounds along [`DEFAULT_VIEW_DIRECTION`].
pub fn render_camera(
    scene: &Scene,
    eye: Option<Vec3>,
    target: Option<Vec3>,
    fov_deg: Option<f32>,
    aspect: f32,
) -> Camera {
    let (lo, hi) = scene
        .bounds()
        .unwrap_or((glam::DVec3::splat(-1.0), glam::DVec3::splat(1.0)));
    let framed = Camera::framing(lo, hi, DEFAULT_VIEW_DIRECTION, aspect);
    let mut cam = match (eye, target) {
        (None, None) => framed,
        _ => {
            let radius = ((hi - lo) * 0.5).length() as f32;
            let t = target.unwrap_or(framed.target);
            let e = eye.unwrap_or(t + (framed.eye - framed.target));
            let mut c = Camera::look_at(e, t);
            let d = (e - t).length();
            c.near = (d - 3.0 * radius).max(d * 1e-3);
            c.far = d + 3.0 * radius.max(d);
            c
        }
    };
    if let Some(f) = fov_deg {
        cam.fov_y_deg = f;
    }
    cam
}

/// Steps `scene` and writes `frames` images `every` steps apart into `opts.out`, the first of
/// the initial state.
///
/// # Errors
/// [`RenderError::Invalid`] for a zero frame count, spacing or size, a size over the adapter's
/// texture limit, or a field of view outside (0, 180); [`RenderError::Output`] naming the
/// directory when it cannot be created or written (checked before any stepping);
/// [`RenderError::Gpu`] without an adapter; [`RenderError::Sim`] when stepping fails.
pub fn render_frames(scene: &Scene, opts: &RenderOptions) -> Result<RenderSummary, RenderError> {
    let (frames, every) = frame_plan(scene.sim.steps, opts.frames, opts.every)?;
    if opts.width == 0 || opts.height == 0 {
        return Err(RenderError::Invalid(format!(
            "--size {}x{}: width and height must be at least 1",
            opts.width, opts.height
        )));
    }
    if let Some(f) = opts.fov_deg
        && !(f > 0.0 && f < 180.0)
    {
        return Err(RenderError::Invalid(format!(
            "--fov {f}: must be between 0 and 180 degrees"
        )));
    }
    if opts.backend == Backend::Event {
        return Err(RenderError::Invalid(
            "--backend event cannot be drawn: use gpu, cpu or auto".into(),
        ));
    }
    let ctx = GpuContext::new()?;
    let max = ctx.limits.max_texture_dimension_2d;
    if opts.width > max || opts.height > max {
        return Err(RenderError::Invalid(format!(
            "--size {}x{}: over the adapter's largest texture, {max} pixels a side",
            opts.width, opts.height
        )));
    }
    // Created only once every option is known to be good.
    prepare_output_dir(&opts.out)?;
    let mut sim = super::open_simulation(scene, opts.backend, &ctx)?;
    let target = Offscreen::new(&ctx.device, opts.width, opts.height, OFFSCREEN_FORMAT);
    let renderer = SceneRenderer::new(&ctx.device, OFFSCREEN_FORMAT, scene, &sim);
    let settings = DrawSettings {
        camera: render_camera(scene, opts.eye, opts.target, opts.fov_deg, target.aspect()),
        colour: opts.colour,
        flat: false,
    };
    let bar = if opts.progress {
        let b = ProgressBar::new(frames);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} frames  {msg}  eta {eta}",
            )
            .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    // The last frame shows the scene's last step, unless the user set both count and spacing.
    let clamp = opts.frames.is_none() || opts.every.is_none();
    let steps = scene.sim.steps;
    for f in 0..frames {
        let at = if clamp {
            (f * every).min(steps)
        } else {
            f * every
        };
        sim.step(at.saturating_sub(sim.steps_done()))?;
        renderer.update(&ctx.queue, &mut sim);
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        renderer.draw(&ctx.queue, &mut enc, &target.target(), &settings, &sim);
        let rgba = target.finish_and_read(&ctx.device, &ctx.queue, enc);
        write_png(
            &opts.out.join(format!("frame_{f:05}.png")),
            opts.width,
            opts.height,
            &rgba,
        )?;
        bar.set_message(format!(
            "step {}  t = {:.4} s",
            sim.steps_done(),
            sim.time()
        ));
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(RenderSummary {
        frames,
        every,
        out: opts.out.clone(),
        backend: sim.backend(),
        adapter: ctx.adapter_name(),
    })
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
