//! The test side of the server's file-driven pause points (`adapters::pause_file`).

use std::path::Path;
use std::time::{Duration, Instant};

use adapters::pause_file::{PauseFileHooks, key_point};
use application::ports::KeyPoint;

use crate::TempDir;

pub use adapters::pause_file::{HOLD_KEY_PREFIX, PAUSE_KEY_PREFIX};

/// A fresh directory through which a test holds and releases paused requests.
#[derive(Debug)]
pub struct PauseDir {
    dir: TempDir,
}

impl Default for PauseDir {
    fn default() -> Self {
        Self::new()
    }
}

impl PauseDir {
    /// Creates an empty directory under the system's temp dir.
    ///
    /// # Panics
    /// When it cannot be created.
    #[must_use]
    pub fn new() -> Self {
        Self {
            dir: TempDir::new("pause"),
        }
    }

    /// The directory, for `IDEMPOTENCY_TEST_PAUSE_DIR`.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Blocks until the request with `key` has inserted its record and is paused inside
    /// its transaction: the server's own signal, not a guess about timing.
    ///
    /// # Panics
    /// After 60 s.
    pub fn wait_until_paused(&self, key: &str) {
        let marker = PauseFileHooks::inserted_marker(self.dir.path(), key);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !marker.exists() {
            assert!(
                Instant::now() < deadline,
                "{key} never reached its pause point"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Lets the paused request go on to commit.
    pub fn release(&self, key: &str) {
        self.write_release(key, "continue");
    }

    /// Makes the paused request roll back.
    pub fn abort(&self, key: &str) {
        self.write_release(key, "abort");
    }

    fn write_release(&self, key: &str, word: &str) {
        let marker = PauseFileHooks::release_marker(self.dir.path(), key);
        let staging = marker.with_extension("staging");
        std::fs::write(&staging, word).unwrap();
        std::fs::rename(&staging, &marker).unwrap();
    }

    /// Arms the named pause point (`relay-acked`, `consumer-committed`): the next process
    /// to reach it stops there, once.
    pub fn arm(&self, point: &str) {
        std::fs::write(self.dir.path().join(format!("{point}.arm")), b"").unwrap();
    }

    /// Blocks until a process stopped at the armed point `point`.
    ///
    /// # Panics
    /// After 60 s.
    pub fn wait_until_reached(&self, point: &str) {
        let marker = self.dir.path().join(format!("{point}.reached"));
        let deadline = Instant::now() + Duration::from_secs(60);
        while !marker.exists() {
            assert!(Instant::now() < deadline, "{point} was never reached");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Lets a process stopped at `point` go on.
    pub fn release_point(&self, point: &str) {
        self.write_release(point, "continue");
    }

    /// Arms `point` for the request with `key` (one starting with [`HOLD_KEY_PREFIX`]): the
    /// next request with it stops there, once.
    pub fn arm_key(&self, key: &str, point: KeyPoint) {
        self.arm(&key_point(key, point));
    }

    /// Blocks until the request with `key` stopped at its armed `point`.
    ///
    /// # Panics
    /// After 60 s.
    pub fn wait_until_key_reached(&self, key: &str, point: KeyPoint) {
        self.wait_until_reached(&key_point(key, point));
    }

    /// Lets the request with `key` stopped at `point` go on; a request no longer there
    /// leaves the file unread.
    pub fn release_key(&self, key: &str, point: KeyPoint) {
        self.release_point(&key_point(key, point));
    }
}
