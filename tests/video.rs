//! `spheresim render --video FILE`: the built binary renders a small scene into MP4 (H.264) and
//! WebM (VP9) files, which `ffprobe` reads back (frame count, size, codec, frame rate), and
//! refuses, before stepping and writing nothing, an unknown extension, an odd size for MP4 and a
//! missing ffmpeg (with the install hint). A failing ffmpeg (a stand-in script) leaves an
//! existing file as it was and no temporary file behind.
//!
//! The tests that encode need ffmpeg and ffprobe on PATH and a GPU adapter (lavapipe will do) to
//! draw: with `CI=true` a missing one fails them; elsewhere they print why they skip.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary with `args` (and `PATH` set to `path` when given).
fn spheresim(args: &[&str], path: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spheresim"));
    cmd.args(args);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    cmd.output().expect("spawn spheresim")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts the run succeeded; returns its standard output.
fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Asserts the run failed with exit status 1; returns its standard error.
fn failed(out: &Output, what: &str) -> String {
    failed_with(out, 1, what)
}

/// Asserts the run failed with exit status `code` (2 for clap's usage errors); returns its
/// standard error.
fn failed_with(out: &Output, code: i32, what: &str) -> String {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what} should fail\nstdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}

/// Whether `ffmpeg` and `ffprobe` run. With `CI=true` their absence fails the test (CI installs
/// them); elsewhere it prints why the test skips.
fn ffmpeg_available() -> bool {
    let missing: Vec<&str> = ["ffmpeg", "ffprobe"]
        .into_iter()
        .filter(|t| {
            !Command::new(t)
                .arg("-version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and {missing:?} not on PATH: install ffmpeg");
    }
    eprintln!("SKIPPED: {missing:?} not on PATH (install ffmpeg)");
    false
}

/// What ffprobe reads from the video stream of `file`: `codec_name`, `width`, `height`,
/// `r_frame_rate` and `nb_read_frames` (frames counted by decoding).
fn probe(file: &Path) -> BTreeMap<String, String> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=nb_read_frames,width,height,codec_name,r_frame_rate",
        ])
        .args(["-of", "default=noprint_wrappers=1"])
        .arg(file)
        .output()
        .expect("run ffprobe");
    let s = ok(&out, &format!("ffprobe {}", file.display()));
    s.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn assert_probe(file: &Path, codec: &str, w: u32, h: u32, fps: &str, frames: u64) {
    let p = probe(file);
    let want: BTreeMap<String, String> = [
        ("codec_name", codec.to_string()),
        ("width", w.to_string()),
        ("height", h.to_string()),
        ("r_frame_rate", fps.to_string()),
        ("nb_read_frames", frames.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(p, want, "ffprobe {}", file.display());
}

const SMALL: [&str; 7] = [
    "--frames",
    "12",
    "--size",
    "64x48",
    "--backend",
    "cpu",
    "--quiet",
];

#[test]
fn mp4_holds_every_frame_in_h264() {
    if !ffmpeg_available() || !common::gpu_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.mp4");
    let mut args = vec!["render", "bounce", "--video", file.to_str().unwrap()];
    args.extend(SMALL);
    let stdout = ok(&spheresim(&args, None), "render --video x.mp4");
    assert_probe(&file, "h264", 64, 48, "30/1", 12);
    // The summary names the video, its frame count, rate and duration; no PNG directory, so no
    // "make a video with" hint.
    assert!(
        stdout.contains("drew 12 frames (64x48")
            && stdout.contains(&format!(
                "wrote video {} (H.264, 64x48): 12 frames at 30 frames/s, 0.40 s",
                file.display()
            ))
            && !stdout.contains("make a video with"),
        "{stdout}"
    );
    assert_eq!(entries(dir.path()), ["x.mp4"], "only the video is left");
}

/// `--out` and `--video` together: the PNG frames and a VP9 video of the same frames, at an
/// odd size (VP9 takes it) and 24 frames/s. Each decoded video frame is close to its PNG frame,
/// in order.
#[test]
fn webm_and_png_frames_together_in_vp9() {
    if !ffmpeg_available() || !common::gpu_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("y.webm");
    let frames = dir.path().join("frames");
    let stdout = ok(
        &spheresim(
            &[
                "render",
                "bounce",
                "--video",
                file.to_str().unwrap(),
                "--out",
                frames.to_str().unwrap(),
                "--fps",
                "24",
                "--frames",
                "12",
                "--size",
                "65x49",
                "--backend",
                "cpu",
                "--quiet",
            ],
            None,
        ),
        "render --video y.webm --out frames",
    );
    assert_probe(&file, "vp9", 65, 49, "24/1", 12);
    assert!(
        stdout.contains("wrote 12 frames (65x49, every ")
            && stdout.contains(&format!("to {}", frames.display()))
            && stdout.contains(&format!(
                "wrote video {} (VP9, 65x49): 12 frames at 24 frames/s, 0.50 s",
                file.display()
            ))
            && !stdout.contains("make a video with"),
        "{stdout}"
    );
    assert_eq!(entries(dir.path()), ["frames", "y.webm"]);
    assert_eq!(entries(&frames).len(), 12);

    // Decode the video to RGB and compare each frame with its PNG.
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&file)
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .expect("run ffmpeg");
    let raw = out.stdout;
    let px = 65 * 49;
    assert_eq!(raw.len(), 12 * px * 3, "{}", text(&out.stderr));
    let pngs: Vec<Vec<u8>> = (0..12)
        .map(|f| read_png_rgb(&frames.join(format!("frame_{f:05}.png"))))
        .collect();
    let diff = |a: &[u8], b: &[u8]| {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| f64::from(x.abs_diff(y)))
            .sum::<f64>()
            / a.len() as f64
    };
    let own: Vec<f64> = (0..12)
        .map(|f| diff(&raw[f * px * 3..(f + 1) * px * 3], &pngs[f]))
        .collect();
    for (f, d) in own.iter().enumerate() {
        assert!(
            *d < 6.0,
            "video frame {f} differs from its PNG by {d:.2} on average"
        );
    }
    // The frames differ from each other, so a frame out of order would be seen.
    let first_last = diff(&pngs[0], &pngs[11]);
    assert!(
        first_last > 2.0 * own[0].max(own[11]),
        "first and last PNG differ by only {first_last:.2}"
    );
}

