//! TCP ports for the servers the tests start and restart (NATS): below the kernel's
//! ephemeral range, so no program that binds port 0 is ever handed one, in 26000 and up,
//! which the test command's own servers leave alone (they take 20000-25999,
//! `scripts/lib/`), and held by a lock file as long as the reservation lives, so no other
//! test process takes one, not even while its server is down for a restart.

use std::fs::{File, OpenOptions};
use std::net::TcpListener;
use std::path::PathBuf;

/// The first port the tests' servers may take.
const LOWEST: u16 = 26_000;

/// A port held for this process until dropped.
#[derive(Debug)]
pub struct ReservedPort {
    port: u16,
    // Held for the lock: released when the reservation is dropped.
    _lock: File,
}

impl ReservedPort {
    #[must_use]
    pub fn get(&self) -> u16 {
        self.port
    }
}

/// A port no other test process holds and nothing listens on now.
///
/// # Panics
/// When none is found in 1000 tries.
#[must_use]
pub fn reserve_port() -> ReservedPort {
    let highest = ephemeral_start().saturating_sub(1).max(LOWEST + 1000);
    let dir = std::env::temp_dir().join("idem-test-ports");
    std::fs::create_dir_all(&dir).unwrap();
    for _ in 0..1000 {
        let span = u128::from(highest - LOWEST);
        let port = LOWEST + u16::try_from(uuid::Uuid::new_v4().as_u128() % span).unwrap_or(0);
        let Ok(lock) = lock_file(dir.join(format!("{port}.lock"))) else {
            continue;
        };
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return ReservedPort { port, _lock: lock };
        }
    }
    panic!("no free port between {LOWEST} and {highest} after 1000 tries");
}

/// The file at `path`, locked for this process alone; an error when another holds it.
fn lock_file(path: PathBuf) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    file.try_lock().map_err(std::io::Error::other)?;
    Ok(file)
}

/// The kernel's first ephemeral port (Linux's default when it cannot be read).
fn ephemeral_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_port_is_below_the_ephemeral_range_and_not_reserved_twice() {
        let first = reserve_port();
        assert!((LOWEST..ephemeral_start()).contains(&first.get()));
        let dir = std::env::temp_dir().join("idem-test-ports");
        assert!(lock_file(dir.join(format!("{}.lock", first.get()))).is_err());
        let port = first.get();
        drop(first);
        assert!(lock_file(dir.join(format!("{port}.lock"))).is_ok());
    }
}
