//! The median the benchmarks report: of an odd count the middle value, of an even count the
//! mean of the two middle ones.

/// The median of `v` (NaN-safe order: `f64::total_cmp`); `v` is left as it is.
pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
