//! The memory allocator of every program that links this crate with its default `jemalloc`
//! feature (the Python extension, `ndncc-bench`, the tests): jemalloc.
//!
//! Why: `tree-1111`, built from scenario text, runs in 0.82 to 0.86 of the time per hop it
//! took with the C library's allocator, and the other benchmarks as fast (docs/architecture.md,
//! "The allocator is jemalloc", has the measurements). A world is built of many small blocks of
//! a few sizes (a node's PIT blocks, a consumer, its window and timers, FIB entries), and a
//! large one's events take turns over all of them; jemalloc keeps blocks of one size together
//! in slabs of their own, likely closer than the C library's allocator leaves them among what
//! the scenario loader allocated and freed between them.
//!
//! jemalloc leaves huge pages to the kernel's default (`thp:default`): asked to back its
//! memory with them (`_RJEM_MALLOC_CONF=thp:always` in the environment of a program as it
//! starts), large worlds ran up to 20% faster or, from one run to the next, 30 to 50% slower
//! on the virtual machines measured, and took more memory.
//!
//! It gives freed pages back to the kernel at once (`dirty_decay_ms:0,muzzy_decay_ms:0`), as
//! the C library's allocator does with large blocks, rather than some seconds later on a
//! wall-clock timer: a run then peaks lower (`dumbbell-1000` over 40 s at 22.2 MB rather than
//! 25.4; 21.4 with the C library's), and nothing the allocator does depends on the clock, so
//! `make bench-instructions` repeats. (Timed against the timer, the runs were as fast.)
//!
//! Results never depend on it: the allocator decides where memory lies, never what a run does.

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read as it starts (before `main`); options in the environment
/// (`_RJEM_MALLOC_CONF`) come after these and win. The name is the one the prefixed jemalloc of
/// `tikv-jemalloc-sys` looks for; a weak default of its own gives way to it.
#[cfg(feature = "jemalloc")]
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: Option<&'static std::ffi::c_char> = Some(first_char(c"dirty_decay_ms:0,muzzy_decay_ms:0"));

#[cfg(feature = "jemalloc")]
const fn first_char(s: &'static std::ffi::CStr) -> &'static std::ffi::c_char {
    // SAFETY: the pointer of a `CStr` is to its first byte (its nul, if it is empty), which
    // lives as long as the `CStr`, here for the whole program.
    unsafe { &*s.as_ptr() }
}

/// What allocates this program's memory, with jemalloc's huge-page mode as it runs (`default`,
/// or what the environment set): printed by the benchmarks beside their figures.
pub fn describe() -> String {
    #[cfg(feature = "jemalloc")]
    {
        match jemalloc_thp() {
            Some(mode) => format!("jemalloc, thp:{mode}"),
            None => "jemalloc".to_string(),
        }
    }
    #[cfg(not(feature = "jemalloc"))]
    {
        "system".to_string()
    }
}

/// jemalloc's `opt.thp`, as it read its options.
#[cfg(feature = "jemalloc")]
fn jemalloc_thp() -> Option<String> {
    let value: *const std::ffi::c_char = jemalloc_option(c"opt.thp")?;
    if value.is_null() {
        return None;
    }
    // SAFETY: `opt.thp` is a nul-terminated string jemalloc keeps for the whole program.
    Some(unsafe { std::ffi::CStr::from_ptr(value) }.to_string_lossy().into_owned())
}

/// The value of jemalloc's option `name`, of type `T` (which must be the option's own type).
#[cfg(feature = "jemalloc")]
fn jemalloc_option<T: Copy + Default>(name: &std::ffi::CStr) -> Option<T> {
    let mut value = T::default();
    let mut len = std::mem::size_of::<T>();
    // SAFETY: jemalloc writes at most `len` bytes, the size of `T`, into `value`, and says how
    // many it wrote in `len`; a name it does not know, or of another size, is an error code.
    let read = unsafe {
        tikv_jemalloc_sys::mallctl(name.as_ptr(), (&raw mut value).cast(), &mut len, std::ptr::null_mut(), 0)
    };
    (read == 0 && len == std::mem::size_of::<T>()).then_some(value)
}

#[cfg(test)]
mod tests {
    /// jemalloc allocates, and reads its options: its huge-page mode is the default unless
    /// the environment set one.
    #[cfg(feature = "jemalloc")]
    #[test]
    fn jemalloc_allocates_with_the_kernels_pages_unless_the_environment_says_otherwise() {
        let overridden = std::env::var_os("_RJEM_MALLOC_CONF").is_some_and(|c| c.to_string_lossy().contains("thp"));
        let described = super::describe();
        assert!(described.starts_with("jemalloc, thp:"), "{described}");
        assert!(overridden || described == "jemalloc, thp:default", "{described}");
    }

    /// jemalloc read this crate's options: freed pages go back at once, on no timer.
    #[cfg(feature = "jemalloc")]
    #[test]
    fn freed_pages_go_back_at_once_unless_the_environment_says_otherwise() {
        let overridden = std::env::var_os("_RJEM_MALLOC_CONF").is_some_and(|c| c.to_string_lossy().contains("decay"));
        for name in [c"opt.dirty_decay_ms", c"opt.muzzy_decay_ms"] {
            let decay = super::jemalloc_option::<isize>(name);
            assert!(decay.is_some(), "{name:?} unread");
            assert!(overridden || decay == Some(0), "{name:?} is {decay:?}");
        }
        assert_eq!(super::jemalloc_option::<isize>(c"opt.no_such_option"), None);
    }
}
