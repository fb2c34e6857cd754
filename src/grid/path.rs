//! Grid path post-processing.

use glam::{IVec2, UVec2};

/// Reduces a path of adjacent cells to its turning points: the start, every cell where the
/// direction of travel changes (the corner cell itself, not the cell before it), and the goal.
/// A path of zero, one or two cells is returned as it is.
///
/// ```
/// use navkit::grid::path::simplify;
/// use glam::UVec2;
/// let p = |x, y| UVec2::new(x, y);
/// // right, right, then down, down
/// let cells = [p(0, 0), p(1, 0), p(2, 0), p(2, 1), p(2, 2)];
/// assert_eq!(simplify(&cells), vec![p(0, 0), p(2, 0), p(2, 2)]);
/// ```
pub fn simplify(cells: &[UVec2]) -> Vec<UVec2> {
    let mut out = Vec::new();
    simplify_into(cells, &mut out);
    out
}

/// [`simplify`] into a reused buffer (cleared first).
pub fn simplify_into(cells: &[UVec2], out: &mut Vec<UVec2>) {
    out.clear();
    for_each_turn(cells, |i| out.push(cells[i]));
}

/// The indices into `cells` that [`simplify`] keeps, for paths whose cells carry more than
/// their column (the mesh-derived grid's spans, with their heights).
pub fn simplify_indices(cells: &[UVec2]) -> Vec<usize> {
    let mut out = Vec::new();
    for_each_turn(cells, |i| out.push(i));
    out
}

/// Calls `keep(i)` for the first cell, every corner cell and the last cell, in order.
fn for_each_turn(cells: &[UVec2], mut keep: impl FnMut(usize)) {
    if cells.is_empty() {
        return;
    }
    keep(0);
    if cells.len() == 1 {
        return;
    }
    let dir = |a: UVec2, b: UVec2| b.as_ivec2() - a.as_ivec2();
    let mut prev_dir: Option<IVec2> = None;
    for (i, w) in cells.windows(2).enumerate() {
        let d = dir(w[0], w[1]);
        if prev_dir.is_some_and(|pd| pd != d) {
            // cells[i] is where the direction changes: the corner.
            keep(i);
        }
        prev_dir = Some(d);
    }
    keep(cells.len() - 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: u32, y: u32) -> UVec2 {
        UVec2::new(x, y)
    }

    #[test]
    fn trivial_paths() {
        assert!(simplify(&[]).is_empty());
        assert_eq!(simplify(&[p(3, 4)]), vec![p(3, 4)]);
        assert_eq!(simplify(&[p(3, 4), p(4, 5)]), vec![p(3, 4), p(4, 5)]);
    }

    #[test]
    fn straight_line_keeps_ends_only() {
        let cells: Vec<_> = (0..10).map(|x| p(x, 2)).collect();
        assert_eq!(simplify(&cells), vec![p(0, 2), p(9, 2)]);
    }

    #[test]
    fn waypoints_on_corner_cells_and_goal_kept() {
        // diagonal, diagonal, right, right, up
        let cells = [p(0, 0), p(1, 1), p(2, 2), p(3, 2), p(4, 2), p(4, 1)];
        assert_eq!(simplify(&cells), vec![p(0, 0), p(2, 2), p(4, 2), p(4, 1)]);
    }
}
