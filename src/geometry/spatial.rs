//! A spatial index over a triangle mesh's triangles on the xz-plane, so that a tile build
//! rasterizes only the triangles that overlap it.
//!
//! [`ChunkyTriMesh`] plays the part of RecastDemo's `rcChunkyTriMesh`: triangles are split
//! recursively at the median of their centroids along the longer axis of their bounds until a
//! chunk holds at most `tris_per_chunk` triangles; the chunks are the leaves of a bounding-volume
//! tree that a rectangle query walks. Building it is deterministic: the same mesh always gives the
//! same chunks with their triangles in the same order, so tile builds that use it are
//! reproducible byte for byte.
//!
//! ```
//! use navkit::{TriMesh, geometry::spatial::ChunkyTriMesh};
//! // Two triangles far apart.
//! let mesh = TriMesh::new(
//!     vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
//!          100.0, 0.0, 100.0, 101.0, 0.0, 100.0, 100.0, 0.0, 101.0],
//!     vec![0, 1, 2, 3, 4, 5],
//! )?;
//! let index = ChunkyTriMesh::new(&mesh, 1);
//! let mut chunks = Vec::new();
//! index.chunks_overlapping([-1.0, -1.0], [2.0, 2.0], &mut chunks);
//! assert_eq!(chunks.len(), 1);
//! assert_eq!(index.chunk_tris(chunks[0]), &[0, 1, 2]);
//! # Ok::<(), navkit::Error>(())
//! ```

use crate::geometry::TriMesh;
use crate::par::prelude::*;

/// Subtrees of at least this many triangles are built on two threads.
const PARALLEL_ITEMS: usize = 1 << 16;

/// A node of the tree: its xz bounds, and either a leaf's triangle range or the index one past
/// its subtree (escape index) for a skip-walk.
#[derive(Clone, Copy, Debug)]
struct Node {
    bmin: [f32; 2],
    bmax: [f32; 2],
    /// Leaf: first triangle (into `tris`, in triangles). Inner node: negative escape offset.
    first: i64,
    /// Leaf: triangle count; inner node: 0.
    count: usize,
    /// Leaves in the subtree (1 for a leaf).
    leaves: usize,
}

/// A bounding-volume tree over a mesh's triangles in the xz-plane (see the module docs).
#[derive(Clone, Debug)]
pub struct ChunkyTriMesh {
    nodes: Vec<Node>,
    /// Triangle vertex indices, reordered so that every leaf's triangles are contiguous.
    tris: Vec<i32>,
    /// The mesh's index of each triangle of `tris`.
    ids: Vec<u32>,
    /// Leaf node index of each chunk.
    leaves: Vec<usize>,
    max_tris_per_chunk: usize,
    /// While building: subtrees this big are built on two threads.
    parallel_items: usize,
}

struct Item {
    tri: u32,
    centre: [f32; 2],
    bmin: [f32; 2],
    bmax: [f32; 2],
}

impl ChunkyTriMesh {
    /// Builds the index with at most `tris_per_chunk` triangles per chunk (RecastDemo uses 256;
    /// values below 1 are taken as 1).
    pub fn new(mesh: &TriMesh, tris_per_chunk: usize) -> ChunkyTriMesh {
        Self::build(mesh, tris_per_chunk, PARALLEL_ITEMS)
    }

    fn build(mesh: &TriMesh, tris_per_chunk: usize, parallel_items: usize) -> ChunkyTriMesh {
        let per = tris_per_chunk.max(1);
        let ntris = mesh.tri_count();
        let v = &mesh.verts;
        let mut items: Vec<Item> = (0..ntris)
            .into_par_iter()
            .map(|t| {
                let mut bmin = [f32::INFINITY; 2];
                let mut bmax = [f32::NEG_INFINITY; 2];
                for k in 0..3 {
                    let i = mesh.tris[t * 3 + k] as usize * 3;
                    let (x, z) = (v[i], v[i + 2]);
                    bmin = [bmin[0].min(x), bmin[1].min(z)];
                    bmax = [bmax[0].max(x), bmax[1].max(z)];
                }
                Item {
                    tri: t as u32,
                    centre: [(bmin[0] + bmax[0]) * 0.5, (bmin[1] + bmax[1]) * 0.5],
                    bmin,
                    bmax,
                }
            })
            .collect();
        let mut index = ChunkyTriMesh {
            nodes: Vec::with_capacity(ntris / per * 2 + 1),
            tris: Vec::with_capacity(ntris * 3),
            ids: Vec::with_capacity(ntris),
            leaves: Vec::new(),
            max_tris_per_chunk: 0,
            parallel_items,
        };
        if ntris > 0 {
            index.subdivide(&mut items, per, mesh);
        }
        index
    }

    fn fragment(&self, items: &mut [Item], per: usize, mesh: &TriMesh) -> ChunkyTriMesh {
        let mut f = ChunkyTriMesh {
            nodes: Vec::with_capacity(items.len() / per * 2 + 1),
            tris: Vec::with_capacity(items.len() * 3),
            ids: Vec::with_capacity(items.len()),
            leaves: Vec::new(),
            max_tris_per_chunk: 0,
            parallel_items: self.parallel_items,
        };
        f.subdivide(items, per, mesh);
        f
    }

