//! Cameras: a look-at camera with a perspective projection, the orbit camera the viewer moves,
//! and the projection of a world point to pixels (tests compute expected pixels with it).
//!
//! # Which way is up
//! The world axis that appears up on screen is chosen with [`Up`] (`--up` of `spheresim view`
//! and `spheresim render`), +y by default. Gravity in the built-in scenes is −y (so +y is up)
//! except `wall-stand`, whose gravity is −z (`--up z` shows it standing). The default view
//! direction ([`super::DEFAULT_VIEW_DIRECTION`], written for +y up) is turned with the up axis
//! by [`Up::basis`], so the camera looks from above the horizon whichever axis is up.

use glam::{DVec3, Mat3, Mat4, Vec3, Vec4Swizzles};

/// Default vertical field of view, degrees.
pub const DEFAULT_FOV_DEG: f32 = 45.0;

/// The world axis that appears up on screen (`--up`; default +y, against the built-in scenes'
/// gravity). Command-line names `x`, `y`, `z`, `-x`, `-y`, `-z`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Up {
    /// +x up.
    #[cfg_attr(feature = "cli", value(name = "x"))]
    X,
    /// +y up (default).
    #[default]
    #[cfg_attr(feature = "cli", value(name = "y"))]
    Y,
    /// +z up.
    #[cfg_attr(feature = "cli", value(name = "z"))]
    Z,
    /// −x up.
    #[cfg_attr(feature = "cli", value(name = "-x"))]
    NegX,
    /// −y up.
    #[cfg_attr(feature = "cli", value(name = "-y"))]
    NegY,
    /// −z up.
    #[cfg_attr(feature = "cli", value(name = "-z"))]
    NegZ,
}

impl Up {
    /// All six, in the order of the command-line help.
    pub const ALL: [Up; 6] = [Up::X, Up::Y, Up::Z, Up::NegX, Up::NegY, Up::NegZ];

    /// Unit vector of the axis.
    pub fn vector(self) -> Vec3 {
        self.basis().y_axis
    }

    /// The rotation that takes +y to this axis by the shortest turn (a half turn about +x for
    /// −y); its columns are where +x, +y and +z of the +y-up view go. Turns
    /// [`super::DEFAULT_VIEW_DIRECTION`] and the orbit camera's angles into world directions.
    pub fn basis(self) -> Mat3 {
        let (x, y, z) = match self {
            Up::Y => (Vec3::X, Vec3::Y, Vec3::Z),
            // Quarter turn about +x.
            Up::Z => (Vec3::X, Vec3::Z, Vec3::NEG_Y),
            // Quarter turn about −x.
            Up::NegZ => (Vec3::X, Vec3::NEG_Z, Vec3::Y),
            // Quarter turn about −z.
            Up::X => (Vec3::NEG_Y, Vec3::X, Vec3::Z),
            // Quarter turn about +z.
            Up::NegX => (Vec3::Y, Vec3::NEG_X, Vec3::Z),
            // Half turn about +x.
            Up::NegY => (Vec3::X, Vec3::NEG_Y, Vec3::NEG_Z),
        };
        Mat3::from_cols(x, y, z)
    }

    /// The command-line name: `x`, `y`, `z`, `-x`, `-y` or `-z`.
    pub fn label(self) -> &'static str {
        match self {
            Up::X => "x",
            Up::Y => "y",
            Up::Z => "z",
            Up::NegX => "-x",
            Up::NegY => "-y",
            Up::NegZ => "-z",
        }
    }
}

impl std::fmt::Display for Up {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A pinhole camera looking from `eye` at `target`, right-handed, depth in [0, 1] (wgpu).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Position, m.
    pub eye: Vec3,
    /// Point looked at, m.
    pub target: Vec3,
    /// World direction that appears up (default: +y; see [`Up`]).
    pub up: Vec3,
    /// Vertical field of view, degrees (default: [`DEFAULT_FOV_DEG`]).
    pub fov_y_deg: f32,
    /// Near clip distance, m (> 0).
    pub near: f32,
    /// Far clip distance, m (> `near`).
    pub far: f32,
}

