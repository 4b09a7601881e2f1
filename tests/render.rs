//! The renderer on whatever adapter the environment gives (Mesa's lavapipe without a GPU):
//! offscreen images of small scenes checked against pixels computed from the camera, the
//! `render` command's files and errors, its camera following the spheres, the up axis, the
//! viewer's heads-up overlay, and the viewer under Xvfb. With `CI=true` a missing
//! adapter fails; elsewhere the GPU tests skip with a printed reason.

mod common;

use common::{gpu_available, sphere};
use glam::{DVec3, Vec3};
use spheresim::gpu::GpuContext;
use spheresim::render::colour::{BACKGROUND, linear_to_srgb8, material_colour, speed_colour};
use spheresim::render::offscreen::{OFFSCREEN_FORMAT, Offscreen};
use spheresim::render::{
    Camera, ColourMode, DrawSettings, OrbitCamera, SceneRenderer, Up, open_simulation,
};
use spheresim::scene::{Material, Scene, SimParams, Sphere};
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
        inserts: Vec::new(),
        outflows: Vec::new(),
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
    let mut renderer = SceneRenderer::new(&ctx.device, OFFSCREEN_FORMAT, scene, &sim);
    renderer.update(&ctx.device, &ctx.queue, &mut sim);
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
fn impostor_plane_and_hud_shaders_validate_with_naga() {
    for (name, src) in [
        ("impostor", include_str!("../shaders/impostor.wgsl")),
        ("plane", include_str!("../shaders/plane.wgsl")),
        ("hud", spheresim::render::hud::HUD_WGSL),
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

/// With rotation each sphere carries a marking turned by its orientation: a dark great circle
/// about the body's x axis. Seen along −z at the start it crosses the sphere's centre; a quarter
/// turn about y takes the body's x axis to the line of sight, so the circle moves to the rim and
/// the centre shows the plain colour.
fn marking_turns_with_the_sphere(backend: Backend) {
    let mut s = scene(&[(DVec3::ZERO, 1.0, 0)]);
    s.sim.rotation = true;
    s.sim.dt = 0.01;
    s.spheres[0].angular_velocity = DVec3::new(0.0, std::f64::consts::FRAC_PI_2, 0.0);
    let plain = srgb(material_colour(&s, Some(0)));
    let (cx, cy) = px(DVec3::ZERO);
    let (sx, sy) = px(DVec3::new(0.5, 0.0, 0.0));
    let start = draw_after(&s, backend, true, 0, ColourMode::Material);
    let dark = start.at(cx, cy);
    assert!(
        dark.iter()
            .zip(plain)
            .all(|(d, p)| (*d as i32) < p as i32 - 20),
        "{backend}: the centre at the start should be marked: {dark:?} vs plain {plain:?}"
    );
    assert_close(
        start.at(sx, sy),
        plain,
        &format!("{backend}: off the marking"),
    );
    // 100 steps of dt = 0.01 s at π/2 rad/s: a quarter turn.
    let turned = draw_after(&s, backend, true, 100, ColourMode::Material);
    assert_close(
        turned.at(cx, cy),
        plain,
        &format!("{backend}: the centre after a quarter turn"),
    );
    // Without rotation nothing is marked.
    s.sim.rotation = false;
    let still = draw_after(&s, backend, true, 0, ColourMode::Material);
    assert_close(still.at(cx, cy), plain, &format!("{backend}: no rotation"));
}

/// An open system's pass starts the backend again on other buffers, with other spheres: the
/// drawing binds what each pass leaves. Sphere b starts in an outflow box and leaves after step
/// 1; at the same pass an insertion puts a sphere of material a at (0, 1.5, 0), ±5 cm, which
/// takes b's place in the backend's order.
fn draws_what_each_pass_leaves(backend: Backend) {
    use spheresim::scene::{InsertAmount, InsertBuilder, InsertRegion, InsertSizes, Outflow};
    let material = |name: &str| {
        let mut m = Material::steel();
        m.name = name.into();
        m
    };
    let (a, b, new) = (
        DVec3::new(-2.0, 0.0, 0.0),
        DVec3::new(2.0, 0.0, 0.0),
        DVec3::new(0.0, 1.5, 0.0),
    );
    let s = Scene::builder()
        .name("render-open")
        .material(material("a"))
        .material(material("b"))
        .sphere(Sphere::new(a, 0.6).material("a"))
        .sphere(Sphere::new(b, 0.5).material("b"))
        .outflow(Outflow::of_box(DVec3::new(1.0, -1.0, -1.0), DVec3::new(3.0, 1.0, 1.0)).every(1))
        .insert(
            InsertBuilder::new(
                InsertRegion::Box {
                    min: new - DVec3::splat(0.35),
                    max: new + DVec3::splat(0.35),
                },
                InsertSizes::Fixed(0.3),
                InsertAmount::Count(1),
            )
            .every(1)
            .total(1)
            .material("a"),
        )
        .build()
        .unwrap();
    let ctx = GpuContext::new().expect("adapter");
    let mut sim = open_simulation(&s, backend, &ctx).expect("an open scene draws");
    let mut renderer = SceneRenderer::new(&ctx.device, OFFSCREEN_FORMAT, &s, &sim);
    let settings = DrawSettings {
        camera: camera(),
        colour: ColourMode::Material,
        flat: true,
    };
    let mut frame = |sim: &mut Simulation| {
        renderer.update(&ctx.device, &ctx.queue, sim);
        let target = Offscreen::new(&ctx.device, W, H, OFFSCREEN_FORMAT);
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        renderer.draw(&ctx.queue, &mut enc, &target.target(), &settings, sim);
        let rgba = target.finish_and_read(&ctx.device, &ctx.queue, enc);
        (renderer.instances(), Image { rgba })
    };
    let bg = BACKGROUND.map(linear_to_srgb8);
    let (want_a, want_b) = (
        srgb(material_colour(&s, Some(0))),
        srgb(material_colour(&s, Some(1))),
    );
    let at = |img: &Image, p: DVec3| {
        let (x, y) = px(p);
        img.at(x, y)
    };
    let (n, before) = frame(&mut sim);
    assert_eq!(n, 2, "{backend}: two spheres before the pass");
    assert_close(at(&before, a), want_a, &format!("{backend}: a before"));
    assert_close(at(&before, b), want_b, &format!("{backend}: b before"));
    assert_close(
        at(&before, new),
        bg,
        &format!("{backend}: nothing yet at the insertion"),
    );
    sim.step(1).unwrap();
    assert_eq!(sim.open_passes(), 1, "{backend}");
    let (n, after) = frame(&mut sim);
    assert_eq!(n, 2, "{backend}: b out, one in");
    assert_close(at(&after, a), want_a, &format!("{backend}: a after"));
    assert_close(at(&after, b), bg, &format!("{backend}: b has left"));
    assert_close(
        at(&after, new),
        want_a,
        &format!("{backend}: the inserted sphere"),
    );
}

#[test]
fn cpu_backend_images_match_the_camera() {
    if !gpu_available() {
        return;
    }
    separate_spheres(Backend::Cpu);
    depth_order(Backend::Cpu);
    follows_the_state(Backend::Cpu);
    marking_turns_with_the_sphere(Backend::Cpu);
    draws_what_each_pass_leaves(Backend::Cpu);
}

#[test]
fn gpu_backend_images_match_the_camera() {
    if !gpu_available() {
        return;
    }
    separate_spheres(Backend::Gpu);
    depth_order(Backend::Gpu);
    follows_the_state(Backend::Gpu);
    marking_turns_with_the_sphere(Backend::Gpu);
    draws_what_each_pass_leaves(Backend::Gpu);
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
        (&["--backend", "event"][..], "--backend"),
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

/// A ball dropped from 10 m (50 radii) onto a floor: with the camera following the spheres it is
/// in view in the last frame, after landing (the initial state's framing, the ball alone, saw
/// an empty image there). The floor is drawn translucent and dark; the lit ball is the only
/// bright thing.
#[test]
fn render_follows_a_ball_dropped_from_far_above() {
    if !gpu_available() {
        return;
    }
    use spheresim::render::frames::{RenderOptions, render_frames};
    let mut s = common::scene(
        vec![sphere(
            DVec3::new(0.0, 10.0, 0.0),
            DVec3::ZERO,
            0.2,
            1.0,
            0.5,
        )],
        vec![common::plane(DVec3::ZERO, DVec3::Y, 0.5)],
        common::params(2e-3, 1000),
    );
    s.sim.gravity = DVec3::new(0.0, -9.81, 0.0);
    let dir = tempfile::tempdir().unwrap();
    let out = std::env::var_os("SPHERESIM_KEEP_IMAGES")
        .map_or_else(|| dir.path().to_path_buf(), std::path::PathBuf::from)
        .join("drop");
    let summary = render_frames(
        &s,
        &RenderOptions {
            frames: Some(4),
            every: None,
            width: 160,
            height: 120,
            out: out.clone(),
            eye: None,
            target: None,
            fov_deg: None,
            colour: ColourMode::Material,
            up: Up::Y,
            backend: Backend::Cpu,
            progress: false,
        },
    )
    .expect("render");
    assert_eq!(summary.frames, 4);
    for f in 0..4 {
        let rgba = read_png(&out.join(format!("frame_{f:05}.png")));
        let bright = rgba
            .chunks(4)
            .filter(|p| p[..3].iter().any(|&c| c > 120))
            .count();
        assert!(bright >= 20, "frame {f}: {bright} bright pixels");
    }
}

fn read_png(path: &Path) -> Vec<u8> {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    buf.truncate(info.buffer_size());
    buf
}

/// wall-break run to its end: the framing computed from the spheres' final positions keeps at
/// least 90 % of them in the image, though spray has flown far from the wall.
#[test]
fn wall_break_framing_keeps_most_spheres_in_view() {
    use spheresim::render::frames::ball_camera;
    use spheresim::render::framing::{follow, frame_target};
    let s = spheresim::scene::builtin::build("wall-break", Some(400)).unwrap();
    let mut sim = Simulation::new(&s, Backend::Cpu, spheresim::Precision::F32).unwrap();
    sim.step(s.sim.steps).unwrap();
    let snap = sim.snapshot();
    let n = snap.position.len();
    let in_view = |cam: &Camera| {
        snap.position
            .iter()
            .filter(|p| {
                cam.project(p.as_vec3(), 1280, 720)
                    .is_some_and(|q| (0.0..1280.0).contains(&q.x) && (0.0..720.0).contains(&q.y))
            })
            .count()
    };
    let t = frame_target(&s, &snap.position, &snap.radius).unwrap();
    let cam = ball_camera(follow(None, &t, 1.0), Up::Y, None, 16.0 / 9.0);
    let seen = in_view(&cam);
    assert!(seen * 10 >= n * 9, "{seen} of {n} in view");
    // The spray reached well beyond the wall's own extent (what the initial framing showed).
    let (lo, hi) = s.bounds().unwrap();
    let r0 = ((hi - lo) * 0.5).length();
    let c0 = (lo + hi) * 0.5;
    let far = snap
        .position
        .iter()
        .filter(|p| (**p - c0).length() > 1.5 * r0)
        .count();
    assert!(far > 0, "no sphere left the initial framing");
}

/// Each up axis appears up: a point above the target lands above the image centre, the eye is
/// above the horizon, and the orbit camera orbits about that axis.
#[test]
fn the_chosen_up_axis_appears_up() {
    use spheresim::render::camera::DEFAULT_FOV_DEG;
    use spheresim::render::frames::view_direction;
    for up in Up::ALL {
        let b = up.basis();
        assert!((b.determinant() - 1.0).abs() < 1e-6, "{up}: not a rotation");
        assert!(
            (b.transpose() * b).abs_diff_eq(glam::Mat3::IDENTITY, 1e-6),
            "{up}"
        );
        let u = up.vector();
        let cam = Camera::framing_sphere(
            Vec3::new(1.0, 2.0, 3.0),
            1.0,
            view_direction(up),
            up,
            DEFAULT_FOV_DEG,
            4.0 / 3.0,
        );
        assert!(
            (cam.eye - cam.target).dot(u) > 0.0,
            "{up}: eye below the horizon"
        );
        let c = cam.project(cam.target, W, H).unwrap();
        let above = cam.project(cam.target + 0.5 * u, W, H).unwrap();
        assert!(above.y < c.y - 10.0, "{up}: {above:?} vs centre {c:?}");
        assert!(
            (above.x - c.x).abs() < 1.0,
            "{up}: {above:?} vs centre {c:?}"
        );
        let mut orbit = OrbitCamera::framing_sphere(Vec3::ZERO, 1.0, view_direction(up), up, 1.5);
        assert!((orbit.offset_dir() - view_direction(up).normalize()).length() < 1e-5);
        let h0 = orbit.offset_dir().dot(u);
        orbit.rotate(200.0, 0.0);
        assert!(
            (orbit.offset_dir().dot(u) - h0).abs() < 1e-5,
            "{up}: yaw changed the height"
        );
        let cam = orbit.camera();
        assert_eq!(cam.up, u, "{up}");
        // The command-line names.
        use clap::ValueEnum;
        assert_eq!(Up::from_str(up.label(), false), Ok(up));
    }
    assert_eq!(Up::default(), Up::Y);
    assert_eq!(Camera::look_at(Vec3::Z, Vec3::ZERO).up, Vec3::Y);
}

/// The viewer's heads-up overlay drawn offscreen: its backdrop darkens the corner, a glyph's
/// lit pixel is light, and the rest of the image is untouched.
#[test]
fn hud_overlay_draws_text_in_the_corner() {
    if !gpu_available() {
        return;
    }
    use spheresim::render::hud::{ADVANCE, HudOverlay, PAD};
    let ctx = GpuContext::new().expect("adapter");
    let target = Offscreen::new(&ctx.device, W, H, OFFSCREEN_FORMAT);
    let mut hud = HudOverlay::new(&ctx.device, OFFSCREEN_FORMAT);
    hud.set_text(&ctx.device, &ctx.queue, &["|1 fps".to_string()]);
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        // A mid-grey image to draw over.
        let _pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target.colour_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: 0.2,
                        g: 0.2,
                        b: 0.2,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
    }
    let (ox, oy, scale) = (10u32, 6u32, 2u32);
    hud.draw(
        &ctx.queue,
        &mut enc,
        &target.colour_view,
        (W, H),
        (ox, oy),
        scale,
    );
    let rgba = target.finish_and_read(&ctx.device, &ctx.queue, enc);
    let img = Image { rgba };
    if let Some(dir) = std::env::var_os("SPHERESIM_KEEP_IMAGES") {
        spheresim::render::offscreen::write_png(&Path::new(&dir).join("hud.png"), W, H, &img.rgba)
            .unwrap();
    }
    let grey = linear_to_srgb8(0.2);
    let at = |tx: u32, ty: u32| {
        img.at(
            (ox + tx * scale) as f32 + 0.5 * scale as f32,
            (oy + ty * scale) as f32 + 0.5 * scale as f32,
        )
    };
    // '|' lights column 2 of the first glyph, rows 0-6; column 0 is backdrop.
    for row in 0..7 {
        let p = at(PAD + 2, PAD + row);
        assert!(p.iter().all(|&c| c > 200), "text pixel row {row}: {p:?}");
    }
    let back = at(PAD, PAD);
    assert!(
        back.iter().all(|&c| c < grey),
        "backdrop {back:?} vs grey {grey}"
    );
    // Past the text (6 characters) and below it the image is untouched.
    let untouched = [
        at(2 * PAD + 6 * ADVANCE + 2, PAD),
        img.at(W as f32 - 2.0, H as f32 - 2.0),
        img.at(2.0, 60.0),
    ];
    for p in untouched {
        assert_close(p, [grey; 3], "outside the overlay");
    }
}

/// `spheresim render wall-break` without `--steps` spends its frames on the impact: the default
/// steps carry the freely flying ball's back face past the wall's back face (the whole passage
/// is drawn), and at least half of the default frames come before that moment. The scene's own
/// 1 500 steps put about a tenth of them there. Other built-in scenes keep their steps.
#[test]
fn render_defaults_cover_the_wall_break_impact() {
    use spheresim::render::frames::{default_steps, frame_plan};
    use spheresim::scene::builtin;
    for n in [17, 400, 2_000, 8_000, 20_000] {
        let s = builtin::build("wall-break", Some(n)).unwrap();
        let (k, ball) = s
            .spheres
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.radius.total_cmp(&b.1.radius))
            .unwrap();
        let back = s
            .spheres
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, w)| w.position.x + w.radius)
            .fold(f64::NEG_INFINITY, f64::max);
        // When the ball's back face passes the wall's back face, flying freely (the wall only
        // slows it, so this is the earliest the passage can end).
        let exit = (back - (ball.position.x - ball.radius)) / ball.velocity.x;
        let steps = default_steps(&s);
        assert!(
            steps <= s.sim.steps && steps as f64 * s.sim.dt >= exit,
            "{n} spheres: {steps} default steps of {} s end before the ball leaves the wall at \
             {exit} s (the scene has {} steps)",
            s.sim.dt,
            s.sim.steps
        );
        let (frames, every) = frame_plan(steps, None, None).unwrap();
        let during = (0..frames)
            .filter(|f| (f * every).min(steps) as f64 * s.sim.dt <= exit)
            .count() as u64;
        assert!(
            2 * during >= frames,
            "{n} spheres: only {during} of {frames} default frames before the ball leaves the \
             wall"
        );
    }
    for name in builtin::names() {
        if name != "wall-break" {
            let s = builtin::build(name, None).unwrap();
            assert_eq!(default_steps(&s), s.sim.steps, "{name}");
        }
    }
}
