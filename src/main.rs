//! `spheresim` command line: the clap definitions and one library call per subcommand.
//! The command line is documented in docs/cli.md.

mod commands;

use anyhow::{Context, Result};
use clap::{Args, CommandFactory, Parser, Subcommand};
use spheresim::output::SnapshotFormat;
use spheresim::render::{ColourMode, Up};
use spheresim::run::SceneOptions;
use spheresim::scene::{ContactModel, builtin};
use spheresim::{Backend, Precision, validate};
use std::path::PathBuf;

/// GPU many-body sphere engine: contacts with restitution, gravity, leapfrog; CPU reference.
#[derive(Parser, Debug)]
#[command(name = "spheresim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a built-in scene or a scene file to completion.
    Run(RunArgs),
    /// List the built-in scenes.
    Scenes,
    /// Time built-in scenes on the GPU and CPU backends and print a comparison table.
    Bench(BenchArgs),
    /// Run validation cases against exact and analytic answers; exits 1 on any failure.
    Validate(validate::ValidateArgs),
    /// Watch a scene run in a window (orbit camera; keys in docs/viewing.md).
    View(ViewArgs),
    /// Render a scene offscreen to PNG frames (--out DIR) and/or a video (--video FILE).
    Render(RenderArgs),
    /// Measure the angle of repose of a settled heap from a state CSV (`run --final FILE`),
    /// z up, from its surface profile.
    Repose {
        /// State CSV of the heap (for example `spheresim run pile --final pile.csv`).
        file: PathBuf,
    },
    /// Print a shell completion script to standard output.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to standard output.
    Manpage,
}

