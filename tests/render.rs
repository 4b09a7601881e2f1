//! The renderer on whatever adapter the environment gives (Mesa's lavapipe without a GPU):
//! offscreen images of small scenes checked against pixels computed from the camera, the
//! `render` command's files and errors, and the viewer under Xvfb. With `CI=true` a missing
//! adapter fails; elsewhere the GPU tests skip with a printed reason.

mod common;

use common::{gpu_available, sphere};
use glam::{DVec3, Vec3};
use spheresim::gpu::GpuContext;
use spheresim::render::colour::{BACKGROUND, linear_to_srgb8, material_colour, speed_colour};
use spheresim::render::offscreen::{OFFSCREEN_FORMAT, Offscreen};
use spheresim::render::{
    Camera, ColourMode, DrawSettings, OrbitCamera, SceneRenderer, open_simulation,
};
use spheresim::scene::{Material, Scene, SimParams};
use spheresim::{Backend, Simulation};
use std::path::Path;
use std::process::Command;

const W: u32 = 320;
const H: u32 = 240;

/// Spheres at rest with materials "a" (index 0) and "b" (index 1).
fn scene(spheres: &[(DVec3, f64, usize)]) -> Scene {
    let material = |name: &str| {
        let mut m = Material::steel();
        m.name = name.into();
        m
    };
    Scene {
        name: "render-test".into(),
        sim: SimParams::default(),
        materials: vec![material("a"), material("b")],
        containers: vec![],
        spheres: spheres
            .iter()
            .map(|&(p, r, m)| {
                let mut s = sphere(p, DVec3::ZERO, r, 1.0, 1.0);
                s.material = Some(m);
                s
            })
            .collect(),
        planes: vec![],
    }
}

fn camera() -> Camera {
    Camera::look_at(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO)
}

struct Image {
    rgba: Vec<u8>,
}

impl Image {
    fn at(&self, x: f32, y: f32) -> [u8; 3] {
        let (i, j) = (x.floor() as usize, y.floor() as usize);
        let k = 4 * (j * W as usize + i);
        [self.rgba[k], self.rgba[k + 1], self.rgba[k + 2]]
    }
}

fn draw(scene: &Scene, backend: Backend, flat: bool) -> Image {
    draw_after(scene, backend, flat, 0, ColourMode::Material)
}

fn draw_after(
    scene: &Scene,
    backend: Backend,
    flat: bool,
    steps: u64,
    colour: ColourMode,
) -> Image {
    let ctx = GpuContext::new().expect("adapter");
    let mut sim: Simulation = open_simulation(scene, backend, &ctx).expect("simulation");
    assert_eq!(sim.backend(), backend);
    sim.step(steps).expect("steps");
    let target = Offscreen::new(&ctx.device, W, H, OFFSCREEN_FORMAT);
    let renderer = SceneRenderer::new(&ctx.device, OFFSCREEN_FORMAT, scene, &sim);
    renderer.update(&ctx.queue, &mut sim);
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    let settings = DrawSettings {
        camera: camera(),
        colour,
        flat,
    };
    renderer.draw(&ctx.queue, &mut enc, &target.target(), &settings, &sim);
    let rgba = target.finish_and_read(&ctx.device, &ctx.queue, enc);
    assert_eq!(rgba.len(), (4 * W * H) as usize);
    Image { rgba }
}

fn srgb(c: [f32; 3]) -> [u8; 3] {
    c.map(|x| linear_to_srgb8(x as f64))
}

fn assert_close(got: [u8; 3], want: [u8; 3], what: &str) {
    let ok = got
        .iter()
        .zip(want)
        .all(|(g, w)| (*g as i32 - w as i32).abs() <= 2);
    assert!(ok, "{what}: got {got:?}, expected {want:?} (±2)");
}

fn px(p: DVec3) -> (f32, f32) {
    let q = camera().project(p.as_vec3(), W, H).expect("in view");
    (q.x, q.y)
}

fn dominant(c: [u8; 3]) -> usize {
    (0..3).max_by_key(|&i| c[i]).unwrap()
}

#[test]
fn projection_puts_the_target_at_the_image_centre() {
    let cam = camera();
    let c = cam.project(Vec3::ZERO, W, H).unwrap();
    assert!((c.x - W as f32 / 2.0).abs() < 1e-3 && (c.y - H as f32 / 2.0).abs() < 1e-3);
    // +x is to the right, +y up (smaller pixel rows), and behind the eye is not projected.
    let r = cam.project(Vec3::X, W, H).unwrap();
    let u = cam.project(Vec3::Y, W, H).unwrap();
    assert!(r.x > c.x && (r.y - c.y).abs() < 1e-3);
    assert!(u.y < c.y && (u.x - c.x).abs() < 1e-3);
    assert!(cam.project(Vec3::new(0.0, 0.0, 20.0), W, H).is_none());
    // A nearer point has a smaller depth.
    let near = cam.project(Vec3::new(0.0, 0.0, 5.0), W, H).unwrap();
    assert!(near.z < c.z);
}

