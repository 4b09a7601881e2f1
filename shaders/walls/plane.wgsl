// Wall kind WALL_PLANE: twin of src/cpu/collide/walls/plane.rs.

// cpu::collide::walls::plane::gap
fn plane_gap(x: vec3<f32>, r: f32, wall: Plane) -> Gap {
    return Gap(dot3(x - wall.point, wall.normal) - r, wall.normal);
}

// cpu::collide::walls::plane::curvature
fn plane_curvature(wall: Plane) -> f32 {
    return 0.0;
}

// cpu::collide::walls::plane::event; returns -1 for None.
fn plane_event(me: Body, wall: Plane, dt: f32) -> f32 {
    let g = plane_gap(me.x, me.r, wall);
    return approach_event(g.s, dot3(me.v, g.n), dt);
}
