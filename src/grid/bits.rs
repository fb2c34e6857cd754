//! Bit rows of a grid's padded cell array, for Jump Point Search's block-based straight jumps
//! (Harabor & Grastien, "Improving Jump Point Search", 2014): a straight jump tests 64 cells
//! at a time for a wall, a forced neighbour or the goal instead of one cell per step.
//!
//! For each terrain class there are two bit matrices: `rows`, one bit row per padded grid row
//! (bit `x` of row `y` is set if padded cell `(x, y)` is of the class), and `cols`, the same for
//! the transposed grid, so vertical jumps scan bit rows too.

/// Bit rows of one orientation.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct BitRows {
    words_per_row: usize,
    words: Vec<u64>,
}

impl BitRows {
    /// `rows` rows of `len` bits each, bit `(r, i)` set where `is_set(r, i)`.
    fn build(
        rows: usize,
        len: usize,
        is_set: impl Fn(usize, usize) -> bool,
    ) -> crate::Result<BitRows> {
        // One spare zero word per row: a window read past the end sees blocked cells.
        let words_per_row = len.div_ceil(64) + 1;
        let mut words = Vec::new();
        super::try_grow(
            &mut words,
            rows * words_per_row,
            0u64,
            "jump point search's bit rows",
        )?;
        for r in 0..rows {
            for i in 0..len {
                if is_set(r, i) {
                    words[r * words_per_row + i / 64] |= 1 << (i % 64);
                }
            }
        }
        Ok(BitRows {
            words_per_row,
            words,
        })
    }

    /// 64 bits of row `r` starting at position `start` (bit `k` = position `start + k`);
    /// positions outside the row read as 0.
    #[inline(always)]
    pub(crate) fn window(&self, r: usize, start: isize) -> u64 {
        let wpr = self.words_per_row;
        let base = r * wpr;
        let word = |w: usize| {
            if w < wpr {
                self.words.get(base + w).copied().unwrap_or(0)
            } else {
                0
            }
        };
        if start < 0 {
            let s = start.unsigned_abs();
            return if s >= 64 { 0 } else { word(0) << s };
        }
        let (w, b) = (start as usize / 64, start as usize % 64);
        let lo = word(w) >> b;
        let hi = if b == 0 { 0 } else { word(w + 1) << (64 - b) };
        lo | hi
    }
}

/// The bit matrices of one terrain class.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct ClassBits {
    pub(crate) rows: BitRows,
    pub(crate) cols: BitRows,
}

impl ClassBits {
    /// The bits of class `class` in a padded array `cls` of `stride` columns.
    pub(crate) fn build(cls: &[u8], stride: usize, class: u8) -> crate::Result<ClassBits> {
        let height = cls.len() / stride;
        Ok(ClassBits {
            rows: BitRows::build(height, stride, |y, x| cls[y * stride + x] == class)?,
            cols: BitRows::build(stride, height, |x, y| cls[y * stride + x] == class)?,
        })
    }
}

/// A straight jump along a bit row from position `from` (not included) in direction `dir`
/// (+1 or -1), with `side_a` and `side_b` the bit rows beside it (the cells at `p` and `-p`).
/// Stops at the first position that is blocked (returns `None`), is `goal` (if given), or has
/// a forced neighbour: a side cell open where the side cell one step back is blocked. Returns
/// the position and the number of steps.
#[inline(always)]
pub(crate) fn jump_row(
    bits: &BitRows,
    row: usize,
    side_a: usize,
    side_b: usize,
    from: usize,
    dir: isize,
    goal: Option<usize>,
) -> Option<(usize, u32)> {
    let from = from as isize;
    if dir > 0 {
        let mut start = from + 1;
        loop {
            let cur = bits.window(row, start);
            let a = bits.window(side_a, start);
            let a_back = bits.window(side_a, start - 1);
            let b = bits.window(side_b, start);
            let b_back = bits.window(side_b, start - 1);
            let stop = !cur | (a & !a_back) | (b & !b_back);
            let end = if stop == 0 {
                start + 63
            } else {
                start + stop.trailing_zeros() as isize
            };
            if let Some(g) = goal {
                let g = g as isize;
                // Every position before `end` is open; `end` itself is open unless blocked.
                if g > from && g >= start && (g < end || (g == end && cur >> (g - start) & 1 == 1))
                {
                    return Some((g as usize, (g - from) as u32));
                }
            }
            if stop != 0 {
                let k = end - start;
                return (cur >> k & 1 == 1).then(|| (end as usize, (end - from) as u32));
            }
            start += 64;
        }
    } else {
        // Windows ending at `end_pos`: bit 63 is `end_pos`, bit 0 is `end_pos - 63`.
        let mut end_pos = from - 1;
        loop {
            let lo = end_pos - 63;
            let cur = bits.window(row, lo);
            let a = bits.window(side_a, lo);
            let a_back = bits.window(side_a, lo + 1);
            let b = bits.window(side_b, lo);
            let b_back = bits.window(side_b, lo + 1);
            let stop = !cur | (a & !a_back) | (b & !b_back);
            let hit = if stop == 0 {
                lo
            } else {
                end_pos - stop.leading_zeros() as isize
            };
            if let Some(g) = goal {
                let g = g as isize;
                if g < from && g <= end_pos && (g > hit || (g == hit && cur >> (g - lo) & 1 == 1)) {
                    return Some((g as usize, (from - g) as u32));
                }
            }
            if stop != 0 {
                return (cur >> (hit - lo) & 1 == 1).then(|| (hit as usize, (from - hit) as u32));
            }
            end_pos -= 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cell-by-cell jump the bit version replaces.
    fn slow(
        cls: &[Vec<bool>],
        row: usize,
        from: usize,
        dir: isize,
        goal: Option<usize>,
    ) -> Option<(usize, u32)> {
        let open = |r: usize, x: isize| x >= 0 && (x as usize) < cls[r].len() && cls[r][x as usize];
        let mut x = from as isize;
        let mut steps = 0;
        loop {
            x += dir;
            if !open(row, x) {
                return None;
            }
            steps += 1;
            if Some(x as usize) == goal {
                return Some((x as usize, steps));
            }
            let back = x - dir;
            for side in [row - 1, row + 1] {
                if open(side, x) && !open(side, back) {
                    return Some((x as usize, steps));
                }
            }
        }
    }

    #[test]
    fn bit_jumps_match_cell_by_cell_jumps() {
        let mut state = 99u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for trial in 0..300 {
            let len = 3 + (next() % 200) as usize;
            let density = 2 + next() % 30;
            let cls: Vec<Vec<bool>> = (0..3)
                .map(|_| (0..len).map(|_| next() % density != 0).collect())
                .collect();
            let flat: Vec<u8> = cls.iter().flatten().map(|&o| o as u8).collect();
            let bits = ClassBits::build(&flat, len, 1).unwrap();
            for from in 0..len {
                for dir in [1, -1] {
                    let goal = (trial % 3 == 0).then(|| (next() % len as u64) as usize);
                    let want = slow(&cls, 1, from, dir, goal);
                    let got = jump_row(&bits.rows, 1, 0, 2, from, dir, goal);
                    assert_eq!(
                        got, want,
                        "trial {trial} len {len} from {from} dir {dir} goal {goal:?}"
                    );
                }
            }
        }
    }
}