#[test]
fn orbit_camera_framing_keeps_the_view_direction_and_sees_the_box() {
    let (lo, hi) = (DVec3::new(-1.0, -2.0, 0.0), DVec3::new(3.0, 2.0, 1.0));
    let dir = Vec3::new(-0.8, 0.45, 1.0);
    let orbit = OrbitCamera::framing(lo, hi, dir, 16.0 / 9.0);
    let cam = orbit.camera();
    let off = (cam.eye - cam.target).normalize();
    assert!((off - dir.normalize()).length() < 1e-4, "{off:?}");
    for corner in 0..8 {
        let p = DVec3::new(
            if corner & 1 == 0 { lo.x } else { hi.x },
            if corner & 2 == 0 { lo.y } else { hi.y },
            if corner & 4 == 0 { lo.z } else { hi.z },
        );
        let q = cam.project(p.as_vec3(), 1600, 900).expect("corner in view");
        assert!(
            (0.0..1600.0).contains(&q.x) && (0.0..900.0).contains(&q.y),
            "corner {p} lands at {q:?}"
        );
    }
}

#[test]
fn impostor_and_plane_shaders_validate_with_naga() {
    for (name, src) in [
        ("impostor", include_str!("../shaders/impostor.wgsl")),
        ("plane", include_str!("../shaders/plane.wgsl")),
    ] {
        let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{name}: {e}"));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
}

/// Two separate spheres: background away from them, each one's flat colour at its projected
/// centre, and a lit sphere keeps its dominant channel.
fn separate_spheres(backend: Backend) {
    let (a, b) = (DVec3::new(-2.0, 0.5, 0.0), DVec3::new(2.0, -0.5, 0.0));
    let s = scene(&[(a, 0.6, 0), (b, 0.8, 1)]);
    let img = draw(&s, backend, true);
    let bg = BACKGROUND.map(linear_to_srgb8);
    // The image corners and the midpoint between the spheres see no sphere.
    for (x, y) in [
        (1.0, 1.0),
        (W as f32 - 2.0, H as f32 - 2.0),
        px(DVec3::ZERO),
    ] {
        assert_close(
            img.at(x, y),
            bg,
            &format!("{backend}: background at ({x}, {y})"),
        );
    }
    let (ax, ay) = px(a);
    let (bx, by) = px(b);
    let want_a = srgb(material_colour(&s, Some(0)));
    let want_b = srgb(material_colour(&s, Some(1)));
    assert_close(
        img.at(ax, ay),
        want_a,
        &format!("{backend}: sphere a's centre"),
    );
    assert_close(
        img.at(bx, by),
        want_b,
        &format!("{backend}: sphere b's centre"),
    );
    // Just inside and just outside b's silhouette along +x (its radius projected at its depth,
    // widened by the perspective factor d/sqrt(d² − r²), which is under 1 % here).
    let edge = camera()
        .project((b + DVec3::X * 0.8).as_vec3(), W, H)
        .unwrap()
        .x;
    assert_close(
        img.at(edge - 2.0, by),
        want_b,
        &format!("{backend}: inside b's edge"),
    );
    assert_close(
        img.at(edge + 3.0, by),
        bg,
        &format!("{backend}: outside b's edge"),
    );

    let lit = draw(&s, backend, false);
    let got = lit.at(ax, ay);
    assert_eq!(
        dominant(got),
        dominant(want_a),
        "{backend}: lit sphere a at its centre is {got:?}, its colour {want_a:?}"
    );
    assert_close(lit.at(1.0, 1.0), bg, &format!("{backend}: lit background"));
}

/// Overlapping in the image: the nearer sphere shows wherever both project, whichever is drawn
/// first; and a sphere whose centre lies inside a larger one is hidden by its surface (the depth
/// is the ray–sphere hit, not the quad's).
fn depth_order(backend: Backend) {
    let far = DVec3::new(0.0, 0.0, 0.0);
    let near = DVec3::new(0.5, 0.0, 3.0);
    for order in [
        [(far, 1.0, 0), (near, 0.6, 1)],
        [(near, 0.6, 1), (far, 1.0, 0)],
    ] {
        let s = scene(&order);
        let img = draw(&s, backend, true);
        let (nx, ny) = px(near);
        assert_close(
            img.at(nx, ny),
            srgb(material_colour(&s, Some(1))),
            &format!("{backend}: nearer sphere in front (draw order {order:?})"),
        );
        // A point of the far sphere outside the near one's disc.
        let (fx, fy) = px(far - DVec3::X * 0.8);
        assert_close(
            img.at(fx, fy),
            srgb(material_colour(&s, Some(0))),
            &format!("{backend}: far sphere beside the near one"),
        );
    }
    // Small sphere (r 0.3) centred 1.5 m inside a big one (r 2): its front at z = 1.8 is behind
    // the big one's surface at z = 2, though its quad (z = 1.5) is in front of the big one's
    // (z = 0).
    let s = scene(&[(DVec3::ZERO, 2.0, 0), (DVec3::new(0.0, 0.0, 1.5), 0.3, 1)]);
    let img = draw(&s, backend, true);
    let (cx, cy) = px(DVec3::new(0.0, 0.0, 1.5));
    assert_close(
        img.at(cx, cy),
        srgb(material_colour(&s, Some(0))),
        &format!("{backend}: sphere inside a larger one is hidden"),
    );
}

/// The image follows the simulation. A sphere starting at rest falls under g = 2 m/s² with
/// dt = 0.5 s; coloured by speed, it must show the speed after the step's second half kick (the
/// GPU backend's two state sets differ exactly there, and they swap every step, so 1 and 2 steps
/// check both parities) at the leapfrog position. Another sphere at 8 m/s sets the speed scale
/// to 4 m/s (half the fastest initial speed).
fn follows_the_state(backend: Backend) {
    let start = DVec3::new(-1.0, 0.0, 0.0);
    let mut s = scene(&[(start, 0.6, 0), (DVec3::new(0.0, 3.0, 0.0), 0.5, 1)]);
    s.spheres[1].velocity = DVec3::new(0.0, 8.0, 0.0);
    s.sim.dt = 0.5;
    s.sim.gravity = DVec3::new(0.0, -2.0, 0.0);
    let bg = BACKGROUND.map(linear_to_srgb8);
    // Kick–drift–kick: after step 1 y = −0.25 m, v = 1 m/s; after step 2 y = −1 m, v = 2 m/s.
    for (steps, y, v) in [(1u64, -0.25, 1.0f32), (2, -1.0, 2.0)] {
        let img = draw_after(&s, backend, true, steps, ColourMode::Speed);
        let now = start + DVec3::Y * y;
        let (x, yy) = px(now);
        let want = srgb(speed_colour(v / 4.0));
        assert_close(
            img.at(x, yy),
            want,
            &format!("{backend}: speed colour after {steps} steps"),
        );
        let (x0, y0) = px(now + DVec3::Y * 0.9);
        assert_close(
            img.at(x0, y0),
            bg,
            &format!("{backend}: above the sphere after {steps} steps"),
        );
    }
}

#[test]
fn cpu_backend_images_match_the_camera() {
    if !gpu_available() {
        return;
    }
    separate_spheres(Backend::Cpu);
    depth_order(Backend::Cpu);
    follows_the_state(Backend::Cpu);
}

#[test]
fn gpu_backend_images_match_the_camera() {
    if !gpu_available() {
        return;
    }
    separate_spheres(Backend::Gpu);
    depth_order(Backend::Gpu);
    follows_the_state(Backend::Gpu);
}

/// A private runtime directory (lavapipe complains when XDG_RUNTIME_DIR is unusable).
fn xdg_dir() -> std::path::PathBuf {
    let xdg = std::env::temp_dir().join("spheresim-xdg");
    let _ = std::fs::create_dir_all(&xdg);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&xdg, std::fs::Permissions::from_mode(0o700));
    }
    xdg
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_spheresim"));
    c.env("XDG_RUNTIME_DIR", xdg_dir());
    c
}