    /// Appends a subtree built on its own, shifting its leaves' triangle offsets and indices.
    fn append(&mut self, f: ChunkyTriMesh) {
        let node_offset = self.nodes.len();
        let tri_offset = (self.tris.len() / 3) as i64;
        self.nodes.extend(f.nodes.into_iter().map(|mut n| {
            if n.first >= 0 {
                n.first += tri_offset;
            }
            n
        }));
        self.leaves
            .extend(f.leaves.into_iter().map(|l| l + node_offset));
        self.tris.extend_from_slice(&f.tris);
        self.ids.extend_from_slice(&f.ids);
        self.max_tris_per_chunk = self.max_tris_per_chunk.max(f.max_tris_per_chunk);
    }

    fn subdivide(&mut self, items: &mut [Item], per: usize, mesh: &TriMesh) {
        let mut bmin = [f32::INFINITY; 2];
        let mut bmax = [f32::NEG_INFINITY; 2];
        for it in items.iter() {
            bmin = [bmin[0].min(it.bmin[0]), bmin[1].min(it.bmin[1])];
            bmax = [bmax[0].max(it.bmax[0]), bmax[1].max(it.bmax[1])];
        }
        let node = self.nodes.len();
        let leaves_before = self.leaves.len();
        if items.len() <= per {
            // A chunk keeps its triangles in mesh order.
            items.sort_unstable_by_key(|it| it.tri);
            let first = (self.tris.len() / 3) as i64;
            for it in items.iter() {
                let t = it.tri as usize * 3;
                self.tris.extend_from_slice(&mesh.tris[t..t + 3]);
                self.ids.push(it.tri);
            }
            self.nodes.push(Node {
                bmin,
                bmax,
                first,
                count: items.len(),
                leaves: 1,
            });
            self.leaves.push(node);
            self.max_tris_per_chunk = self.max_tris_per_chunk.max(items.len());
            return;
        }
        self.nodes.push(Node {
            bmin,
            bmax,
            first: 0,
            count: 0,
            leaves: 0,
        });
        // Split at the median centroid along the longer axis; ties broken by triangle index, so
        // the split depends on nothing but the triangles.
        let axis = if bmax[0] - bmin[0] >= bmax[1] - bmin[1] {
            0
        } else {
            1
        };
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |a, b| {
            a.centre[axis]
                .total_cmp(&b.centre[axis])
                .then(a.tri.cmp(&b.tri))
        });
        let (left, right) = items.split_at_mut(mid);
        if left.len() + right.len() >= self.parallel_items {
            // Big subtrees are built side by side and appended: the same tree as one thread
            // builds, node for node.
            let (l, r) = crate::par::join(
                || self.fragment(left, per, mesh),
                || self.fragment(right, per, mesh),
            );
            self.append(l);
            self.append(r);
        } else {
            self.subdivide(left, per, mesh);
            self.subdivide(right, per, mesh);
        }
        let escape = self.nodes.len() - node;
        self.nodes[node].first = -(escape as i64);
        self.nodes[node].leaves = self.leaves.len() - leaves_before;
    }

    /// The number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.leaves.len()
    }

    /// The most triangles in any one chunk.
    pub fn max_tris_per_chunk(&self) -> usize {
        self.max_tris_per_chunk
    }

    /// Appends to `out` (after clearing it) the chunks whose xz bounds overlap the rectangle
    /// `bmin`..`bmax` (x, z), in tree order.
    pub fn chunks_overlapping(&self, bmin: [f32; 2], bmax: [f32; 2], out: &mut Vec<usize>) {
        out.clear();
        let mut i = 0;
        let mut leaf = 0;
        while i < self.nodes.len() {
            let n = &self.nodes[i];
            let overlap = n.bmin[0] <= bmax[0]
                && n.bmax[0] >= bmin[0]
                && n.bmin[1] <= bmax[1]
                && n.bmax[1] >= bmin[1];
            let is_leaf = n.first >= 0;
            if is_leaf {
                if overlap {
                    out.push(leaf);
                }
                leaf += 1;
                i += 1;
            } else if overlap {
                i += 1;
            } else {
                // Skip the subtree and the leaves it holds.
                leaf += n.leaves;
                i += (-n.first) as usize;
            }
        }
    }

    /// The triangles of chunk `chunk`, three vertex indices each (indices into the mesh's
    /// vertices). Empty for an out-of-range chunk.
    pub fn chunk_tris(&self, chunk: usize) -> &[i32] {
        match self.leaves.get(chunk) {
            Some(&l) => {
                let n = &self.nodes[l];
                let a = n.first as usize * 3;
                &self.tris[a..a + n.count * 3]
            }
            None => &[],
        }
    }

    /// The mesh's index of each triangle of chunk `chunk` (in the order of [`Self::chunk_tris`]).
    /// Empty for an out-of-range chunk.
    pub fn chunk_ids(&self, chunk: usize) -> &[u32] {
        match self.leaves.get(chunk) {
            Some(&l) => {
                let n = &self.nodes[l];
                let a = n.first as usize;
                &self.ids[a..a + n.count]
            }
            None => &[],
        }
    }

    /// The xz bounds of chunk `chunk` (`None` if out of range).
    pub fn chunk_bounds(&self, chunk: usize) -> Option<([f32; 2], [f32; 2])> {
        self.leaves.get(chunk).map(|&l| {
            let n = &self.nodes[l];
            (n.bmin, n.bmax)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random_mesh(n: usize, seed: u64) -> TriMesh {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let mut verts = Vec::new();
        let mut tris = Vec::new();
        for t in 0..n {
            let (cx, cz) = (
                rng.gen_range(-100.0..100.0f32),
                rng.gen_range(-50.0..50.0f32),
            );
            for _ in 0..3 {
                verts.extend_from_slice(&[
                    cx + rng.gen_range(-2.0..2.0f32),
                    rng.gen_range(0.0..1.0f32),
                    cz + rng.gen_range(-2.0..2.0f32),
                ]);
            }
            tris.extend_from_slice(&[(t * 3) as i32, (t * 3 + 1) as i32, (t * 3 + 2) as i32]);
        }
        TriMesh::new(verts, tris).unwrap()
    }

    #[test]
    fn every_triangle_in_exactly_one_chunk_and_queries_match_brute_force() {
        let mesh = random_mesh(5000, 3);
        let index = ChunkyTriMesh::new(&mesh, 64);
        assert!(index.max_tris_per_chunk() <= 64);
        let mut seen = vec![0u32; mesh.tri_count()];
        for c in 0..index.chunk_count() {
            for t in index.chunk_tris(c).chunks(3) {
                seen[t[0] as usize / 3] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1));

        let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
        let mut out = Vec::new();
        for _ in 0..200 {
            let (x, z) = (
                rng.gen_range(-110.0..110.0f32),
                rng.gen_range(-60.0..60.0f32),
            );
            let (w, h) = (rng.gen_range(0.0..30.0f32), rng.gen_range(0.0..30.0f32));
            let (bmin, bmax) = ([x, z], [x + w, z + h]);
            index.chunks_overlapping(bmin, bmax, &mut out);
            // Every triangle whose bounds overlap must be in a returned chunk.
            let mut found = vec![false; mesh.tri_count()];
            for &c in &out {
                let (cmin, cmax) = index.chunk_bounds(c).unwrap();
                assert!(cmin[0] <= bmax[0] && cmax[0] >= bmin[0]);
                assert!(cmin[1] <= bmax[1] && cmax[1] >= bmin[1]);
                for t in index.chunk_tris(c).chunks(3) {
                    found[t[0] as usize / 3] = true;
                }
            }
            for (t, &was_found) in found.iter().enumerate() {
                let xs = (0..3).map(|k| mesh.verts[(t * 3 + k) * 3]);
                let zs = (0..3).map(|k| mesh.verts[(t * 3 + k) * 3 + 2]);
                let (x0, x1) = xs.fold((f32::MAX, f32::MIN), |a, v| (a.0.min(v), a.1.max(v)));
                let (z0, z1) = zs.fold((f32::MAX, f32::MIN), |a, v| (a.0.min(v), a.1.max(v)));
                let overlaps = x0 <= bmax[0] && x1 >= bmin[0] && z0 <= bmax[1] && z1 >= bmin[1];
                if overlaps {
                    assert!(was_found, "triangle {t} overlaps but was not returned");
                }
            }
        }
    }

    #[test]
    fn parallel_build_is_the_sequential_build() {
        let mesh = random_mesh(300_000, 8);
        let par = ChunkyTriMesh::build(&mesh, 256, 1 << 12);
        let one = ChunkyTriMesh::build(&mesh, 256, usize::MAX);
        assert_eq!(par.tris, one.tris);
        assert_eq!(par.leaves, one.leaves);
        assert_eq!(par.nodes.len(), one.nodes.len());
        for (a, b) in par.nodes.iter().zip(&one.nodes) {
            assert_eq!(
                (a.bmin, a.bmax, a.first, a.count, a.leaves),
                (b.bmin, b.bmax, b.first, b.count, b.leaves)
            );
        }
    }

    #[test]
    fn deterministic_and_empty() {
        let mesh = random_mesh(1000, 5);
        let a = ChunkyTriMesh::new(&mesh, 32);
        let b = ChunkyTriMesh::new(&mesh, 32);
        assert_eq!(a.tris, b.tris);
        let empty = TriMesh {
            verts: vec![],
            tris: vec![],
            source: None,
            warnings: vec![],
        };
        let e = ChunkyTriMesh::new(&empty, 256);
        let mut out = vec![7];
        e.chunks_overlapping([0.0; 2], [1.0; 2], &mut out);
        assert!(out.is_empty());
        assert_eq!(e.chunk_tris(0), &[] as &[i32]);
    }
}
