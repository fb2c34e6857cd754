//! The mesh-derived walkable spans (the grid the grid pathfinder runs on): stacked floors, and
//! every nav_mesh_test.txt query connected on the grid as on the navmesh.

mod common;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use navkit::build::{build_walkable_spans, WalkableSpans};
use navkit::testcase::TestCase;
use navkit::{BuildSettings, InputGeometry};

/// Plain Dijkstra over `neighbours8`: the grid distance in cells, if connected.
fn grid_distance(g: &WalkableSpans, a: u32, b: u32) -> Option<f32> {
    let mut dist = vec![f32::INFINITY; g.spans.len()];
    let mut heap = BinaryHeap::new();
    dist[a as usize] = 0.0;
    heap.push(Reverse(((0.0f32).to_bits(), a)));
    while let Some(Reverse((d, i))) = heap.pop() {
        let d = f32::from_bits(d);
        if i == b {
            return Some(d);
        }
        if d > dist[i as usize] {
            continue;
        }
        for (j, c) in g.neighbours8(i) {
            let nd = d + c;
            if nd < dist[j as usize] {
                dist[j as usize] = nd;
                heap.push(Reverse((nd.to_bits(), j)));
            }
        }
    }
    None
}

#[test]
fn nav_test_spans_have_stacked_floors_and_connect_every_test_query() {
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let g = build_walkable_spans(&geom, &BuildSettings::default()).unwrap();
    assert_eq!((g.width, g.height), (305, 258));
    let walkable = (0..g.spans.len() as u32).filter(|&i| g.walkable(i)).count();
    assert!(walkable > 10_000, "{walkable} walkable spans");
    let stacked = g
        .cells
        .iter()
        .filter(|&&(first, n)| (first..first + n as u32).filter(|&i| g.walkable(i)).count() > 1)
        .count();
    assert!(
        stacked > 100,
        "{stacked} cells with more than one walkable floor"
    );
    // Links are symmetric.
    for (i, s) in g.spans.iter().enumerate() {
        for (d, &n) in s.neighbours.iter().enumerate() {
            if n != u32::MAX {
                assert_eq!(g.spans[n as usize].neighbours[(d + 2) % 4], i as u32);
            }
        }
    }
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    for t in &case.queries {
        let a = g.span_at(t.start).expect("start span");
        let b = g.span_at(t.end).expect("end span");
        let d = grid_distance(&g, a, b).unwrap_or_else(|| panic!("line {}: not connected", t.line));
        let straight = t.start.distance(t.end) / g.cell_size;
        assert!(
            d + 2.0 >= straight * 0.99,
            "line {}: {d} cells for a {straight}-cell gap",
            t.line
        );
    }
}
