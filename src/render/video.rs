//! `spheresim render --video FILE`: frames piped as raw RGBA to the `ffmpeg` program, which
//! encodes them into an MP4 (H.264, `libx264`) or WebM (VP9, `libvpx-vp9`) file.
//!
//! [`check_video`] checks everything that can be checked before any stepping: the extension, the
//! frame rate, the image size (H.264 in yuv420p needs an even width and height), that the
//! file's directory is writable, and that `ffmpeg` is on `PATH` with the encoder. A
//! [`VideoWriter`] then runs
//!
//! ```text
//! ffmpeg -hide_banner -nostats -loglevel error -y -f rawvideo -pix_fmt rgba -s WxH -r FPS -i - \
//!        -an -c:v ENCODER -pix_fmt yuv420p … -f mp4|webm .NAME.tmpXXXXXX.EXT
//! ```
//!
//! and writes each frame to its standard input. The video is written atomically: ffmpeg writes
//! a temporary file beside `FILE` (in the same directory, so the rename never crosses file
//! systems), which is renamed onto `FILE` only when ffmpeg exits with status 0. On any failure,
//! or when the writer is dropped unfinished, ffmpeg is stopped and the temporary file removed;
//! an existing `FILE` is left as it was. ffmpeg's standard error is captured, and a failure
//! quotes it.

use crate::output::{OutputError, check_writable_file};
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

/// The program run to encode, looked up on `PATH`.
pub const FFMPEG: &str = "ffmpeg";

/// Frames per second of the video when `--fps` is not given.
pub const DEFAULT_FPS: f64 = 30.0;

/// How to install ffmpeg, quoted by [`VideoError::FfmpegMissing`].
pub const FFMPEG_INSTALL_HINT: &str = "install it with `apt-get install ffmpeg` (Debian, \
     Ubuntu), `brew install ffmpeg` (macOS), or from https://ffmpeg.org/download.html";

/// A video could not be checked or written. Every message names the file and says why.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    /// The file's extension names no container this writer makes.
    #[error(
        "cannot write video {}: {}; the accepted extensions are .mp4 (H.264) and .webm (VP9)",
        path.display(),
        describe_extension(.ext)
    )]
    Extension {
        /// The video file.
        path: PathBuf,
        /// Its extension as given, with the dot (empty when it has none).
        ext: String,
    },
    /// The frame rate, the image size or a frame does not suit the video; the reason names it.
    #[error("cannot write video {}: {reason}", path.display())]
    Invalid {
        /// The video file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `ffmpeg` is not on `PATH`, or cannot be run.
    #[error(
        "cannot write video {}: the ffmpeg program is needed and was not found on PATH \
         ({reason}); {FFMPEG_INSTALL_HINT}",
        path.display()
    )]
    FfmpegMissing {
        /// The video file.
        path: PathBuf,
        /// Why it could not be run.
        reason: String,
    },
    /// The `ffmpeg` on `PATH` lacks the encoder the container needs.
    #[error(
        "cannot write video {}: the ffmpeg on PATH has no {encoder} encoder (its \
         `ffmpeg -encoders` does not list it); install an ffmpeg built with it: {FFMPEG_INSTALL_HINT}",
        path.display()
    )]
    EncoderMissing {
        /// The video file.
        path: PathBuf,
        /// The encoder, e.g. `libx264`.
        encoder: &'static str,
    },
    /// ffmpeg failed while encoding, or exited with a non-zero status.
    #[error("cannot write video {}: ffmpeg failed ({status}): {message}", path.display())]
    Ffmpeg {
        /// The video file.
        path: PathBuf,
        /// How ffmpeg ended, e.g. `exit status: 1`.
        status: String,
        /// ffmpeg's standard error (trimmed), or what failed on this side.
        message: String,
    },
    /// The file's directory is not writable, or the temporary file could not be created or
    /// renamed onto the file.
    #[error(transparent)]
    Output(#[from] OutputError),
}

