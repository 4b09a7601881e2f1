//! `spheresim` command line: the clap definitions and one library call per subcommand.
//! The command line is documented in docs/cli.md.

use anyhow::{Context, Result, bail};
use clap::{Args, CommandFactory, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use spheresim::output::{self, SnapshotFormat};
use spheresim::render::{ColourMode, Up};
use spheresim::run::{RunOptions, SceneOptions, SimRun, ctrl_c_flag};
use spheresim::scene::{ContactModel, builtin};
use spheresim::{Backend, Precision, Scene, validate};
use std::path::PathBuf;
use std::time::Duration;

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
    Validate(ValidateArgs),
    /// Watch a scene run in a window (orbit camera; keys in docs/viewing.md).
    View(ViewArgs),
    /// Render a scene offscreen to DIR/frame_00000.png, frame_00001.png, ...
    Render(RenderArgs),
    /// Print a shell completion script to standard output.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to standard output.
    Manpage,
}

/// The scene and the overrides shared by `run`, `view` and `render`.
#[derive(Args, Debug)]
struct SceneArgs {
    /// Built-in scene name (see `spheresim scenes`) or path to a scene file (.toml).
    scene: String,
    /// Number of spheres of a built-in scene (default: the scene's own).
    #[arg(long)]
    particles: Option<usize>,
    /// Number of steps (default: the scene's `steps`).
    #[arg(long)]
    steps: Option<u64>,
    /// Contact law, replacing the scene's `contact`.
    #[arg(long, value_enum)]
    contact: Option<ContactModel>,
    /// Coulomb friction coefficient μ ≥ 0 for every sphere, plane and container (soft contact
    /// laws only).
    #[arg(long, value_name = "MU", allow_negative_numbers = true)]
    friction: Option<f64>,
    /// Accept initial overlaps deeper than 1 % of the smaller radius.
    #[arg(long)]
    allow_overlap: bool,
}

impl SceneArgs {
    fn options(&self) -> SceneOptions {
        SceneOptions {
            scene: self.scene.clone(),
            particles: self.particles,
            steps: self.steps,
            contact: self.contact,
            friction: self.friction,
            allow_overlap: self.allow_overlap,
            ..Default::default()
        }
    }
}

/// Backends that draw from a GPU context (`view`, `render`): the event solver cannot.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum DrawBackend {
    /// The GPU unless it is a software one.
    Auto,
    /// The GPU backend.
    Gpu,
    /// The CPU backend, uploaded for drawing.
    Cpu,
}

impl From<DrawBackend> for Backend {
    fn from(b: DrawBackend) -> Backend {
        match b {
            DrawBackend::Auto => Backend::Auto,
            DrawBackend::Gpu => Backend::Gpu,
            DrawBackend::Cpu => Backend::Cpu,
        }
    }
}

#[derive(Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Backend that steps the scene (auto: the GPU unless it is a software one).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Time step in seconds (default: the scene's `dt`).
    #[arg(long, allow_negative_numbers = true)]
    dt: Option<f64>,
    /// Write the final state as CSV (`id,x,y,z,vx,vy,vz,radius,mass`, input order).
    #[arg(long = "final", value_name = "FILE.csv")]
    final_csv: Option<PathBuf>,
    /// Directory for snapshots (snapshot_{step:08}.csv/.vtp/.vtk as --format says, the ParaView
    /// lists series.pvd and series.vtk.series) and the energy log diagnostics.csv.
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Snapshot formats written with --output, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "csv,vtp")]
    format: Vec<SnapshotFormat>,
    /// Snapshot every K steps (with --output; default: steps / 20).
    #[arg(long, value_name = "K")]
    every: Option<u64>,
    /// Write run statistics as JSON.
    #[arg(long, value_name = "FILE")]
    stats_json: Option<PathBuf>,
    /// Arithmetic precision of the backend.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    precision: Precision,
    /// Digits of π for the built-in scene pi-blocks: the heavy sphere weighs 100^(D−1) times
    /// the light one (1 to 8; default: 3). Only with pi-blocks.
    #[arg(long, value_name = "D")]
    digits: Option<u32>,
    /// No progress bar or progress lines (the summary is still printed).
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct ViewArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Backend that steps the scene.
    #[arg(long, value_enum, default_value_t = DrawBackend::Auto)]
    backend: DrawBackend,
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
struct RenderArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Output directory for frame_NNNNN.png (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
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
    #[arg(long, value_enum, default_value_t = DrawBackend::Auto)]
    backend: DrawBackend,
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

/// `spheresim bench`: see the library's `bench` module.
#[derive(Args, Debug)]
struct BenchArgs {
    /// Built-in scenes, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "wall-break,box-gas,orbits"
    )]
    scenes: Vec<String>,
    /// Sphere counts, comma-separated; `1e5` and `100000` both work.
    #[arg(long, value_delimiter = ',', default_value = "1e3,1e4,1e5,1e6", value_parser = parse_count)]
    particles: Vec<usize>,
    /// Backends, comma-separated: gpu, cpu (every core), cpu1 (one thread).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "gpu,cpu")]
    backends: Vec<spheresim::bench::BenchBackend>,
    /// Timed steps per repeat.
    #[arg(long, default_value_t = 10)]
    steps: u64,
    /// Timed repeats (the table gives their median, min and max).
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Untimed warm-up steps before the repeats.
    #[arg(long, default_value_t = 2)]
    warmup: u64,
    /// Skip a configuration predicted (from the previous count) to take longer than this, s.
    #[arg(long, default_value_t = 300.0)]
    budget_seconds: f64,
    /// Also write the rows as JSON (a list of objects).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// A sphere count: a positive integer, also written like `1e6`.
