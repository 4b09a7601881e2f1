//! `spheresim` command line: run scenes, list built-in scenes.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use spheresim::output::{self, RunStats, SeriesWriter};
use spheresim::scene::{CheckOptions, builtin};
use spheresim::{Backend, Diagnostics, Precision, Scene, Simulation, validate};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
    /// Watch a scene run in a window (orbit camera; keys listed in README "Viewing and rendering").
    View(ViewArgs),
    /// Render a scene offscreen to DIR/frame_00000.png, frame_00001.png, ...
    Render(RenderArgs),
}

/// Contact-law overrides shared by `run`, `view` and `render`.
#[derive(Args, Debug, Default)]
struct ContactArgs {
    /// Contact law, replacing the scene's `contact` (impulse, spring-dashpot or hertz).
    #[arg(long, value_enum)]
    contact: Option<spheresim::scene::ContactModel>,
    /// Coulomb friction coefficient μ ≥ 0 for every sphere, plane and container (soft contact
    /// laws only).
    #[arg(long, value_name = "MU", allow_negative_numbers = true)]
    friction: Option<f64>,
}

#[derive(Args, Debug)]
struct ViewArgs {
    /// Built-in scene name (see `spheresim scenes`) or path to a scene file (.toml).
    scene: String,
    /// Backend that steps the scene (auto: the GPU unless it is a software one).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Number of spheres of a built-in scene (default: the scene's own).
    #[arg(long)]
    particles: Option<usize>,
    /// Quit after drawing N frames (for scripted runs).
    #[arg(long, value_name = "N")]
    exit_after_frames: Option<u64>,
    /// Fixed steps per frame (default: adapts so stepping takes about 20 ms a frame).
    #[arg(long, value_name = "K")]
    steps_per_frame: Option<u64>,
    /// Initial colouring (C cycles it in the window).
    #[arg(long, value_enum, default_value_t = spheresim::render::ColourMode::Material)]
    colour: spheresim::render::ColourMode,
    /// Start paused (space resumes).
    #[arg(long)]
    paused: bool,
    /// Accept initial overlaps deeper than 1 % of the smaller radius.
    #[arg(long)]
    allow_overlap: bool,
    #[command(flatten)]
    contact: ContactArgs,
}

#[derive(Args, Debug)]
struct RenderArgs {
    /// Built-in scene name (see `spheresim scenes`) or path to a scene file (.toml).
    scene: String,
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
    /// Number of spheres of a built-in scene (default: the scene's own).
    #[arg(long)]
    particles: Option<usize>,
    /// Number of steps to cover (default: the scene's `steps`).
    #[arg(long)]
    steps: Option<u64>,
    /// Backend that steps the scene (auto: the GPU unless it is a software one).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Camera position x,y,z in m (default: framed from the scene's bounds).
    #[arg(long, value_name = "X,Y,Z", value_parser = spheresim::render::frames::parse_vec3, allow_hyphen_values = true)]
    eye: Option<glam::Vec3>,
    /// Point looked at x,y,z in m (default: the centre of the scene's bounds).
    #[arg(long, value_name = "X,Y,Z", value_parser = spheresim::render::frames::parse_vec3, allow_hyphen_values = true)]
    target: Option<glam::Vec3>,
    /// Vertical field of view, degrees (default: 45).
    #[arg(long, value_name = "DEG")]
    fov: Option<f32>,
    /// Sphere colouring.
    #[arg(long, value_enum, default_value_t = spheresim::render::ColourMode::Material)]
    colour: spheresim::render::ColourMode,
    /// Accept initial overlaps deeper than 1 % of the smaller radius.
    #[arg(long)]
    allow_overlap: bool,
    #[command(flatten)]
    contact: ContactArgs,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// `spheresim bench`: see `spheresim::bench`.
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
struct RunArgs {
    /// Built-in scene name (see `spheresim scenes`) or path to a scene file (.toml).
    scene: String,
    /// Backend that steps the scene.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Number of steps (default: the scene's `steps`).
    #[arg(long)]
    steps: Option<u64>,
    /// Time step in seconds (default: the scene's `dt`).
    #[arg(long, allow_negative_numbers = true)]
    dt: Option<f64>,
    /// Number of spheres of a built-in scene (default: the scene's own).
    #[arg(long)]
    particles: Option<usize>,
    /// Write the final state as CSV (`id,x,y,z,vx,vy,vz,radius,mass`, input order).
    #[arg(long = "final", value_name = "FILE.csv")]
    final_csv: Option<PathBuf>,
    /// Directory for snapshots: snapshot_{step:08}.csv, .vtk (legacy) and .vtp, the ParaView
    /// series lists series.pvd (.vtp) and series.vtk.series (.vtk), and diagnostics.csv.
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
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
    /// Accept initial overlaps deeper than 1 % of the smaller radius.
    #[arg(long)]
    allow_overlap: bool,
    #[command(flatten)]
    contact: ContactArgs,
    /// No progress bar (the summary is still printed).
    #[arg(long, short)]
    quiet: bool,
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
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Scenes => {
            print_scenes();
            Ok(0)
        }
        Command::Run(args) => run(args),
        Command::Bench(args) => bench(args),
        Command::Validate(args) => run_validate(args),
        Command::View(args) => view(args),
        Command::Render(args) => render(args),
    };
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}