fn describe_extension(ext: &str) -> String {
    if ext.is_empty() {
        "the file name has no extension".to_string()
    } else {
        format!("unknown extension {ext:?}")
    }
}

/// The containers and codecs [`VideoWriter`] makes, chosen by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoFormat {
    /// `.mp4`: H.264 by `libx264`, pixel format yuv420p (even width and height only).
    Mp4,
    /// `.webm`: VP9 by `libvpx-vp9`, pixel format yuv420p, constant quality.
    Webm,
}

impl VideoFormat {
    /// The format for `path`'s extension, `.mp4` or `.webm` in any letter case.
    ///
    /// # Errors
    /// [`VideoError::Extension`] naming `path` for any other extension, or none.
    pub fn from_path(path: &Path) -> Result<Self, VideoError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("mp4") => Ok(VideoFormat::Mp4),
            Some("webm") => Ok(VideoFormat::Webm),
            _ => Err(VideoError::Extension {
                path: path.to_path_buf(),
                ext: path
                    .extension()
                    .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy())),
            }),
        }
    }

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            VideoFormat::Mp4 => "mp4",
            VideoFormat::Webm => "webm",
        }
    }

    /// The codec, as people name it: `H.264` or `VP9`.
    pub fn codec(self) -> &'static str {
        match self {
            VideoFormat::Mp4 => "H.264",
            VideoFormat::Webm => "VP9",
        }
    }

    /// The ffmpeg encoder: `libx264` or `libvpx-vp9`.
    pub fn encoder(self) -> &'static str {
        match self {
            VideoFormat::Mp4 => "libx264",
            VideoFormat::Webm => "libvpx-vp9",
        }
    }

    /// ffmpeg's output options after the input: codec, pixel format, quality and container.
    fn output_args(self) -> &'static [&'static str] {
        match self {
            VideoFormat::Mp4 => &[
                "-c:v",
                "libx264",
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
            ],
            VideoFormat::Webm => &[
                "-c:v",
                "libvpx-vp9",
                "-pix_fmt",
                "yuv420p",
                "-crf",
                "32",
                "-b:v",
                "0",
                "-deadline",
                "good",
                "-cpu-used",
                "4",
                "-row-mt",
                "1",
                "-f",
                "webm",
            ],
        }
    }
}

/// Parses `--fps`: frames per second of the video, a finite number above 0 (e.g. `30`,
/// `12.5`).
///
/// # Errors
/// A message quoting the input and saying what is wrong.
pub fn parse_fps(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of frames per second"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!(
            "{s:?}: frames per second must be a finite number above 0"
        ))
    }
}

fn check_fps(fps: f64) -> Result<(), String> {
    if fps.is_finite() && fps > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{} {fps}: frames per second must be a finite number above 0",
            crate::naming::Setting::Fps
        ))
    }
}

/// Checks, writing nothing, that a video of `width`×`height` pixels at `fps` frames per second
/// can be written at `path`: its extension is `.mp4` or `.webm`; `fps` is finite and above 0;
/// for `.mp4` the width and height are even (H.264 in yuv420p needs them so); `path` names a
/// file in an existing, writable directory ([`check_writable_file`]); and `ffmpeg` runs
/// (`ffmpeg -hide_banner -encoders`) and lists the format's encoder. Returns the format.
///
/// # Errors
/// [`VideoError::Extension`], [`VideoError::Invalid`] (frame rate, size),
/// [`VideoError::Output`] (the path or its directory), [`VideoError::FfmpegMissing`] (with the
/// install hint) or [`VideoError::EncoderMissing`], in that order of checking.
pub fn check_video(
    path: &Path,
    width: u32,
    height: u32,
    fps: f64,
) -> Result<VideoFormat, VideoError> {
    let format = VideoFormat::from_path(path)?;
    let invalid = |reason: String| VideoError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    check_fps(fps).map_err(invalid)?;
    if width == 0 || height == 0 {
        return Err(invalid(format!(
            "{width}x{height}: width and height must be at least 1"
        )));
    }
    if format == VideoFormat::Mp4 && (width % 2 == 1 || height % 2 == 1) {
        let even = |n: u32| if n % 2 == 1 { n + 1 } else { n };
        return Err(invalid(format!(
            "size {width}x{height}: H.264 (.mp4, yuv420p) needs an even width and height; \
             use e.g. {} {}x{}, or write .webm (VP9 takes odd sizes)",
            crate::naming::Setting::Size,
            even(width),
            even(height)
        )));
    }
    check_writable_file(path)?;
    check_encoder(path, format)?;
    Ok(format)
}

