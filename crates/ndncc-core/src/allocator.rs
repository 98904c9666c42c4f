//! The memory allocator of every program that links this crate with its default `jemalloc`
//! feature (the Python extension, `ndncc-bench`, the tests): jemalloc, asked to back its memory
//! with transparent huge pages of 2 MiB.
//!
//! Why: the events of a large world take turns over tens of megabytes of nodes, faces, PIT
//! blocks, consumers and packets in flight. With pages of 4 KiB, most of those addresses miss
//! the processor's translation cache (Zen 4's 3,072 entries map 12 MB), and in a virtual machine
//! each miss walks two page tables. Pages of 2 MiB map it all. The glibc allocator cannot be
//! asked for them from inside a program (only by an environment variable read as the process
//! starts), so the Python extension could not have them at all.
//!
//! Results never depend on it: the allocator decides where memory lies, never what a run does.
//! The kernel decides whether the advice is taken: where transparent huge pages are off
//! (`/sys/kernel/mm/transparent_hugepage/enabled` reads `never`), pages stay small. Setting
//! `_RJEM_MALLOC_CONF=thp:default` in the environment of a program as it starts leaves the
//! kernel's default, at some speed and less memory (docs/architecture.md has the figures).

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read as it starts (before `main`): every mapping it makes is advised to
/// the kernel as one for huge pages, its own metadata once there is enough of it. The name is
/// the one the (prefixed) jemalloc of `tikv-jemalloc-sys` looks for; a weak default of its own
/// gives way to it.
#[cfg(feature = "jemalloc")]
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: Option<&'static std::ffi::c_char> = Some(first_char(c"thp:always,metadata_thp:auto"));

#[cfg(feature = "jemalloc")]
const fn first_char(s: &'static std::ffi::CStr) -> &'static std::ffi::c_char {
    // SAFETY: the pointer of a `CStr` is to its first byte (its nul, if it is empty), which
    // lives as long as the `CStr`, here for the whole program.
    unsafe { &*s.as_ptr() }
}

/// What allocates this program's memory, and jemalloc's huge-page mode as it runs (`always`,
/// or `default` where the environment overrode it): printed by the benchmarks beside their
/// figures.
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
    /// The options took: a misspelt name of the options' symbol would leave jemalloc's defaults
    /// without a word, and the pages small.
    #[cfg(feature = "jemalloc")]
    #[test]
    fn jemalloc_runs_on_huge_pages_unless_the_environment_says_otherwise() {
        let overridden = std::env::var_os("_RJEM_MALLOC_CONF").is_some_and(|c| c.to_string_lossy().contains("thp"));
        let expected = if overridden { super::describe() } else { "jemalloc, thp:always".to_string() };
        assert_eq!(super::describe(), expected);
        assert!(super::describe().starts_with("jemalloc, thp:"));
    }
}