/// A flag's value that must be a positive, finite number: checked by clap, so that the error
/// names the flag (`invalid value '0' for '--dt <DT>'`) rather than the scene it would replace.
fn positive_finite(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(_) => Err("must be positive and finite".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// A flag's value that must be finite and at least 0 (a friction coefficient, a skin).
fn non_negative_finite(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(_) => Err("must be finite and at least 0".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// The tree's opening angle θ, in (0, MAX_THETA] (`scene::check`'s range).
fn opening_angle(s: &str) -> Result<f64, String> {
    let max = spheresim::cpu::tree::MAX_THETA;
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= max => Ok(v),
        Ok(_) => Err(format!("must be in (0, {max}]")),
        Err(e) => Err(e.to_string()),
    }
}

/// The scene and the overrides shared by `view` and `render`.
#[derive(Args, Debug)]
struct SceneArgs {
    /// Built-in scene name (see `spheresim scenes`) or path to a scene file (.toml).
    scene: String,
    #[command(flatten)]
    overrides: SceneOverrides,
}

/// The scene overrides shared by `run`, `view` and `render`.
#[derive(Args, Debug)]
struct SceneOverrides {
    /// Number of spheres of a built-in scene (default: the scene's own); `1e6` and `1000000`
    /// both work, as in `bench`.
    #[arg(long, value_parser = spheresim::bench::parse_count)]
    particles: Option<usize>,
    /// Contact law, replacing the scene's `contact`.
    #[arg(long, value_enum)]
    contact: Option<ContactModel>,
    /// Coulomb friction coefficient μ ≥ 0 for every sphere, plane and container (soft contact
    /// laws only).
    #[arg(long, value_name = "MU", allow_negative_numbers = true, value_parser = non_negative_finite)]
    friction: Option<f64>,
    /// Accept initial overlaps deeper than 1 % of the smaller radius.
    #[arg(long)]
    allow_overlap: bool,
    /// Neighbour-list skin in m (0: rebuild every step), replacing the
    /// scene's `skin` [default: 0.6 of the smallest radius].
    #[arg(long, value_name = "M", allow_negative_numbers = true, value_parser = non_negative_finite)]
    skin: Option<f64>,
    /// How mutual gravity is summed, replacing the scene's `gravity_solver` [default: the
    /// scene's own: tree for plummer and rubble-pile, direct for the other built-in scenes and
    /// for a scene file that sets none].
    #[arg(long, value_enum)]
    gravity_solver: Option<spheresim::scene::GravitySolver>,
    /// Opening angle θ of the gravity tree, in (0, 1.5], replacing the scene's `theta`
    /// [default: 0.5].
    #[arg(long, allow_negative_numbers = true, value_parser = opening_angle)]
    theta: Option<f64>,
    /// Whether spheres rotate under friction torques, replacing the scene's `rotation`
    /// [default: false].
    #[arg(long, value_name = "BOOL")]
    rotation: Option<bool>,
    /// Whether the force the spheres exert on each plane and container is recorded every step,
    /// replacing the scene's `wall_forces` [default: false]: diagnostics.csv's `wall*_f*`
    /// columns, the summary and the stats JSON's `wall_forces_final` (soft contact laws).
    #[arg(long, value_name = "BOOL")]
    wall_forces: Option<bool>,
    /// Rolling friction coefficient μ_r ≥ 0 for every sphere, plane and container (soft contact
    /// laws with rotation).
    #[arg(long, value_name = "MU_R", allow_negative_numbers = true, value_parser = non_negative_finite)]
    rolling_friction: Option<f64>,
    /// Rolling resistance law, replacing the scene's `rolling_model` [default: cdt when some
    /// μ_r > 0, else none].
    #[arg(long, value_enum)]
    rolling_model: Option<spheresim::scene::RollingModel>,
    /// Damping of the Hertz law, replacing the scene's `damping` [default: flores].
    #[arg(long, value_enum)]
    damping: Option<spheresim::scene::Damping>,
}

impl SceneOverrides {
    fn options(&self, scene: &str) -> SceneOptions {
        SceneOptions {
            scene: scene.to_string(),
            particles: self.particles,
            contact: self.contact,
            friction: self.friction,
            allow_overlap: self.allow_overlap,
            skin: self.skin,
            gravity_solver: self.gravity_solver,
            theta: self.theta,
            rotation: self.rotation,
            wall_forces: self.wall_forces,
            rolling_friction: self.rolling_friction,
            rolling_model: self.rolling_model,
            damping: self.damping,
            ..Default::default()
        }
    }
}

impl SceneArgs {
    fn options(&self) -> SceneOptions {
        self.overrides.options(&self.scene)
    }
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Built-in scene name (see `spheresim scenes`) or path to a scene file (.toml); not with
    /// --resume.
    #[arg(required_unless_present = "resume")]
    scene: Option<String>,
    #[command(flatten)]
    overrides: SceneOverrides,
    /// Number of steps (default: the scene's `steps`); with --resume, the run's new total,
    /// counted from its start.
    #[arg(long)]
    steps: Option<u64>,
    /// Backend that steps the scene (auto: the GPU unless it is a software one) [default: auto;
    /// with --resume: the checkpoint's].
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// Time step in seconds (default: the scene's `dt`).
    #[arg(long, allow_negative_numbers = true, value_parser = positive_finite)]
    dt: Option<f64>,
    /// Write the final state as CSV (`id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz`, input order;
    /// wx,wy,wz: angular velocity in rad/s).
    #[arg(long = "final", value_name = "FILE.csv")]
    final_csv: Option<PathBuf>,
    /// Directory for snapshots (snapshot_{step:08}.csv/.vtp/.vtk as --format says, the ParaView
    /// lists series.pvd and series.vtk.series) and the energy log diagnostics.csv.
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Snapshot formats written with --output, comma-separated [default: csv,vtp; with
    /// --resume: the checkpoint's].
    #[arg(long, value_enum, value_delimiter = ',')]
    format: Option<Vec<SnapshotFormat>>,
    /// Snapshot every K steps (with --output; default: steps / 20).
    #[arg(long, value_name = "K")]
    every: Option<u64>,
    /// Write run statistics as JSON.
    #[arg(long, value_name = "FILE")]
    stats_json: Option<PathBuf>,
    /// Arithmetic precision of the backend [default: f32; with --resume: the checkpoint's].
    #[arg(long, value_enum)]
    precision: Option<Precision>,
    /// Digits of π for the built-in scene pi-blocks: the heavy sphere weighs 100^(D−1) times
    /// the light one (1 to 8; default: 3). Only with pi-blocks.
    #[arg(long, value_name = "D")]
    digits: Option<u32>,
    /// Write checkpoints into DIR (created if missing): every --checkpoint-every steps, at the
    /// last step, on Ctrl-C and at a non-finite stop; the newest two periodic ones are kept.
    #[arg(long, value_name = "DIR")]
    checkpoint: Option<PathBuf>,
    /// Steps between checkpoints (with --checkpoint; default: only at the end and on Ctrl-C).
    #[arg(long, value_name = "K")]
    checkpoint_every: Option<u64>,
    /// Run on when total + dissipated energy drifts by more than half the energy scale, which
    /// stops the run by default; the summary still warns
    #[arg(long)]
    allow_energy_drift: bool,
    /// Continue the run of a checkpoint file, or of the newest checkpoint in a directory; its
    /// scene, outputs and cadences carry over, options given here replace them.
    #[arg(
        long,
        value_name = "FILE|DIR",
        conflicts_with_all = ["scene", "particles", "contact", "friction", "skin", "gravity_solver", "theta", "rotation", "wall_forces", "rolling_friction", "rolling_model", "damping", "allow_overlap", "dt", "digits"]
    )]
    resume: Option<PathBuf>,
    /// No progress bar; a progress line every --progress-every seconds instead (the summary is
    /// still printed).
    #[arg(long, short)]
    quiet: bool,
    /// Seconds between progress lines when no bar is shown (--quiet, or standard error is not
    /// a terminal); 0: none.
    #[arg(long, value_name = "SECONDS", default_value_t = spheresim::run::PROGRESS_LOG_SECONDS)]
    progress_every: u64,
}

#[derive(Args, Debug)]
struct ViewArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Backend that steps the scene.
    #[arg(long, value_enum, default_value_t = spheresim::render::DrawBackend::Auto)]
    backend: spheresim::render::DrawBackend,
    /// Quit after drawing N frames (for scripted runs).
    #[arg(long, value_name = "N")]
    exit_after_frames: Option<u64>,
    /// Fixed steps per frame (default: adapts so stepping takes about 20 ms a frame).
    #[arg(long, value_name = "K")]
    steps_per_frame: Option<u64>,
    /// Initial colouring (C cycles it in the window).
    #[arg(long, value_enum, default_value_t = ColourMode::Material)]
    colour: ColourMode,
    /// World axis that appears up; the camera orbits about it.
    #[arg(long, value_enum, default_value_t = Up::Y, allow_hyphen_values = true)]
    up: Up,
    /// Start paused (space resumes).
    #[arg(long)]
    paused: bool,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("output").args(["out", "video"]).required(true).multiple(true)))]