/// Runs `ffmpeg -hide_banner -encoders` and looks for `format`'s encoder in its list.
fn check_encoder(path: &Path, format: VideoFormat) -> Result<(), VideoError> {
    let out = Command::new(FFMPEG)
        .args(["-hide_banner", "-encoders"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| missing(path, &e))?;
    if !out.status.success() {
        return Err(VideoError::FfmpegMissing {
            path: path.to_path_buf(),
            reason: format!(
                "`{FFMPEG} -hide_banner -encoders` failed with {}: {}",
                out.status,
                trim_message(&String::from_utf8_lossy(&out.stderr))
            ),
        });
    }
    let list = String::from_utf8_lossy(&out.stdout);
    // Lines read ` V....D libx264   libx264 H.264 / AVC …`: flags, then the name.
    let listed = list
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some(format.encoder()));
    if listed {
        Ok(())
    } else {
        Err(VideoError::EncoderMissing {
            path: path.to_path_buf(),
            encoder: format.encoder(),
        })
    }
}

fn missing(path: &Path, e: &io::Error) -> VideoError {
    VideoError::FfmpegMissing {
        path: path.to_path_buf(),
        reason: if e.kind() == io::ErrorKind::NotFound {
            format!("no program `{FFMPEG}`")
        } else {
            format!("cannot run `{FFMPEG}`: {e}")
        },
    }
}

/// ffmpeg's standard error, trimmed to its last 20 lines.
fn trim_message(s: &str) -> String {
    let lines: Vec<&str> = s.trim().lines().collect();
    let tail = &lines[lines.len().saturating_sub(20)..];
    if tail.is_empty() {
        "no message".to_string()
    } else {
        tail.join("\n")
    }
}

/// What [`VideoWriter::finish`] wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoSummary {
    /// The video file.
    pub path: PathBuf,
    /// Container and codec.
    pub format: VideoFormat,
    /// Frames written.
    pub frames: u64,
    /// Frames per second.
    pub fps: f64,
    /// Frame size `(width, height)`, pixels.
    pub size: (u32, u32),
}

impl VideoSummary {
    /// Length of the video, seconds: frames / fps.
    pub fn duration_s(&self) -> f64 {
        self.frames as f64 / self.fps
    }
}

impl std::fmt::Display for VideoSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wrote video {} ({}, {}x{}): {} frames at {} frames/s, {:.2} s",
            self.path.display(),
            self.format.codec(),
            self.size.0,
            self.size.1,
            self.frames,
            self.fps,
            self.duration_s()
        )
    }
}

/// An `ffmpeg` process encoding frames pushed to it into a video file, atomically (see the
/// [module documentation](self)).
///
/// Dropping a writer that [`VideoWriter::finish`] has not consumed kills ffmpeg, waits for it
/// and removes the temporary file; the target file is not touched.
#[derive(Debug)]
pub struct VideoWriter {
    path: PathBuf,
    format: VideoFormat,
    width: u32,
    height: u32,
    fps: f64,
    frames: u64,
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Option<JoinHandle<Vec<u8>>>,
    /// The temporary file ffmpeg writes; removed when dropped.
    tmp: Option<tempfile::TempPath>,
}