fn png_size(path: &Path) -> (u32, u32) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let reader = dec.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height)
}

#[test]
fn render_command_writes_numbered_frames_and_the_ffmpeg_line() {
    if !gpu_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frames");
    let o = bin()
        .args([
            "render",
            "two-spheres",
            "--steps",
            "40",
            "--frames",
            "3",
            "--size",
            "64x48",
            "-q",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["frame_00000.png", "frame_00001.png", "frame_00002.png"]
    );
    for n in &names {
        assert_eq!(png_size(&out.join(n)), (64, 48), "{n}");
    }
    assert!(stdout.contains("every 20 steps"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "ffmpeg -framerate 30 -i {}/frame_%05d.png",
            out.display()
        )),
        "{stdout}"
    );
}

#[test]
fn render_command_rejects_an_unusable_output_directory_naming_it() {
    if !gpu_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let o = bin()
        .args(["render", "two-spheres", "--out"])
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

/// Checked before any adapter is opened or anything is written.
#[test]
fn render_command_rejects_bad_options_naming_them_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new");
    for (args, needle) in [
        (&["--size", "640"][..], "WIDTHxHEIGHT"),
        (&["--size", "0x10"][..], "positive"),
        (&["--frames", "0"][..], "--frames"),
        (&["--every", "0"][..], "--every"),
        (&["--fov", "200"][..], "--fov"),
        (&["--eye", "1,2"][..], "x,y,z"),
        (&["--backend", "event"][..], "cannot be drawn"),
    ] {
        let o = bin()
            .args(["render", "two-spheres", "--out"])
            .arg(&out)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} created the output directory");
    }
}

