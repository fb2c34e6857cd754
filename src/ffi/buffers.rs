//! Arrays between Rust and C, each pattern once: [`c_slice`] borrows an array C owns.

/// `len` elements at `ptr` as a slice, empty for a null pointer or no elements.
///
/// # Safety
/// Unless `ptr` is null or `len` is 0, `ptr` must point to `len` initialised, aligned `T`s that
/// stay alive and unchanged for `'a`.
pub(crate) unsafe fn c_slice<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if ptr.is_null() || len == 0 {
        return &[];
    }
    debug_assert!(ptr.is_aligned());
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}