impl VideoWriter {
    /// Starts ffmpeg to write a `width`×`height` video (pixels) at `fps` frames per second
    /// (e.g. [`DEFAULT_FPS`]) to `path`, the container and codec chosen by the extension
    /// ([`VideoFormat::from_path`]). Nothing appears at `path` before [`VideoWriter::finish`].
    ///
    /// # Errors
    /// Everything [`check_video`] checks; [`VideoError::Output`] when the temporary file
    /// cannot be created; [`VideoError::FfmpegMissing`] when ffmpeg cannot be started.
    pub fn new(path: &Path, width: u32, height: u32, fps: f64) -> Result<Self, VideoError> {
        let format = check_video(path, width, height, fps)?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut prefix = OsString::from(".");
        prefix.push(path.file_name().unwrap_or_default());
        prefix.push(".tmp");
        let suffix = format!(".{}", format.extension());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(&suffix);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let tmp = builder
            .tempfile_in(&dir)
            .map_err(|e| OutputError::Write {
                path: path.to_path_buf(),
                reason: format!(
                    "cannot create a temporary file in directory {}: {e}",
                    dir.display()
                ),
            })?
            .into_temp_path();
        let mut child = Command::new(FFMPEG)
            .args(["-hide_banner", "-nostats", "-loglevel", "error", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", "rgba", "-s"])
            .arg(format!("{width}x{height}"))
            .arg("-r")
            .arg(fps.to_string())
            .args(["-i", "-", "-an"])
            .args(format.output_args())
            .arg(tmp.as_os_str())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| missing(path, &e))?;
        let stdin = child.stdin.take();
        // Read stderr on its own thread, so that a chatty ffmpeg never blocks on a full pipe
        // while this side blocks writing frames.
        let stderr = child.stderr.take().map(|mut s| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = s.read_to_end(&mut buf);
                buf
            })
        });
        Ok(VideoWriter {
            path: path.to_path_buf(),
            format,
            width,
            height,
            fps,
            frames: 0,
            child,
            stdin,
            stderr,
            tmp: Some(tmp),
        })
    }

    /// The video file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames pushed so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Sends one frame to ffmpeg: `rgba` holds width × height pixels, 4 bytes each (red, green,
    /// blue, alpha; alpha is dropped), rows top to bottom, no padding.
    ///
    /// # Errors
    /// [`VideoError::Invalid`] when `rgba` has the wrong length; [`VideoError::Ffmpeg`] with
    /// ffmpeg's message when it has stopped taking frames. After an error the writer can only
    /// be dropped, which cleans up.
    pub fn push_frame(&mut self, rgba: &[u8]) -> Result<(), VideoError> {
        let want = 4 * self.width as usize * self.height as usize;
        if rgba.len() != want {
            return Err(VideoError::Invalid {
                path: self.path.clone(),
                reason: format!(
                    "frame {} has {} bytes, not {want} ({}x{} RGBA pixels)",
                    self.frames,
                    rgba.len(),
                    self.width,
                    self.height
                ),
            });
        }
        let result = match self.stdin.as_mut() {
            Some(s) => s.write_all(rgba),
            None => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "ffmpeg's input is closed",
            )),
        };
        match result {
            Ok(()) => {
                self.frames += 1;
                Ok(())
            }
            Err(e) => Err(self.failure(&format!("sending frame {}: {e}", self.frames))),
        }
    }

    /// Closes ffmpeg's input, waits for it to finish encoding, and renames the temporary file
    /// onto the video's path (replacing any file there) when ffmpeg exited with status 0.
    ///
    /// # Errors
    /// [`VideoError::Ffmpeg`] with ffmpeg's message when it exits non-zero (the temporary file
    /// is removed, an existing file at the path is untouched); [`VideoError::Output`] when the
    /// rename fails.
    pub fn finish(mut self) -> Result<VideoSummary, VideoError> {
        drop(self.stdin.take());
        let (status, message) = self.wait();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                return Err(self.ffmpeg_error(s.to_string(), message));
            }
            Err(e) => {
                return Err(self.ffmpeg_error("not known".into(), format!("waiting for it: {e}")));
            }
        }
        let tmp = self
            .tmp
            .take()
            .expect("temporary file is kept until finish");
        tmp.persist(&self.path).map_err(|e| OutputError::Write {
            path: self.path.clone(),
            reason: format!("cannot rename the temporary file onto it: {}", e.error),
        })?;
        #[cfg(unix)]
        if let Some(dir) = self.path.parent()
            && let Ok(d) = std::fs::File::open(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            })
        {
            let _ = d.sync_all();
        }
        Ok(VideoSummary {
            path: self.path.clone(),
            format: self.format,
            frames: self.frames,
            fps: self.fps,
            size: (self.width, self.height),
        })
    }

    /// Waits for ffmpeg to exit; returns its status and standard error (trimmed).
    fn wait(&mut self) -> (io::Result<ExitStatus>, String) {
        let status = self.child.wait();
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        (status, trim_message(&String::from_utf8_lossy(&stderr)))
    }

    /// The error after writing to ffmpeg failed (`what`): closes its input, waits for it and
    /// quotes its message, or `what` when it printed none.
    fn failure(&mut self, what: &str) -> VideoError {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let (status, message) = self.wait();
        let status = status.map_or_else(|e| format!("not known: {e}"), |s| s.to_string());
        let message = if message == "no message" {
            what.to_string()
        } else {
            format!("{message} (while {what})")
        };
        self.ffmpeg_error(status, message)
    }

    fn ffmpeg_error(&self, status: String, message: String) -> VideoError {
        VideoError::Ffmpeg {
            path: self.path.clone(),
            status,
            message,
        }
    }
}