impl Camera {
    /// A camera at `eye` looking at `target` with +y up, the default field of view, and clip
    /// distances that keep everything within `4 |eye − target|` of the eye.
    pub fn look_at(eye: Vec3, target: Vec3) -> Self {
        Self::look_at_up(eye, target, Up::Y)
    }

    /// [`Camera::look_at`] with `up` appearing up; looking straight along it, the image of +z
    /// under [`Up::basis`] appears up instead.
    pub fn look_at_up(eye: Vec3, target: Vec3, up: Up) -> Self {
        let d = (eye - target).length().max(1e-6);
        let basis = up.basis();
        let mut up = basis.y_axis;
        if (eye - target).normalize_or_zero().cross(up).length() < 1e-3 {
            up = basis.z_axis;
        }
        Self {
            eye,
            target,
            up,
            fov_y_deg: DEFAULT_FOV_DEG,
            near: d * 1e-3,
            far: d * 4.0,
        }
    }

    /// Frames the box `lo..hi` (m) from `direction` (from the box's centre towards the eye):
    /// the box's bounding sphere fits the narrower of the two fields of view of an image of
    /// aspect `width / height`, with 10 % margin.
    pub fn framing(lo: DVec3, hi: DVec3, direction: Vec3, aspect: f32) -> Self {
        let centre = ((lo + hi) * 0.5).as_vec3();
        let radius = ((hi - lo) * 0.5).length() as f32;
        Self::framing_sphere(centre, radius, direction, Up::Y, DEFAULT_FOV_DEG, aspect)
    }

    /// Frames the ball of `radius` (m) about `centre` from `direction` (from the centre towards
    /// the eye) with `up` up and a vertical field of view of `fov_y_deg`: the ball fits the
    /// narrower of the two fields of view of an image of aspect `width / height`, with 10 %
    /// margin; the clip distances keep everything within 3 radii of the centre.
    pub fn framing_sphere(
        centre: Vec3,
        radius: f32,
        direction: Vec3,
        up: Up,
        fov_y_deg: f32,
        aspect: f32,
    ) -> Self {
        let radius = radius.max(1e-6);
        let fov_y = fov_y_deg.to_radians();
        let fov_x = 2.0 * ((fov_y * 0.5).tan() * aspect).atan();
        let half = 0.5 * fov_y.min(fov_x);
        let dist = 1.1 * radius / half.sin();
        let dir = direction.normalize_or(up.basis().z_axis);
        let mut cam = Self::look_at_up(centre + dir * dist, centre, up);
        cam.fov_y_deg = fov_y_deg;
        cam.near = (dist - 3.0 * radius).max(dist * 1e-3);
        cam.far = dist + 3.0 * radius;
        cam
    }

    /// World-to-view matrix.
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye, self.target, self.up)
    }

    /// View-to-clip matrix for an image of aspect `width / height`.
    pub fn projection(&self, aspect: f32) -> Mat4 {
        // wgpu's clip space: depth in [0, 1], y up (glam's `directx` convention).
        glam::camera::rh::proj::directx::perspective(
            self.fov_y_deg.to_radians(),
            aspect,
            self.near,
            self.far,
        )
    }

    /// World-to-clip matrix.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Where world point `p` (m) lands in a `width` × `height` image: `(x, y, depth)` with x to
    /// the right and y down in pixels (pixel centres at `i + 0.5`), depth in [0, 1]. `None` when
    /// the point is behind the eye or outside the near/far range.
    pub fn project(&self, p: Vec3, width: u32, height: u32) -> Option<Vec3> {
        let clip = self.view_proj(width as f32 / height as f32) * p.extend(1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.xyz() / clip.w;
        if !(0.0..=1.0).contains(&ndc.z) {
            return None;
        }
        Some(Vec3::new(
            (ndc.x + 1.0) * 0.5 * width as f32,
            (1.0 - ndc.y) * 0.5 * height as f32,
            ndc.z,
        ))
    }
}

