//! Scheduling for the emulation's threads: they sleep nearly all the time, and what matters is
//! how soon they run once woken. On a machine busy with other work (compilers on every core),
//! a thread of normal priority woke up to 5 ms late at p99 in our measurements; raised to nice
//! -20 it preempts normal work as it wakes. The timer slack is lowered too, so that a sleep
//! with a deadline ends at the deadline rather than up to 50 µs after it (the kernel's default
//! slack). Both are best effort: without the permission (`CAP_SYS_NICE`, or an `RLIMIT_NICE`
//! that allows it) the thread keeps its priority, and the run says so.

/// Raise the calling thread's priority and lower its timer slack; say what it got.
pub fn raise_current_thread() -> String {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl and setpriority on the calling thread, with plain integer arguments.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong);
            let tid = libc::gettid();
            let Ok(who) = libc::id_t::try_from(tid) else { return "normal priority".into() };
            for nice in [-20, -10, -5] {
                if libc::setpriority(libc::PRIO_PROCESS, who, nice) == 0 {
                    return format!("nice {nice}");
                }
            }
        }
        "normal priority (no permission to raise it)".into()
    }
    #[cfg(not(target_os = "linux"))]
    {
        "normal priority".into()
    }
}