fn parse_count(s: &str) -> Result<usize, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    if !(v >= 1.0 && v.fract() == 0.0 && v <= 1e12) {
        return Err(format!("`{s}` is not a whole number of spheres ≥ 1"));
    }
    Ok(v as usize)
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// Backends to validate. Without a GPU adapter, `gpu` fails; `all` reports GPU cases as
    /// unavailable and passes on the rest, unless CI=true, where it fails.
    #[arg(long, value_enum, default_value_t = validate::Which::All)]
    backend: validate::Which,
    /// Cases to run (default: all; see --list).
    #[arg(value_name = "CASE")]
    cases: Vec<String>,
    /// List the cases and exit.
    #[arg(long)]
    list: bool,
    /// Also write every row as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let code = match Cli::parse().command {
        Command::Scenes => {
            for s in builtin::list() {
                println!(
                    "{:<12} {:>9} spheres by default  {}",
                    s.name, s.default_particles, s.summary
                );
            }
            Ok(0)
        }
        Command::Run(args) => run(args),
        Command::Bench(args) => bench(args),
        Command::Validate(a) => validate::run_cli(a.backend, &a.cases, a.list, a.json.as_deref())
            .map_err(anyhow::Error::msg),
        Command::View(args) => view(args),
        Command::Render(args) => render(args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "spheresim", &mut std::io::stdout());
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
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}

/// Loads the scene and prints its time-step warning, if any.
fn load(opts: &SceneOptions) -> Result<Scene> {
    let scene = opts.load()?;
    if let Some(w) = scene.time_step_warning() {
        eprintln!("warning: {}: {w}", scene.name);
    }
    Ok(scene)
}

fn run(args: RunArgs) -> Result<i32> {
    let mut opts = args.scene.options();
    opts.dt = args.dt;
    opts.digits = args.digits;
    let scene = load(&opts)?;
    let sim = SimRun::new(
        &scene,
        RunOptions {
            backend: args.backend,
            precision: args.precision,
            final_csv: args.final_csv,
            output: args.output,
            every: args.every,
            formats: args.format,
            stats_json: args.stats_json,
            progress: !args.quiet,
        },
    )?;
    if let Some(notice) = sim.notice() {
        eprintln!("notice: {notice}");
    }
    eprintln!("{}", sim.header());
    let stop = ctrl_c_flag()?;
    let report = sim.execute(&stop)?;
    print!("{report}");
    for w in report.warnings() {
        eprintln!("warning: {w}");
    }
    Ok(report.exit_code())
}

fn bench(args: BenchArgs) -> Result<i32> {
    use spheresim::bench::{self, BenchConfig, Progress};
    let cfg = BenchConfig {
        scenes: args.scenes,
        particles: args.particles,
        backends: args.backends,
        steps: args.steps,
        repeats: args.repeats,
        warmup: args.warmup,
        budget_seconds: args.budget_seconds,
    };
    bench::check(&cfg).map_err(anyhow::Error::msg)?;
    if let Some(p) = &args.json {
        output::check_writable_file(p)?;
    }
    let total = (cfg.scenes.len() * cfg.particles.len() * cfg.backends.len()) as u64;
    eprintln!("{}", bench::header(&cfg));
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let rows = bench::run(&cfg, |p| match p {
        Progress::Start {
            scene,
            particles,
            backend,
        } => bar.set_message(format!("{scene} N={particles} {backend}")),
        Progress::Done(row) => {
            bar.inc(1);
            if let Some(e) = &row.error {
                bar.println(format!(
                    "{} N={} {}: {e}",
                    row.scene, row.particles_requested, row.backend
                ));
            }
        }
    });
    bar.finish_and_clear();
    print!("{}", bench::table(&rows));
    if let Some(p) = &args.json {
        let text = serde_json::to_string_pretty(&rows).context("serialising the bench rows")?;
        output::write_atomic(p, |w| w.write_all(text.as_bytes()))?;
        println!("rows: {}", p.display());
    }
    Ok(0)
}

fn view(args: ViewArgs) -> Result<i32> {
    use spheresim::render::app::{ViewOptions, run_viewer};
    if args.steps_per_frame == Some(0) {
        bail!("--steps-per-frame must be at least 1");
    }
    let scene = load(&args.scene.options())?;
    let summary = run_viewer(
        scene,
        ViewOptions {
            backend: args.backend.into(),
            exit_after_frames: args.exit_after_frames,
            colour: args.colour,
            steps_per_frame: args.steps_per_frame,
            paused: args.paused,
            up: args.up,
        },
    )?;
    println!(
        "viewer closed after {} frames, {} steps (backend {}, drawn on {})",
        summary.frames, summary.steps, summary.backend, summary.adapter
    );
    Ok(0)
}

fn render(args: RenderArgs) -> Result<i32> {
    use spheresim::render::frames::{RenderOptions, render_frames};
    let scene = load(&args.scene.options())?;
    let opts = RenderOptions {
        frames: args.frames,
        every: args.every,
        width: args.size.0,
        height: args.size.1,
        out: args.out,
        eye: args.eye,
        target: args.target,
        fov_deg: args.fov,
        colour: args.colour,
        up: args.up,
        backend: args.backend.into(),
        progress: !args.quiet,
    };
    let summary = render_frames(&scene, &opts)?;
    println!(
        "wrote {} frames ({}x{}, every {} steps, backend {}, drawn on {}) to {}",
        summary.frames,
        opts.width,
        opts.height,
        summary.every,
        summary.backend,
        summary.adapter,
        summary.out.display()
    );
    println!("make a video with:");
    println!("  {}", summary.ffmpeg_command(&scene.name));
    Ok(0)
}