/// The viewer's camera: orbits `target` at `distance`, turned by `yaw` about the up axis and
/// raised by `pitch` above the plane across it, both radians, measured in the +y-up frame that
/// [`Up::basis`] turns into the world (with the default +y up: yaw about +y from +z, pitch
/// above the x–z plane).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Point orbited, m.
    pub target: Vec3,
    /// Distance from the target, m (> 0).
    pub distance: f32,
    /// Angle about the up axis, radians (from +z with +y up).
    pub yaw: f32,
    /// Elevation above the plane across the up axis, radians, within ±89°.
    pub pitch: f32,
    /// Vertical field of view, degrees.
    pub fov_y_deg: f32,
    /// Radius of the scene's bounding sphere, m (sets the clip distances).
    pub scene_radius: f32,
    /// The world axis that appears up.
    pub up: Up,
}

/// Radians of orbit per pixel of mouse drag.
const ROTATE_PER_PIXEL: f32 = 0.005;

impl OrbitCamera {
    /// Looks at the box `lo..hi` (m) from `direction` (from the centre towards the eye), framed
    /// as [`Camera::framing`] does.
    pub fn framing(lo: DVec3, hi: DVec3, direction: Vec3, aspect: f32) -> Self {
        let centre = ((lo + hi) * 0.5).as_vec3();
        let radius = ((hi - lo) * 0.5).length() as f32;
        Self::framing_sphere(centre, radius, direction, Up::Y, aspect)
    }

    /// Looks at the ball of `radius` (m) about `centre` from `direction` (world, from the
    /// centre towards the eye) with `up` up, framed as [`Camera::framing_sphere`] does with the
    /// default field of view.
    pub fn framing_sphere(centre: Vec3, radius: f32, direction: Vec3, up: Up, aspect: f32) -> Self {
        let cam = Camera::framing_sphere(centre, radius, direction, up, DEFAULT_FOV_DEG, aspect);
        let off = up.basis().transpose() * (cam.eye - cam.target);
        let distance = off.length();
        Self {
            target: cam.target,
            distance,
            yaw: off.x.atan2(off.z),
            pitch: (off.y / distance).clamp(-1.0, 1.0).asin(),
            fov_y_deg: cam.fov_y_deg,
            scene_radius: radius.max(1e-6),
            up,
        }
    }

    /// Unit vector from the target towards the eye, world.
    pub fn offset_dir(&self) -> Vec3 {
        self.up.basis()
            * Vec3::new(
                self.pitch.cos() * self.yaw.sin(),
                self.pitch.sin(),
                self.pitch.cos() * self.yaw.cos(),
            )
    }

    /// The look-at camera for the current orbit.
    pub fn camera(&self) -> Camera {
        let eye = self.target + self.offset_dir() * self.distance;
        let mut cam = Camera::look_at_up(eye, self.target, self.up);
        cam.fov_y_deg = self.fov_y_deg;
        cam.near = (self.distance - 3.0 * self.scene_radius).max(self.distance * 1e-3);
        cam.far = self.distance + 3.0 * self.scene_radius;
        cam
    }

    /// Orbits by a mouse drag of `(dx, dy)` pixels.
    pub fn rotate(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * ROTATE_PER_PIXEL;
        self.pitch = (self.pitch + dy * ROTATE_PER_PIXEL).clamp(-1.55, 1.55);
    }

    /// Moves the target with a drag of `(dx, dy)` pixels in a viewport `height` pixels tall, so
    /// that the point under the cursor at the target's depth follows the cursor.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let cam = self.camera();
        let fwd = (cam.target - cam.eye).normalize();
        let right = fwd.cross(cam.up).normalize();
        let up = right.cross(fwd);
        let metres_per_pixel =
            2.0 * self.distance * (self.fov_y_deg.to_radians() * 0.5).tan() / height.max(1.0);
        self.target += (-dx * right + dy * up) * metres_per_pixel;
    }

    /// Zooms by `steps` wheel notches (positive: closer), 10 % of the distance per notch.
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.9f32.powf(steps)).max(1e-6);
    }
}