fn print_scenes() {
    for s in builtin::list() {
        println!(
            "{:<12} {:>9} spheres by default  {}",
            s.name, s.default_particles, s.summary
        );
    }
}

/// Loads a built-in scene or a scene file and applies the command-line overrides.
fn load_scene(src: SceneSource<'_>) -> Result<Scene> {
    let path = Path::new(src.scene);
    let is_file = src.scene.ends_with(".toml") || path.is_file();
    let mut scene = if is_file {
        if src.particles.is_some() {
            bail!(
                "--particles applies to built-in scenes only, not to the file {}",
                src.scene
            );
        }
        Scene::load(path)?
    } else if let Some(d) = src.digits.filter(|_| src.scene == "pi-blocks") {
        if src.particles.is_some_and(|n| n != 2) {
            bail!("--particles: pi-blocks has exactly 2 spheres; its size is set by --digits");
        }
        builtin::pi_blocks(d)?
    } else {
        builtin::build(src.scene, src.particles)?
    };
    if src.digits.is_some() && (is_file || src.scene != "pi-blocks") {
        bail!(
            "--digits applies to the built-in scene pi-blocks only, not to {}",
            src.scene
        );
    }
    if let Some(steps) = src.steps {
        scene.sim.steps = steps;
    }
    if let Some(dt) = src.dt {
        scene.sim.dt = dt;
    }
    if let Some(c) = src.contact {
        if let Some(model) = c.contact {
            scene.sim.contact = model;
        }
        if let Some(mu) = c.friction {
            if !scene.sim.contact.is_soft() {
                bail!(
                    "--friction {mu}: the impulse contact law has no friction; choose a soft law \
                     with --contact hertz or --contact spring-dashpot"
                );
            }
            scene.sim.surface.friction = mu;
            for s in &mut scene.spheres {
                s.surface.friction = mu;
            }
            for p in &mut scene.planes {
                p.surface.friction = mu;
            }
            for c in &mut scene.containers {
                c.surface.friction = mu;
            }
        }
    }
    scene.check(&CheckOptions {
        allow_overlap: src.allow_overlap,
    })?;
    if let Some(w) = scene.time_step_warning() {
        eprintln!("warning: {}: {w}", scene.name);
    }
    Ok(scene)
}

/// Where a command's scene comes from, with the command-line overrides (`run`, `view`, `render`).
#[derive(Default)]
struct SceneSource<'a> {
    scene: &'a str,
    particles: Option<usize>,
    digits: Option<u32>,
    steps: Option<u64>,
    dt: Option<f64>,
    allow_overlap: bool,
    contact: Option<&'a ContactArgs>,
}

/// Relative change `(b − a)/|a|`, or absolute when `a` is zero.
fn drift(a: f64, b: f64) -> f64 {
    if a != 0.0 { (b - a) / a.abs() } else { b - a }
}

