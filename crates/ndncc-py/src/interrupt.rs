//! Ctrl-C that ends the process even when Python cannot run: a thread of its own, holding no
//! GIL, reads Python's signal wake-up fd and ends the process a grace period after a SIGINT.
//!
//! The engine and Python code stop at their next check for signals. Code that never makes one
//! (a user's controller spinning in a C function, which holds the GIL) would keep a Python
//! thread from running too; this thread needs no GIL.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Exit code of a process ended by Ctrl-C (128 + SIGINT), as the command line's own.
const INTERRUPTED: i32 = 130;

/// Start a thread that waits for a SIGINT byte on `fd` (the read end of the socket Python's
/// `signal.set_wakeup_fd` writes to), then, `grace_s` seconds later, writes "interrupted (still
/// running …: ended)" on stderr and ends the process with exit code 130, unless it has ended by
/// itself by then.
#[pyfunction]
#[pyo3(name = "end_after_interrupt")]
pub fn end_after_interrupt(fd: i32, grace_s: f64) -> PyResult<()> {
    let grace = Duration::try_from_secs_f64(grace_s)
        .map_err(|_| PyValueError::new_err(format!("grace {grace_s}: expected seconds of at least 0")))?;
    let said = format!("interrupted (still running {grace_s} s after Ctrl-C: ended)\n").into_bytes();
    std::thread::Builder::new()
        .name("ndncc-interrupt".into())
        .spawn(move || {
            if wait_for_sigint(fd) {
                std::thread::sleep(grace);
                // SAFETY: writing a buffer this thread owns to fd 2 and ending the process;
                // `_exit` runs no handlers that could wait for the thread that is stuck.
                unsafe {
                    libc::write(2, said.as_ptr().cast(), said.len());
                    libc::_exit(INTERRUPTED);
                }
            }
        })
        .map_err(|e| PyValueError::new_err(format!("cannot start the interrupt thread: {e}")))?;
    Ok(())
}

/// Read signal numbers from `fd` until a SIGINT (true) or the end of the socket (false).
fn wait_for_sigint(fd: i32) -> bool {
    let mut buf = [0u8; 64];
    loop {
        // SAFETY: reading into a buffer of the length given.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        if n == 0 {
            return false;
        }
        if buf[..n as usize].contains(&(libc::SIGINT as u8)) {
            return true;
        }
    }
}
