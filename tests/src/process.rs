//! What the tests do with the processes they start (servers, brokers, Prometheus): wait
//! until one is up, stop it with a bound, read its CPU time.

use std::process::{Child, Command, ExitStatus};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Polls `ready` until it gives a value, while `child` runs; `None` once the child has
/// exited or `timeout` has passed, for the caller to fail with the process's log.
pub(crate) fn until_up<T>(
    child: &mut Child,
    timeout: Duration,
    mut ready: impl FnMut() -> Option<T>,
) -> Option<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(up) = ready() {
            return Some(up);
        }
        if Instant::now() > deadline || matches!(child.try_wait(), Ok(Some(_))) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// How long a process asked to stop may take: far above a clean shutdown's
/// milliseconds, so only a process that will never exit reaches it.
pub(crate) const EXIT_BOUND: Duration = Duration::from_secs(60);

/// Waits for `child` to exit, at most `bound`; past it the child is killed and the
/// caller panics, so a process that ignores its stop signal fails the test instead of
/// hanging the run.
///
/// # Panics
/// When the child has not exited within `bound`.
pub(crate) fn exit_within(child: &mut Child, bound: Duration) -> ExitStatus {
    let deadline = Instant::now() + bound;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("process {} did not exit within {bound:?}", child.id());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends SIGTERM to process `pid`, through `kill(1)` (the crate has no `unsafe` for a
/// direct `kill(2)`).
///
/// # Panics
/// When `kill` fails (no such process).
pub(crate) fn send_sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -TERM {pid} failed");
}

/// The CPU time (user plus system, all threads) process `pid` has used so far, from
/// `/proc/<pid>/stat`; `None` when there is no such process (or no `/proc`).
#[must_use]
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 2, the command name, is in parentheses and may hold spaces; after it come
    // field 3 (state) onwards, so utime (field 14) and stime (15) are the 12th and 13th.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    let ticks = utime + stime;
    let hz = clock_ticks_per_second()?;
    Some(Duration::from_secs(ticks / hz) + Duration::from_nanos((ticks % hz) * 1_000_000_000 / hz))
}

/// The kernel's `USER_HZ` (the unit of `/proc/<pid>/stat` times), asked of `getconf
/// CLK_TCK` once.
fn clock_ticks_per_second() -> Option<u64> {
    static HZ: OnceLock<Option<u64>> = OnceLock::new();
    *HZ.get_or_init(|| {
        let output = Command::new("getconf").arg("CLK_TCK").output().ok()?;
        String::from_utf8(output.stdout)
            .ok()?
            .trim()
            .parse()
            .ok()
            .filter(|hz| *hz > 0)
    })
}
