//! The `spheresim` binary's subcommands, each a few library calls (a module of the binary, not of
//! the library); `main.rs` holds the clap definitions and calls one function per subcommand.

use super::{RenderArgs, RunArgs, ViewArgs};
use anyhow::{Context, Result, bail};
use spheresim::checkpoint::{self, Checkpoint};
use spheresim::run::{RunOptions, SceneOptions, SimRun, ctrl_c_flag};
use spheresim::{Backend, Precision, Scene};

/// `spheresim repose FILE`: prints the heap's angle of repose and what it was fitted to.
pub(crate) fn repose(file: &std::path::Path) -> Result<i32> {
    let snap = spheresim::output::csv::read_csv(file)
        .with_context(|| format!("cannot read the heap state {}", file.display()))?;
    let r = spheresim::repose::angle_of_repose(&snap)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    println!("angle of repose: {:.1} deg", r.angle_deg);
    println!(
        "  heap: {:.4} m high about the axis x = {:.4} m, y = {:.4} m; {} spheres in the file",
        r.height,
        r.axis.0,
        r.axis.1,
        snap.len()
    );
    println!(
        "  flank fitted from {:.4} m to {:.4} m from the axis ({} bins of {:.4} m, {:.0}-{:.0} % \
         of the height)",
        r.flank.0,
        r.flank.1,
        r.bins,
        r.bin,
        100.0 * spheresim::repose::FLANK.0,
        100.0 * spheresim::repose::FLANK.1
    );
    Ok(0)
}

/// Restores SIGPIPE's default action, which Rust's runtime sets to "ignore": a command that
/// only prints then ends quietly when its reader goes away (`spheresim scenes | head -1`),
/// killed by SIGPIPE like `cat` (a shell reports status 141), instead of panicking on the
/// failed write with exit 101. Not for `run` and `render`, whose pipes and FIFOs must give
/// errors, not a silent death.
pub(crate) fn die_on_sigpipe() {
    #[cfg(unix)]
    {
        use nix::sys::signal::{SigHandler, Signal, signal};
        // SAFETY: restores the default action; no handler runs.
        let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
    }
}

/// Loads the scene and prints its time-step warning, if any.
pub(crate) fn load(opts: &SceneOptions) -> Result<Scene> {
    let scene = opts.load()?;
    if let Some(w) = scene.time_step_warning() {
        spheresim::note!("warning: {}: {w}", scene.name);
    }
    if let Some(w) = scene.gravity_solver_hint() {
        spheresim::note!("warning: {}: {w}", scene.name);
    }
    if let Some(w) = scene.rotation_hint() {
        spheresim::note!("warning: {}: {w}", scene.name);
    }
    Ok(scene)
}

pub(crate) fn run(args: RunArgs) -> Result<i32> {
    // Given on the command line, these replace the checkpoint's when resuming.
    let given = |opts: &mut RunOptions, args: &RunArgs| {
        if let Some(b) = args.backend {
            opts.backend = b;
        }
        if let Some(p) = args.precision {
            opts.precision = p;
        } else if args.backend == Some(Backend::Gpu) {
            // The GPU computes in f32: resuming an f64 checkpoint there converts it.
            opts.precision = Precision::F32;
        }
        if let Some(f) = &args.format {
            opts.formats = f.clone();
        }
        for (dst, src) in [
            (&mut opts.final_csv, &args.final_csv),
            (&mut opts.output, &args.output),
            (&mut opts.stats_json, &args.stats_json),
            (&mut opts.checkpoint, &args.checkpoint),
        ] {
            if src.is_some() {
                dst.clone_from(src);
            }
        }
        if args.every.is_some() {
            opts.every = args.every;
        }
        if args.checkpoint_every.is_some() {
            opts.checkpoint_every = args.checkpoint_every;
        }
        opts.allow_energy_drift = args.allow_energy_drift;
        opts.progress = !args.quiet;
        opts.progress_every = Some(args.progress_every);
    };
    let stop = ctrl_c_flag()?;
    if let Some(resume) = &args.resume {
        let path = checkpoint::resolve(resume)?;
        let ckpt = Checkpoint::read(&path)?;
        if resume.is_dir() {
            // The directory may hold checkpoints of other runs: say which one continues.
            spheresim::note!(
                "--resume {}: resuming scene {} at step {} from {}",
                resume.display(),
                ckpt.scene.name,
                ckpt.step,
                path.display()
            );
        }
        let mut scene = ckpt.scene.clone();
        if let Some(steps) = args.steps {
            scene.sim.steps = steps;
        }
        let mut opts = RunOptions::resumed(&ckpt);
        given(&mut opts, &args);
        let sim = SimRun::resume(&scene, &ckpt, &path, opts)?;
        // The checkpoint can be large; its state now lives in the backend.
        drop(ckpt);
        return execute(sim, &stop);
    }
    let mut opts = args.overrides.options(
        args.scene
            .as_deref()
            .expect("clap requires a scene without --resume"),
    );
    opts.steps = args.steps;
    opts.dt = args.dt;
    opts.digits = args.digits;
    opts.stepped_by = Some((
        args.backend.unwrap_or_default(),
        args.precision.unwrap_or_default(),
    ));
    let scene = load(&opts)?;
    let mut run_opts = RunOptions::default();
    given(&mut run_opts, &args);
    let sim = SimRun::new(&scene, run_opts)?;
    execute(sim, &stop)
}

/// Prints the notice and header, steps the run and prints its summary.
pub(crate) fn execute(sim: SimRun<'_>, stop: &std::sync::atomic::AtomicBool) -> Result<i32> {
    if let Some(notice) = sim.notice() {
        spheresim::note!("notice: {notice}");
    }
    spheresim::note!("{}", sim.header());
    let report = sim.execute(stop)?;
    // The files are written: a reader of the summary that went away (`| head -1`) or a closed
    // terminal costs the summary only, not the run's exit status.
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        if let Err(e) = write!(out, "{report}").and_then(|()| out.flush())
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            let _ = writeln!(std::io::stderr(), "warning: cannot print the summary: {e}");
        }
    }
    for w in report.warnings() {
        spheresim::note!("warning: {w}");
    }
    Ok(report.exit_code())
}

pub(crate) fn view(args: ViewArgs) -> Result<i32> {
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
    println!("{summary}");
    Ok(0)
}

pub(crate) fn render(args: RenderArgs) -> Result<i32> {
    use spheresim::render::frames::{RenderOptions, RenderOutputs, VideoOptions, render_to};
    use spheresim::render::video::DEFAULT_FPS;
    let mut scene_opts = args.scene.options();
    scene_opts.steps = args.steps;
    let mut scene = load(&scene_opts)?;
    if args.steps.is_none() {
        scene.sim.steps = spheresim::render::frames::default_steps(&scene);
    }
    let outputs = RenderOutputs {
        frames_dir: args.out.clone(),
        video: args.video.map(|path| VideoOptions {
            path,
            fps: args.fps.unwrap_or(DEFAULT_FPS),
        }),
    };
    let opts = RenderOptions {
        frames: args.frames,
        every: args.every,
        width: args.size.0,
        height: args.size.1,
        out: args.out.unwrap_or_default(),
        eye: args.eye,
        target: args.target,
        fov_deg: args.fov,
        colour: args.colour,
        up: args.up,
        backend: args.backend.into(),
        progress: !args.quiet,
    };
    let summary = render_to(&scene, &opts, &outputs)?;
    println!("{summary}");
    if summary.video.is_none()
        && let Some(cmd) = summary.ffmpeg_command(&scene.name)
    {
        println!("make a video with:\n  {cmd}");
    }
    Ok(0)
}
