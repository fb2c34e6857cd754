//! Ear clipping of a simple polygon given as byte vertices (x, y, z, flags; 4 bytes each), as
//! Detour's tile cache triangulates a layer contour or a hole: the ear with the shortest
//! diagonal first. Safe Rust on slices; the same integer geometry as Detour (x and z only).

/// Index after `i` in a ring of `n`.
pub(super) fn next(i: usize, n: usize) -> usize {
    if i + 1 < n { i + 1 } else { 0 }
}

/// Index before `i` in a ring of `n`.
pub(super) fn prev(i: usize, n: usize) -> usize {
    if i >= 1 { i - 1 } else { n - 1 }
}

/// Bit of an index marking its vertex as an ear tip (removable).
const EAR: u16 = 0x8000;

/// The (x, z) of the vertex `index` (its ear bit masked off) in `verts`.
fn point(verts: &[u8], index: u16) -> [i32; 2] {
    let at = usize::from(index & !EAR) * 4;
    [i32::from(verts[at]), i32::from(verts[at + 2])]
}

/// Twice the signed area of triangle (a, b, c) in x-z; negative when c is left of a->b.
fn area2(a: [i32; 2], b: [i32; 2], c: [i32; 2]) -> i32 {
    (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
}

/// True if c is strictly left of the line a->b.
fn left(a: [i32; 2], b: [i32; 2], c: [i32; 2]) -> bool {
    area2(a, b, c) < 0
}

/// True if c is left of or on the line a->b.
fn left_on(a: [i32; 2], b: [i32; 2], c: [i32; 2]) -> bool {
    area2(a, b, c) <= 0
}

/// True if a, b and c lie on one line.
fn collinear(a: [i32; 2], b: [i32; 2], c: [i32; 2]) -> bool {
    area2(a, b, c) == 0
}

/// True if segments ab and cd share a point interior to both.
fn intersect_prop(a: [i32; 2], b: [i32; 2], c: [i32; 2], d: [i32; 2]) -> bool {
    if collinear(a, b, c) || collinear(a, b, d) || collinear(c, d, a) || collinear(c, d, b) {
        return false;
    }
    (left(a, b, c) != left(a, b, d)) && (left(c, d, a) != left(c, d, b))
}

/// True if c lies on the closed segment ab.
fn between(a: [i32; 2], b: [i32; 2], c: [i32; 2]) -> bool {
    if !collinear(a, b, c) {
        return false;
    }
    let axis = if a[0] != b[0] { 0 } else { 1 };
    (a[axis] <= c[axis] && c[axis] <= b[axis]) || (a[axis] >= c[axis] && c[axis] >= b[axis])
}

/// True if segments ab and cd meet, properly or not.
fn intersect(a: [i32; 2], b: [i32; 2], c: [i32; 2], d: [i32; 2]) -> bool {
    intersect_prop(a, b, c, d)
        || between(a, b, c)
        || between(a, b, d)
        || between(c, d, a)
        || between(c, d, b)
}

/// True if (i, j) crosses no edge of the ring, ignoring edges at i or j and edges sharing a
/// position with the diagonal's ends.
fn diagonal_ie(i: usize, j: usize, n: usize, verts: &[u8], indices: &[u16]) -> bool {
    let d0 = point(verts, indices[i]);
    let d1 = point(verts, indices[j]);
    for k in 0..n {
        let k1 = next(k, n);
        if k == i || k1 == i || k == j || k1 == j {
            continue;
        }
        let p0 = point(verts, indices[k]);
        let p1 = point(verts, indices[k1]);
        if d0 == p0 || d1 == p0 || d0 == p1 || d1 == p1 {
            continue;
        }
        if intersect(d0, d1, p0, p1) {
            return false;
        }
    }
    true
}

/// True if the diagonal (i, j) is strictly inside the ring near i.
fn in_cone(i: usize, j: usize, n: usize, verts: &[u8], indices: &[u16]) -> bool {
    let pi = point(verts, indices[i]);
    let pj = point(verts, indices[j]);
    let pi1 = point(verts, indices[next(i, n)]);
    let pin1 = point(verts, indices[prev(i, n)]);
    if left_on(pin1, pi, pi1) {
        return left(pi, pj, pin1) && left(pj, pi, pi1);
    }
    !(left_on(pi, pj, pi1) && left_on(pj, pi, pin1))
}

/// True if (i, j) is a proper internal diagonal of the ring.
fn diagonal(i: usize, j: usize, n: usize, verts: &[u8], indices: &[u16]) -> bool {
    in_cone(i, j, n, verts, indices) && diagonal_ie(i, j, n, verts, indices)
}

/// Triangulates the ring `indices[..n]` (vertex numbers into `verts`, 4 bytes a vertex; the top
/// bit of each is used as scratch) and gives the triangles, 3 vertex numbers each. When no ear
/// is left before the ring is down to a triangle (a ring that is not simple), the triangles
/// found so far (Detour's "should not happen" case, whose callers use them as they are). A
/// ring of fewer than 3 vertices has no triangle: an empty list (Detour would read past it).
pub(super) fn triangulate(n: usize, verts: &[u8], indices: &mut [u16]) -> Vec<u16> {
    let mut n = n.min(indices.len());
    let mut tris = Vec::with_capacity(n.saturating_sub(2) * 3);
    if n < 3 {
        return tris;
    }
    for i in 0..n {
        let i1 = next(i, n);
        if diagonal(i, next(i1, n), n, verts, indices) {
            indices[i1] |= EAR;
        }
    }
    while n > 3 {
        let Some(i) = shortest_ear(n, verts, indices) else {
            return tris;
        };
        let mut i1 = next(i, n);
        let i2 = next(i1, n);
        tris.extend([indices[i] & !EAR, indices[i1] & !EAR, indices[i2] & !EAR]);
        n -= 1;
        indices.copy_within(i1 + 1..n + 1, i1);
        if i1 >= n {
            i1 = 0;
        }
        let i = prev(i1, n);
        set_ear(indices, i, diagonal(prev(i, n), i1, n, verts, indices));
        set_ear(indices, i1, diagonal(i, next(i1, n), n, verts, indices));
    }
    tris.extend([indices[0] & !EAR, indices[1] & !EAR, indices[2] & !EAR]);
    tris
}

/// Sets or clears the ear bit of `indices[i]`.
fn set_ear(indices: &mut [u16], i: usize, ear: bool) {
    if ear {
        indices[i] |= EAR;
    } else {
        indices[i] &= !EAR;
    }
}

/// The ring position before the ear whose diagonal is shortest (the first such on ties).
fn shortest_ear(n: usize, verts: &[u8], indices: &[u16]) -> Option<usize> {
    let mut best: Option<(i32, usize)> = None;
    for i in 0..n {
        let i1 = next(i, n);
        if indices[i1] & EAR == 0 {
            continue;
        }
        let p0 = point(verts, indices[i]);
        let p2 = point(verts, indices[next(i1, n)]);
        let (dx, dz) = (p2[0] - p0[0], p2[1] - p0[1]);
        let len = dx * dx + dz * dz;
        if best.is_none_or(|(b, _)| len < b) {
            best = Some((len, i));
        }
    }
    best.map(|(_, i)| i)
}