/// The PNG at `path` as RGB bytes (alpha dropped).
fn read_png_rgb(path: &Path) -> Vec<u8> {
    let dec = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    buf.truncate(info.buffer_size());
    buf.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect()
}

/// An unknown extension is refused before anything is created: the PNG directory given with it
/// is not made either.
#[test]
fn unknown_extension_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("clip.avi");
    let frames = dir.path().join("frames");
    let mut args = vec![
        "render",
        "bounce",
        "--video",
        file.to_str().unwrap(),
        "--out",
        frames.to_str().unwrap(),
    ];
    args.extend(SMALL);
    let err = failed(&spheresim(&args, None), "--video clip.avi");
    assert!(
        err.contains(&file.display().to_string())
            && err.contains("\".avi\"")
            && err.contains(".mp4")
            && err.contains(".webm"),
        "{err}"
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// Without ffmpeg on PATH: the install hint, exit status 1, nothing written (not even the PNG
/// directory). The binary is run by its absolute path with PATH set to an empty directory.
#[test]
fn missing_ffmpeg_gives_the_install_hint_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.mp4");
    let frames = dir.path().join("frames");
    let mut args = vec![
        "render",
        "bounce",
        "--video",
        file.to_str().unwrap(),
        "--out",
        frames.to_str().unwrap(),
    ];
    args.extend(SMALL);
    let err = failed(
        &spheresim(&args, Some(empty.path())),
        "render without ffmpeg",
    );
    for want in [
        file.display().to_string().as_str(),
        "ffmpeg",
        "not found on PATH",
        "apt-get install ffmpeg",
        "brew install ffmpeg",
        "https://ffmpeg.org/download.html",
    ] {
        assert!(err.contains(want), "{want:?} missing from:\n{err}");
    }
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// H.264 in yuv420p needs an even width and height: an odd size is refused for `.mp4`, naming
/// the file and an even size to use, before anything is written.
#[test]
fn odd_size_is_refused_for_mp4() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("odd.mp4");
    let err = failed(
        &spheresim(
            &[
                "render",
                "bounce",
                "--video",
                file.to_str().unwrap(),
                "--frames",
                "2",
                "--size",
                "65x48",
                "--backend",
                "cpu",
                "--quiet",
            ],
            None,
        ),
        "--size 65x48 with .mp4",
    );
    assert!(
        err.contains(&file.display().to_string())
            && err.contains("even width and height")
            && err.contains("--size 66x48"),
        "{err}"
    );
    assert!(entries(dir.path()).is_empty());
}

/// The flags' own checks: one of `--out` and `--video` is needed; `--fps` must be a finite
/// number above 0 and needs `--video`.
#[test]
fn render_needs_an_output_and_a_good_frame_rate() {
    let err = failed_with(&spheresim(&["render", "bounce"], None), 2, "no output");
    assert!(err.contains("--out") && err.contains("--video"), "{err}");
    let err = failed_with(
        &spheresim(
            &["render", "bounce", "--video", "x.mp4", "--fps", "0"],
            None,
        ),
        2,
        "--fps 0",
    );
    assert!(err.contains("--fps") && err.contains("above 0"), "{err}");
    let err = failed_with(
        &spheresim(
            &["render", "bounce", "--video", "x.mp4", "--fps", "inf"],
            None,
        ),
        2,
        "--fps inf",
    );
    assert!(err.contains("above 0"), "{err}");
    let err = failed_with(
        &spheresim(
            &["render", "bounce", "--out", "frames", "--fps", "24"],
            None,
        ),
        2,
        "--fps without --video",
    );
    assert!(err.contains("--video"), "{err}");
    assert!(!Path::new("x.mp4").exists() && !Path::new("frames").exists());
}

/// A stand-in `ffmpeg` that lists the encoders, then writes part of its output file and fails:
/// the error quotes its message and names the file, the existing file keeps its contents, and
/// no temporary file is left.
#[cfg(unix)]
#[test]
fn failing_ffmpeg_leaves_an_existing_video_untouched() {
    use std::os::unix::fs::PermissionsExt;
    if !common::gpu_available() {
        return;
    }
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("ffmpeg");
    fs::write(
        &fake,
        "#!/bin/sh\n\
         case \"$*\" in *-encoders*) echo ' V....D libx264  libx264 H.264'; exit 0;; esac\n\
         for last; do :; done\n\
         echo partial > \"$last\"\n\
         /bin/cat > /dev/null\n\
         echo 'stand-in ffmpeg: encoding failed' >&2\n\
         exit 3\n",
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keep.mp4");
    fs::write(&file, "old video").unwrap();
    let mut args = vec!["render", "bounce", "--video", file.to_str().unwrap()];
    args.extend(SMALL);
    let err = failed(
        &spheresim(&args, Some(bin.path())),
        "render with failing ffmpeg",
    );
    assert!(
        err.contains(&file.display().to_string())
            && err.contains("stand-in ffmpeg: encoding failed")
            && err.contains("exit status: 3"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "old video");
    assert_eq!(entries(dir.path()), ["keep.mp4"], "temporary file left");
}