fn run(args: RunArgs) -> Result<i32> {
    let scene = load_scene(SceneSource {
        scene: &args.scene,
        particles: args.particles,
        digits: args.digits,
        steps: args.steps,
        dt: args.dt,
        allow_overlap: args.allow_overlap,
        contact: Some(&args.contact),
    })?;
    // Every output path is checked before stepping starts, so a bad one costs nothing.
    for p in [&args.final_csv, &args.stats_json].into_iter().flatten() {
        output::check_writable_file(p)?;
    }
    if args.every.is_some() && args.output.is_none() {
        bail!("--every needs --output DIR");
    }
    if args.every == Some(0) {
        bail!("--every must be at least 1");
    }
    let steps = scene.sim.steps;
    let every = args.every.unwrap_or((steps / 20).max(1));
    let mut series = match &args.output {
        Some(dir) => Some(SeriesWriter::new(dir)?.with_legacy_vtk(true)),
        None => None,
    };

    let setup = Instant::now();
    let mut sim = Simulation::new(&scene, args.backend, args.precision)?;
    if let Some(notice) = sim.notice() {
        eprintln!("notice: {notice}");
    }
    let n = sim.particles();
    // The event-driven solver computes in f64 whatever --precision says.
    let precision = if sim.backend() == Backend::Event {
        Precision::F64
    } else {
        args.precision
    };
    eprintln!(
        "{}: {} spheres, {} planes{}, {} steps of {} s ({} s simulated), {} contact, backend {} on {}, {}; set up in {:.2} s",
        scene.name,
        n,
        scene.planes.len(),
        match scene.containers.len() {
            0 => String::new(),
            k => format!(", {k} spherical container{}", if k == 1 { "" } else { "s" }),
        },
        steps,
        scene.sim.dt,
        steps as f64 * scene.sim.dt,
        scene.sim.contact,
        sim.backend(),
        sim.adapter(),
        precision,
        setup.elapsed().as_secs_f64()
    );

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("installing the Ctrl-C handler")?;
    }

    let initial = sim.diagnostics();
    let mut log: Vec<Diagnostics> = vec![initial];
    if let Some(s) = series.as_mut() {
        s.write(&sim.snapshot())?;
        write_diagnostics_log(args.output.as_deref().unwrap(), &log)?;
    }

    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(steps);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps  {per_sec}  eta {eta}",
            )
            .expect("valid template"),
        );
        b
    };
    // Step in chunks sized for about ten progress updates per second.
    let mut chunk: u64 = 1;
    let mut interrupted = false;
    while sim.steps_done() < steps {
        if stop.load(Ordering::SeqCst) {
            interrupted = true;
            break;
        }
        let done = sim.steps_done();
        let next_snapshot = if series.is_some() {
            (done / every + 1) * every
        } else {
            u64::MAX
        };
        let k = chunk.min(steps - done).min(next_snapshot - done);
        let t0 = Instant::now();
        if let Err(e) = sim.step(k) {
            bar.abandon();
            return Err(e.into());
        }
        let dt = t0.elapsed();
        if dt < Duration::from_millis(50) {
            chunk = (chunk * 2).min(1 << 20);
        } else if dt > Duration::from_millis(200) && chunk > 1 {
            chunk /= 2;
        }
        bar.set_position(sim.steps_done());
        if let Some(s) = series.as_mut() {
            let d = sim.steps_done();
            if d % every == 0 || d == steps {
                s.write(&sim.snapshot())?;
                log.push(sim.diagnostics());
                write_diagnostics_log(args.output.as_deref().unwrap(), &log)?;
            }
        }
    }
    bar.finish_and_clear();

    let stats = sim.step_stats();
    let fin = sim.diagnostics();
    let e0 = initial.total_energy();
    let e1 = fin.total_energy();
    let dp = (fin.momentum - initial.momentum).length();
    let p0 = initial.momentum.length();
    let dp_text = if p0 > 0.0 {
        format!("change {:.3e} relative", dp / p0)
    } else {
        format!("change {dp:.3e} kg m/s")
    };
    println!(
        "{} {} steps of {} spheres in {:.3} s: {:.3e} particle-steps/s (stepping only)",
        if interrupted {
            "interrupted after"
        } else {
            "ran"
        },
        stats.steps,
        n,
        stats.wall_seconds,
        stats.particle_steps_per_second
    );
    println!(
        "  energy: total {:.6e} -> {:.6e} J (change {:+.3e} relative), kinetic {:.6e} -> {:.6e} J",
        e0,
        e1,
        drift(e0, e1),
        initial.kinetic,
        fin.kinetic
    );
    if scene.sim.contact.is_soft() {
        let (b0, b1) = (initial.energy_balance(), fin.energy_balance());
        println!(
            "  dissipated by contact damping and friction: {:.6e} J; total + dissipated {b1:.6e} J (change {:+.3e} relative)",
            fin.dissipated - initial.dissipated,
            drift(b0, b1)
        );
        let dropped = fin
            .friction_history_dropped
            .saturating_sub(initial.friction_history_dropped);
        if dropped > 0 {
            eprintln!(
                "warning: {dropped} contact-steps lost their friction history (a sphere owned \
                 more than {} contacts): static friction is weaker there than the law says",
                spheresim::cpu::collide::HISTORY_SLOTS
            );
        }
    }
    println!(
        "  momentum: [{:.6e}, {:.6e}, {:.6e}] -> [{:.6e}, {:.6e}, {:.6e}] kg m/s ({dp_text})",
        initial.momentum.x,
        initial.momentum.y,
        initial.momentum.z,
        fin.momentum.x,
        fin.momentum.y,
        fin.momentum.z,
    );
    println!(
        "  collisions: {} resolved, {} contacts now",
        fin.collisions, fin.contacts
    );
    let stages: Vec<String> = sim
        .stage_seconds()
        .iter()
        .filter(|(_, t)| *t > 0.0)
        .map(|(name, t)| format!("{name} {t:.2} s"))
        .collect();
    if !stages.is_empty() {
        println!("  time by stage: {}", stages.join(", "));
    }

    if let Some(path) = &args.final_csv {
        output::write_csv(path, &sim.snapshot())?;
        println!("  final state: {}", path.display());
    }
    if let Some(path) = &args.stats_json {
        let st = RunStats::from_diagnostics(
            &scene.name,
            &sim.backend().to_string(),
            &sim.adapter(),
            &precision.to_string(),
            n,
            stats.steps,
            scene.sim.dt,
            stats.wall_seconds,
            &initial,
            &fin,
            interrupted,
        );
        output::write_stats_json(path, &st)?;
        println!("  stats: {}", path.display());
    }
    if let Some(dir) = &args.output {
        println!("  snapshots: {}/series.pvd", dir.display());
    }
    Ok(if interrupted { 130 } else { 0 })
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
    eprintln!(
        "spheresim bench {}: {} configurations, {} warm-up + {} × {} timed steps each",
        env!("CARGO_PKG_VERSION"),
        total,
        cfg.warmup,
        cfg.repeats,
        cfg.steps
    );
    // Other work on the machine skews every figure: say how busy it was at the start.
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let avg: Vec<&str> = load.split_whitespace().take(3).collect();
        eprintln!(
            "load average (1, 5, 15 min) before the run: {} on {} threads",
            avg.join(" "),
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
    }
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