impl Drop for VideoWriter {
    fn drop(&mut self) {
        if self.tmp.is_some() {
            drop(self.stdin.take());
            let _ = self.child.kill();
            let _ = self.child.wait();
            if let Some(h) = self.stderr.take() {
                let _ = h.join();
            }
            // `tmp`, dropped after this, removes the temporary file.
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_choose_the_format() {
        assert_eq!(
            VideoFormat::from_path(Path::new("a/b.mp4")).unwrap(),
            VideoFormat::Mp4
        );
        assert_eq!(
            VideoFormat::from_path(Path::new("b.WebM")).unwrap(),
            VideoFormat::Webm
        );
        let e = VideoFormat::from_path(Path::new("out/")).unwrap_err();
        assert!(e.to_string().contains("no extension"), "{e}");
        for p in ["x.avi", "x", "x.mp4.gif", ".mp4"] {
            let e = VideoFormat::from_path(Path::new(p))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(p) && e.contains(".mp4") && e.contains(".webm"),
                "{e}"
            );
        }
    }

    #[test]
    fn fps_must_be_finite_and_positive() {
        assert_eq!(parse_fps("30").unwrap(), 30.0);
        assert_eq!(parse_fps("12.5").unwrap(), 12.5);
        for s in ["0", "-1", "inf", "NaN", "x", ""] {
            assert!(parse_fps(s).is_err(), "{s} accepted");
        }
    }

    #[test]
    fn odd_sizes_are_refused_for_mp4_before_anything_runs() {
        let e = check_video(Path::new("/nonexistent/v.mp4"), 65, 48, 30.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("v.mp4") && e.contains("even") && e.contains("66x48"),
            "{e}"
        );
    }

    #[test]
    fn summary_gives_duration() {
        let s = VideoSummary {
            path: "v.webm".into(),
            format: VideoFormat::Webm,
            frames: 45,
            fps: 30.0,
            size: (64, 48),
        };
        assert_eq!(s.duration_s(), 1.5);
        assert_eq!(
            s.to_string(),
            "wrote video v.webm (VP9, 64x48): 45 frames at 30 frames/s, 1.50 s"
        );
    }
}
