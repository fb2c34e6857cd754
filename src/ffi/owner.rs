//! [`owner!`]: the one way navkit owns a C or C++ object (Recast's and Detour's structures,
//! navkit's glue objects), and [`opaque!`] for the glue's types Rust sees only through pointers.

/// Declares `$name`, the sole owner of one C or C++ object of type `$raw`: a tuple struct over
/// its `NonNull<$raw>` (`.0`), which `$free` frees exactly once when the owner drops, and a
/// field of Rust data kept beside it (`.1`: `()`, or the `with: Type` given, starting as its
/// `Default`).
///
/// The owner is `Send`: every object owned this way is heap data with no thread affinity,
/// reached only through its owner. (`Sync`, where wanted, is argued where the type is declared.)
///
/// Generated, private to the declaring module unless noted:
/// - `unsafe fn from_raw(ptr) -> Option<Self>`: takes ownership of what a constructor returned,
///   `None` for null;
/// - `fn as_ptr(&self)`: the object's pointer, for C calls;
/// - `fn raw(&self) -> &$raw`: the object, read-only;
/// - with `alloc: f` (a no-argument allocator returning a default-constructed object or null,
///   as Recast's `rcAlloc*`): `$vis fn new() -> Self`, which panics if out of memory;
/// - with `base: f => Base` (a glue function that upcasts the object to its C++ base class, a
///   `static_cast`): `fn base(&self) -> *mut Base`, the pointer Detour or Recast is given.
macro_rules! owner {
    (
        $(#[$doc:meta])*
        $vis:vis $name:ident($raw:ty), free: $free:path
        $(, alloc: $alloc:path)?
        $(, base: $upcast:path => $base:ty)?
        $(, with: $extra:ty)?
        $(,)?
    ) => {
        $(#[$doc])*
        $vis struct $name(::std::ptr::NonNull<$raw>, $crate::ffi::owner::owner!(@extra $($extra)?));

        // SAFETY: the object is heap data with no thread affinity, owned by this value alone and
        // reached only through it; moving the owner to another thread moves that access along.
        unsafe impl Send for $name {}

        #[allow(dead_code)]
        impl $name {
            /// Takes ownership of `ptr`; `None` if it is null.
            ///
            /// # Safety
            /// A non-null `ptr` must point to a live object that the free function of this
            /// owner may free and that nothing else owns, frees or keeps using.
            unsafe fn from_raw(ptr: *mut $raw) -> Option<Self> {
                ::std::ptr::NonNull::new(ptr).map(|p| $name(p, Default::default()))
            }

            /// The object's pointer, for C calls; valid while `self` lives.
            fn as_ptr(&self) -> *mut $raw {
                self.0.as_ptr()
            }

            /// The object, read-only, for as long as `self` is borrowed.
            fn raw(&self) -> &$raw {
                // SAFETY: `self.0` is live and owned by `self`, and every change to the object
                // goes through a C call given `as_ptr`, which needs a borrow of `self` too.
                unsafe { self.0.as_ref() }
            }

            $(
                /// A new, default-constructed object; panics if out of memory.
                $vis fn new() -> Self {
                    // SAFETY: the allocator returns a fresh object, which the free function of
                    // this owner frees, or null.
                    unsafe { Self::from_raw($alloc()) }
                        .expect(concat!("out of memory allocating ", stringify!($raw)))
                }
            )?

            $(
                /// The object as its C++ base class, the pointer Recast or Detour is given.
                fn base(&self) -> *mut $base {
                    // SAFETY: live object of the glue's class; the upcast is a `static_cast`.
                    unsafe { $upcast(self.as_ptr()) }
                }
            )?
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: the object came from its constructor (`from_raw`'s contract), is
                // owned by `self` alone and is freed exactly once, here.
                unsafe { $free(self.0.as_ptr()) }
            }
        }
    };
    (@extra) => { () };
    (@extra $extra:ty) => { $extra };
}

/// Declares `$name`, an opaque type of navkit's C++ glue, known to Rust only through pointers
/// (the FFI pattern for incomplete types: not constructible, not `Send`, `Sync` or `Unpin`).
macro_rules! opaque {
    ($(#[$doc:meta])* $vis:vis $name:ident) => {
        $(#[$doc])*
        #[repr(C)]
        $vis struct $name {
            _data: [u8; 0],
            _marker: ::std::marker::PhantomData<(*mut u8, ::std::marker::PhantomPinned)>,
        }
    };
}

pub(crate) use {opaque, owner};