/// Rewrites `DIR/diagnostics.csv` (atomically) with one row per diagnostics sample.
fn write_diagnostics_log(dir: &Path, log: &[Diagnostics]) -> Result<()> {
    output::write_energy_log(&dir.join("diagnostics.csv"), log)?;
    Ok(())
}

/// `spheresim validate`: the driver lives in the library ([`validate::run_cli`]).
fn run_validate(args: ValidateArgs) -> Result<i32> {
    validate::run_cli(args.backend, &args.cases, args.list, args.json.as_deref())
        .map_err(anyhow::Error::msg)
}

fn view(args: ViewArgs) -> Result<i32> {
    use spheresim::render::app::{ViewOptions, run_viewer};
    let scene = load_scene(SceneSource {
        scene: &args.scene,
        particles: args.particles,
        allow_overlap: args.allow_overlap,
        contact: Some(&args.contact),
        ..Default::default()
    })?;
    if args.steps_per_frame == Some(0) {
        bail!("--steps-per-frame must be at least 1");
    }
    let summary = run_viewer(
        scene,
        ViewOptions {
            backend: args.backend,
            exit_after_frames: args.exit_after_frames,
            colour: args.colour,
            steps_per_frame: args.steps_per_frame,
            paused: args.paused,
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
    let scene = load_scene(SceneSource {
        scene: &args.scene,
        particles: args.particles,
        steps: args.steps,
        allow_overlap: args.allow_overlap,
        contact: Some(&args.contact),
        ..Default::default()
    })?;
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
        backend: args.backend,
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