/// `spheresim view` opens a window under Xvfb, draws 30 frames and exits cleanly.
#[test]
fn viewer_draws_30_frames_under_xvfb() {
    if !gpu_available() {
        return;
    }
    let has_xvfb = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_xvfb {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true and xvfb-run is missing (Debian: xvfb xauth)");
        }
        eprintln!("SKIPPED: xvfb-run not found");
        return;
    }
    for backend in ["cpu", "gpu"] {
        let o = Command::new("xvfb-run")
            .arg("-a")
            .arg(env!("CARGO_BIN_EXE_spheresim"))
            .args([
                "view",
                "box-gas",
                "--particles",
                "500",
                "--exit-after-frames",
                "30",
            ])
            .args(["--backend", backend])
            .env("XDG_RUNTIME_DIR", xdg_dir())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{backend}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("viewer closed after 30 frames"),
            "{backend}: {stdout}\n{stderr}"
        );
        assert!(
            stdout.contains(&format!("backend {backend}")),
            "{backend}: {stdout}"
        );
    }
}

#[test]
fn viewer_without_a_display_says_so() {
    let o = bin()
        .args(["view", "two-spheres", "--exit-after-frames", "1"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot connect to a display"), "{err}");
    assert!(err.contains("spheresim render"), "{err}");
}

#[test]
fn default_frame_plan_covers_all_steps_without_an_extra_frame() {
    use spheresim::render::frames::{DEFAULT_FRAMES, frame_plan};
    for steps in [1u64, 2, 59, 60, 61, 1000, 1534, 20_000] {
        let (f, e) = frame_plan(steps, None, None).unwrap();
        assert!((2..=DEFAULT_FRAMES).contains(&f), "{steps}: {f} frames");
        // The last frame is at or past the last step, the one before it short of it.
        assert!((f - 1) * e >= steps, "{steps}: {f} frames every {e}");
        assert!((f - 2) * e < steps, "{steps}: {f} frames every {e}");
        let (f3, e3) = frame_plan(steps, Some(3), None).unwrap();
        assert_eq!(f3, 3);
        assert!(2 * e3 >= steps && e3 < steps.max(2), "{steps}: every {e3}");
    }
    assert_eq!(frame_plan(1000, None, Some(100)).unwrap(), (11, 100));
    assert_eq!(frame_plan(1000, Some(5), Some(7)).unwrap(), (5, 7));
    assert!(frame_plan(1000, Some(0), None).is_err());
    assert!(frame_plan(1000, None, Some(0)).is_err());
}

/// Colour by initial position: in wall-break every wall layer (same initial x) has one hue and
/// neighbouring layers differ, so the layers stay apart as the wall breaks.
#[test]
fn initial_position_colours_give_each_wall_layer_its_own_hue() {
    use spheresim::render::colour::initial_position_colours;
    let s = spheresim::scene::builtin::build("wall-break", Some(2000)).unwrap();
    let colours = initial_position_colours(&s);
    assert_eq!(colours.len(), s.spheres.len());
    // Hue as the colour divided by its largest channel (brightness varies within a layer).
    let hue = |c: [f32; 3]| {
        let m = c[0].max(c[1]).max(c[2]);
        c.map(|x| x / m)
    };
    let r = s.spheres[0].radius;
    let mut layers: Vec<(f64, [f32; 3])> = Vec::new();
    for (sp, c) in s.spheres.iter().zip(&colours) {
        if sp.radius > 2.0 * r {
            continue; // the ball
        }
        let h = hue(*c);
        match layers
            .iter()
            .find(|(x, _)| (x - sp.position.x).abs() < 0.1 * r)
        {
            Some((_, h0)) => assert!(
                h.iter().zip(h0).all(|(a, b)| (a - b).abs() < 1e-4),
                "layer at x = {}: hue {h:?} differs from {h0:?}",
                sp.position.x
            ),
            None => layers.push((sp.position.x, h)),
        }
    }
    assert!(layers.len() >= 4, "{} layers", layers.len());
    layers.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in layers.windows(2) {
        let d: f32 = w[0].1.iter().zip(&w[1].1).map(|(a, b)| (a - b).abs()).sum();
        assert!(
            d > 0.2,
            "layers at x = {} and {} look alike",
            w[0].0,
            w[1].0
        );
    }
}
