//! The few float operations the crowd update needs, each written so that it rounds exactly as
//! Detour's inline vector helpers (DetourCommon.h) do: the same operations in the same order,
//! and comparisons (not `f32::min`/`max`) where Detour compares, so NaN flows the same way.

/// `a - b`, component by component.
pub(super) fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a + b`, component by component.
pub(super) fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `v * s`.
pub(super) fn scale(v: [f32; 3], s: f32) -> [f32; 3] {
    [v[0] * s, v[1] * s, v[2] * s]
}

/// `a + v * s` (a multiply, then an add: never fused).
pub(super) fn mad(a: [f32; 3], v: [f32; 3], s: f32) -> [f32; 3] {
    [a[0] + v[0] * s, a[1] + v[1] * s, a[2] + v[2] * s]
}

/// `a + (b - a) * t`.
pub(super) fn lerp(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// The squared length, summed x, y, z in that order.
pub(super) fn len_sqr(v: [f32; 3]) -> f32 {
    v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
}

/// The length.
pub(super) fn len(v: [f32; 3]) -> f32 {
    len_sqr(v).sqrt()
}

/// The squared distance from `a` to `b` on the xz-plane.
pub(super) fn dist_2d_sqr(a: [f32; 3], b: [f32; 3]) -> f32 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    dx * dx + dz * dz
}

/// The distance from `a` to `b` on the xz-plane.
pub(super) fn dist_2d(a: [f32; 3], b: [f32; 3]) -> f32 {
    dist_2d_sqr(a, b).sqrt()
}

/// `v` scaled by the reciprocal of its length (NaN for a zero vector, as Detour).
pub(super) fn normalize(v: [f32; 3]) -> [f32; 3] {
    let d = 1.0 / len_sqr(v).sqrt();
    [v[0] * d, v[1] * d, v[2] * d]
}

/// Twice the signed area of the triangle `a`, `b`, `c` on the xz-plane.
pub(super) fn tri_area_2d(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> f32 {
    let (abx, abz) = (b[0] - a[0], b[2] - a[2]);
    let (acx, acz) = (c[0] - a[0], c[2] - a[2]);
    acx * abz - abx * acz
}

/// The smaller of two values as a `<` comparison picks it (`b` when either is NaN).
pub(super) fn min(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// `v` clamped to `lo..=hi` by comparisons (NaN passes through).
pub(super) fn clamp(v: f32, lo: f32, hi: f32) -> f32 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// The three floats at `v[at..at + 3]`.
pub(super) fn vec3_at(v: &[f32], at: usize) -> [f32; 3] {
    [v[at], v[at + 1], v[at + 2]]
}