struct RenderArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Number of steps to cover (default: the scene's `steps`; for wall-break, the steps that
    /// carry the ball through the wall and half as far again).
    #[arg(long)]
    steps: Option<u64>,
    /// Output directory for frame_NNNNN.png (created if missing); --out, --video or both.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Video file made by ffmpeg from the frames: .mp4 (H.264; even width and height) or
    /// .webm (VP9); replaced only when complete.
    #[arg(long, value_name = "FILE")]
    video: Option<PathBuf>,
    /// Frames per second of the video (default: 30).
    #[arg(long, value_name = "N", requires = "video", allow_negative_numbers = true,
          value_parser = spheresim::render::video::parse_fps)]
    fps: Option<f64>,
    /// Frames to write, the first of the initial state, the last at the scene's last step
    /// (default: up to 60, or ceil(steps / --every) + 1).
    #[arg(long)]
    frames: Option<u64>,
    /// Steps between frames (default: the scene's steps spread over the frames).
    #[arg(long, value_name = "K")]
    every: Option<u64>,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = spheresim::render::frames::parse_size)]
    size: (u32, u32),
    /// Backend that steps the scene.
    #[arg(long, value_enum, default_value_t = spheresim::render::DrawBackend::Auto)]
    backend: spheresim::render::DrawBackend,
    /// Camera position x,y,z in m (default: the camera follows the spheres).
    #[arg(long, value_name = "X,Y,Z", value_parser = spheresim::render::frames::parse_vec3, allow_hyphen_values = true)]
    eye: Option<glam::Vec3>,
    /// Point looked at x,y,z in m (default: the camera follows the spheres).
    #[arg(long, value_name = "X,Y,Z", value_parser = spheresim::render::frames::parse_vec3, allow_hyphen_values = true)]
    target: Option<glam::Vec3>,
    /// Vertical field of view, degrees (default: 45).
    #[arg(long, value_name = "DEG")]
    fov: Option<f32>,
    /// Sphere colouring.
    #[arg(long, value_enum, default_value_t = ColourMode::Material)]
    colour: ColourMode,
    /// World axis that appears up in the images.
    #[arg(long, value_enum, default_value_t = Up::Y, allow_hyphen_values = true)]
    up: Up,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// `spheresim bench`: the options are the library's `BenchConfig`.
#[derive(Args, Debug)]
struct BenchArgs {
    #[command(flatten)]
    cfg: spheresim::bench::BenchConfig,
    /// Also write the rows as JSON (a list of objects).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn main() {
    // Library messages name this binary's flags (`--dt`) instead of the library's fields.
    spheresim::naming::use_cli_flags();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let command = Cli::parse().command;
    if matches!(
        command,
        Command::Scenes
            | Command::Validate(_)
            | Command::Repose { .. }
            | Command::Completions { .. }
            | Command::Manpage
    ) {
        commands::die_on_sigpipe();
    }
    let code = match command {
        Command::Scenes => {
            print!("{}", builtin::list_text());
            Ok(0)
        }
        Command::Run(args) => commands::run(args),
        Command::Bench(a) => spheresim::bench::run_cli(&a.cfg, a.json.as_deref()).map(|()| 0),
        Command::Validate(a) => a.run().map_err(anyhow::Error::msg),
        Command::View(args) => commands::view(args),
        Command::Render(args) => commands::render(args),
        Command::Repose { file } => commands::repose(&file),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "spheresim",
                &mut std::io::stdout(),
            );
            Ok(0)
        }
        Command::Manpage => clap_mangen::Man::new(Cli::command())
            .render(&mut std::io::stdout())
            .context("writing the man page")
            .map(|()| 0),
    };
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            spheresim::note!("error: {e:#}");
            std::process::exit(1);
        }
    }
}
