// Wall kind WALL_SPHERE_INSIDE: twin of src/cpu/collide/walls/sphere_inside.rs.

// cpu::collide::walls::sphere_inside::gap
fn sphere_inside_gap(x: vec3<f32>, r: f32, wall: Plane) -> Gap {
    let d = x - wall.point;
    let n = unit_or(-d, wall.normal);
    return Gap(wall.radius - sqrt(dot3(d, d)) - r, n);
}

// cpu::collide::walls::sphere_inside::curvature
fn sphere_inside_curvature(wall: Plane) -> f32 {
    return -1.0 / wall.radius;
}

// cpu::collide::walls::sphere_inside::event; returns -1 for None.
fn sphere_inside_event(me: Body, wall: Plane, dt: f32) -> f32 {
    let g = sphere_inside_gap(me.x, me.r, wall);
    return approach_event(g.s, dot3(me.v, g.n), dt);
}
