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
//! Results never depend on it: the allocator decides where memory lies, never what a run does.

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
    let mut value: *const std::ffi::c_char = std::ptr::null();
    let mut len = std::mem::size_of::<*const std::ffi::c_char>();
    // SAFETY: `opt.thp` is a `const char *` option: jemalloc writes one pointer into `value`, of
    // the size given in `len`, to a nul-terminated string it keeps for the whole program.
    let read = unsafe {
        tikv_jemalloc_sys::mallctl(c"opt.thp".as_ptr(), (&raw mut value).cast(), &mut len, std::ptr::null_mut(), 0)
    };
    if read != 0 || value.is_null() {
        return None;
    }
    // SAFETY: as above, a nul-terminated string that lives as long as the program.
    Some(unsafe { std::ffi::CStr::from_ptr(value) }.to_string_lossy().into_owned())
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
}
