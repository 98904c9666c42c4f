//! Scheduling for the emulation's threads: they sleep nearly all the time, and what matters is
//! how soon they run once woken. On the 2-core benchmark machine busy with other work
//! (compilers on both cores), the engine thread woke up to 5 ms late at p99 at normal priority
//! and 2.9 ms at nice -20: a waking thread of any nice level still waits for the running one's
//! slice. A real-time thread (`SCHED_FIFO`) preempts it at once. So a thread asks for
//! `SCHED_FIFO` at the lowest real-time priority, and failing that (no `CAP_SYS_NICE` and an
//! `RLIMIT_RTPRIO` of 0, as for most users) for nice -20, and failing that keeps its priority;
//! the run says which it got. A real-time thread that cannot keep up cannot lock the machine:
//! the kernel leaves normal threads 5% of every second (`sched_rt_runtime_us`), and the
//! engine's own threads sleep whenever they are not late.
//!
//! The timer slack is lowered too, so that a sleep with a deadline ends at the deadline rather
//! than up to 50 µs after it (the kernel's default slack).

/// Raise the calling thread's scheduling and lower its timer slack; say what it got.
pub fn raise_current_thread() -> String {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl, sched_setscheduler and setpriority on the calling thread (0 and the
        // thread's id name it), with plain integer arguments and a parameter struct we own.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong);
            let param = libc::sched_param { sched_priority: 1 };
            if libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 {
                return "real-time priority (SCHED_FIFO 1)".into();
            }
            let tid = libc::gettid();
            let Ok(who) = libc::id_t::try_from(tid) else { return "normal priority".into() };
            for nice in [-20, -10, -5] {
                if libc::setpriority(libc::PRIO_PROCESS, who, nice) == 0 {
                    return format!("nice {nice} (no permission for real-time priority)");
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
