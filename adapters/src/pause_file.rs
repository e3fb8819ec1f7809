//! Flow hooks a black-box test drives through files, to hold a server process inside its
//! transaction (for a crash or a graceful-shutdown test).
//!
//! Inert unless the server was started with a pause directory, and then only for keys
//! that start with [`PAUSE_KEY_PREFIX`]. For such a key the hook writes
//! `<dir>/<key>.inserted` once the `PROCESSING` record is inserted, then waits for
//! `<dir>/<key>.release`: the word `abort` rolls back, anything else goes on. Both files
//! are removed before the request goes on, so a retry pauses again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use application::ports::{FlowHooks, HookVerdict, PausePoint};
use domain::{IdempotencyKey, Scope};

/// Only keys with this prefix are paused.
pub const PAUSE_KEY_PREFIX: &str = "pause-";

/// How often the hook looks for the release file.
const POLL: Duration = Duration::from_millis(5);

/// A paused request goes on by itself after this long, so a lost test cannot hold a
/// transaction for ever.
const GIVE_UP: Duration = Duration::from_secs(60);

/// File-driven pause points; [`PauseFileHooks::disabled`] in production.
#[derive(Debug, Clone, Default)]
pub struct PauseFileHooks {
    dir: Option<PathBuf>,
}

impl PauseFileHooks {
    /// Hooks that never pause.
    #[must_use]
    pub fn disabled() -> Self {
        Self::default()
    }

    /// Hooks that pause keys with [`PAUSE_KEY_PREFIX`], signalling through `dir`.
    #[must_use]
    pub fn in_dir(dir: PathBuf) -> Self {
        Self { dir: Some(dir) }
    }

    /// The file that says a key's record was inserted.
    #[must_use]
    pub fn inserted_marker(dir: &Path, key: &str) -> PathBuf {
        dir.join(format!("{key}.inserted"))
    }

    /// The file that releases a paused key.
    #[must_use]
    pub fn release_marker(dir: &Path, key: &str) -> PathBuf {
        dir.join(format!("{key}.release"))
    }
}

impl FlowHooks for PauseFileHooks {
    fn after_record_insert(
        &self,
        _scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = HookVerdict> + Send {
        let paths = self
            .dir
            .as_deref()
            .filter(|_| key.as_str().starts_with(PAUSE_KEY_PREFIX))
            .map(|dir| {
                (
                    Self::inserted_marker(dir, key.as_str()),
                    Self::release_marker(dir, key.as_str()),
                )
            });
        async move {
            let Some((inserted, release)) = paths else {
                return HookVerdict::Continue;
            };
            if tokio::fs::write(&inserted, b"").await.is_err() {
                return HookVerdict::Continue;
            }
            let word = wait_for_release(&release).await;
            // Consumed: a retry with the same key pauses afresh.
            let _ = tokio::fs::remove_file(&release).await;
            let _ = tokio::fs::remove_file(&inserted).await;
            match word {
                Some(word) if word.trim_ascii() == b"abort" => HookVerdict::Abort,
                _ => HookVerdict::Continue,
            }
        }
    }

    /// A named point pauses only when armed: `<dir>/<point>.arm` exists. The hook removes
    /// it (so the next pass, or a restarted process, goes on), writes `<point>.reached`,
    /// and waits for `<point>.release`.
    fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send {
        let dir = self.dir.clone();
        async move {
            let Some(dir) = dir else { return };
            let name = point.name();
            if tokio::fs::remove_file(dir.join(format!("{name}.arm")))
                .await
                .is_err()
            {
                return;
            }
            let reached = dir.join(format!("{name}.reached"));
            if tokio::fs::write(&reached, b"").await.is_err() {
                return;
            }
            let release = dir.join(format!("{name}.release"));
            let _ = wait_for_release(&release).await;
            let _ = tokio::fs::remove_file(&release).await;
            let _ = tokio::fs::remove_file(&reached).await;
        }
    }
}

/// The release file's contents once it appears; `None` after [`GIVE_UP`].
async fn wait_for_release(release: &Path) -> Option<Vec<u8>> {
    let wait = async {
        loop {
            if let Ok(word) = tokio::fs::read(release).await {
                return word;
            }
            tokio::time::sleep(POLL).await;
        }
    };
    tokio::time::timeout(GIVE_UP, wait).await.ok()
}
