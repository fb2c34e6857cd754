//! Arrays between Rust and C, each pattern once: [`c_slice`] borrows an array C owns,
//! [`OutBuf`] lends a `Vec`'s room to a C call that fills it, [`take_detour_alloc`] copies out
//! and frees an array Detour allocated for us, and [`DetourCopy`] copies bytes into Detour's
//! allocator for a call that takes them over.

use std::os::raw::c_int;
use std::ptr::NonNull;

use recastnavigation_sys as sys;

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

/// Room for up to `max` elements at the start of a `Vec`, for a C call to write into: give the
/// call [`OutBuf::ptr`] and `max`, then [`OutBuf::set_written`] the count it reports. Until
/// then the vector is borrowed by the `OutBuf`, so nothing can move its buffer.
pub(crate) struct OutBuf<'a, T: Copy> {
    vec: &'a mut Vec<T>,
    max: usize,
}

impl<'a, T: Copy> OutBuf<'a, T> {
    /// `vec`, emptied, with room for `max` elements.
    pub(crate) fn new(vec: &'a mut Vec<T>, max: usize) -> Self {
        vec.clear();
        Self::keeping(vec, max)
    }

    /// `vec` with its elements kept (for a C call that reads them and writes on), with room for
    /// `max` elements in all.
    pub(crate) fn keeping(vec: &'a mut Vec<T>, max: usize) -> Self {
        vec.reserve(max.saturating_sub(vec.len()));
        OutBuf { vec, max }
    }

    /// The buffer: room for `max` elements, the first `len` of them the vector's.
    pub(crate) fn ptr(&mut self) -> *mut T {
        self.vec.as_mut_ptr()
    }

    /// Ends the call: the vector holds the first `written` elements of the buffer (none for a
    /// negative count, at most `max`, which never exceeds its capacity); returns that length.
    ///
    /// # Safety
    /// The C call given [`OutBuf::ptr`] must have initialised the first `min(written, max)`
    /// elements with valid values of `T` (elements the vector held before count as
    /// initialised).
    pub(crate) unsafe fn set_written(self, written: c_int) -> usize {
        let n = usize::try_from(written).unwrap_or(0).min(self.max);
        assert!(n <= self.vec.capacity(), "an OutBuf holds room for its max");
        // SAFETY: `n` is within the capacity (`reserve` made room for `max`), and the first `n`
        // elements are initialised (the caller's contract); `T: Copy` has no drop to skip.
        unsafe { self.vec.set_len(n) };
        n
    }
}

/// Copies out the `size` bytes Detour allocated at `data` (with `dtAlloc`, for the caller to
/// own), and frees them: `None` if there are none (a null `data` or `size <= 0`; a non-null
/// `data` is freed all the same).
///
/// # Safety
/// `data` is null, or a `dtAlloc` allocation of at least `size` initialised bytes (when
/// `size > 0`) that the caller owns and gives up here.
pub(crate) unsafe fn take_detour_alloc(data: *mut u8, size: c_int) -> Option<Vec<u8>> {
    if data.is_null() {
        return None;
    }
    let len = usize::try_from(size).unwrap_or(0);
    // SAFETY: `data` holds `size` initialised bytes when `size > 0` (the caller's contract).
    let out = (len > 0).then(|| unsafe { c_slice(data, len) }.to_vec());
    // SAFETY: a `dtAlloc` allocation the caller gave up, freed once; `out` is a copy.
    unsafe { sys::dtFree(data.cast()) };
    out
}

/// A copy of some bytes in Detour's allocator (`dtAlloc`), for a Detour call that takes them
/// over (tile data added with a `*_FREE_DATA` flag); freed with `dtFree` unless
/// [`DetourCopy::handed_over`].
pub(crate) struct DetourCopy {
    ptr: NonNull<u8>,
    len: usize,
}

impl DetourCopy {
    /// A copy of `data` (not empty); `None` if Detour's allocator is out of memory.
    pub(crate) fn of(data: &[u8]) -> Option<Self> {
        debug_assert!(!data.is_empty());
        // SAFETY: dtAlloc returns `len` writable bytes or null.
        let ptr =
            NonNull::new(unsafe { sys::dtAlloc(data.len(), sys::dtAllocHint_DT_ALLOC_PERM) })?;
        let copy = DetourCopy {
            ptr: ptr.cast(),
            len: data.len(),
        };
        // SAFETY: the allocation has room for `data.len()` bytes and does not overlap `data`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), copy.ptr.as_ptr(), copy.len) };
        Some(copy)
    }

    /// The copy, for the Detour call.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The copy's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Detour took the copy over (and frees it): it is not freed here.
    pub(crate) fn handed_over(self) {
        std::mem::forget(self);
    }
}

impl Drop for DetourCopy {
    fn drop(&mut self) {
        // SAFETY: allocated by dtAlloc in `of`, not taken over by Detour, freed once.
        unsafe { sys::dtFree(self.ptr.as_ptr().cast()) }
    }
}
