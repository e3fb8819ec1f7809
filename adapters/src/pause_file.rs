//! Flow hooks a black-box test drives through files. Inert without a pause directory; for
//! keys starting with [`PAUSE_KEY_PREFIX`] the hook writes `<key>.inserted` after the record
//! insert, waits for `<key>.release` (the word `abort` rolls back), then removes both.

use std::path::{Path, PathBuf};
use std::time::Duration;

use application::ports::{FlowHooks, HookVerdict, PausePoint};
use domain::{IdempotencyKey, Scope};

pub const PAUSE_KEY_PREFIX: &str = "pause-";

const POLL: Duration = Duration::from_millis(5);

/// A paused request goes on by itself, so a lost test cannot hold a transaction for ever.
const GIVE_UP: Duration = Duration::from_secs(60);

/// File-driven pause points; [`PauseFileHooks::disabled`] in production.
#[derive(Debug, Clone, Default)]
pub struct PauseFileHooks {
    dir: Option<PathBuf>,
}

impl PauseFileHooks {
    #[must_use]
    pub fn disabled() -> Self {
        Self::default()
    }

    #[must_use]
    pub fn in_dir(dir: PathBuf) -> Self {
        Self { dir: Some(dir) }
    }

    #[must_use]
    pub fn inserted_marker(dir: &Path, key: &str) -> PathBuf {
        dir.join(format!("{key}.inserted"))
    }

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
