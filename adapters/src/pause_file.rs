//! Flow hooks a black-box test drives through files. Inert without a pause directory; for
//! keys starting with [`PAUSE_KEY_PREFIX`] the hook writes `<key>.inserted` after the record
//! insert, waits for `<key>.release` (the word `abort` rolls back), then removes both. A key
//! starting with [`HOLD_KEY_PREFIX`] stops only where a test armed it, once: at the
//! [`KeyPoint`] named by [`key_point`], as a named point does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use application::ports::{FlowHooks, HookVerdict, KeyPoint, PausePoint};
use domain::{IdempotencyKey, Scope};

pub const PAUSE_KEY_PREFIX: &str = "pause-";

/// Keys that stop at an armed [`KeyPoint`] only.
pub const HOLD_KEY_PREFIX: &str = "hold-";

/// The name under which `point` of the request with `key` is armed, reached and released.
#[must_use]
pub fn key_point(key: &str, point: KeyPoint) -> String {
    format!("{key}.{}", point.name())
}

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
    fn at_key(
        &self,
        point: KeyPoint,
        _scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = HookVerdict> + Send {
        let key = key.as_str();
        let held = self
            .dir
            .clone()
            .filter(|_| key.starts_with(HOLD_KEY_PREFIX))
            .map(|dir| (dir, key_point(key, point)));
        let paths = self
            .dir
            .as_deref()
            .filter(|_| point == KeyPoint::RecordInserted && key.starts_with(PAUSE_KEY_PREFIX))
            .map(|dir| {
                (
                    Self::inserted_marker(dir, key),
                    Self::release_marker(dir, key),
                )
            });
        async move {
            if let Some((dir, name)) = held {
                return verdict(hold_if_armed(&dir, &name).await.flatten());
            }
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
            verdict(word)
        }
    }

    /// A named point pauses only when armed: `<dir>/<point>.arm` exists
    /// ([`hold_if_armed`]).
    fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send {
        let dir = self.dir.clone();
        async move {
            if let Some(dir) = dir {
                hold_if_armed(&dir, point.name()).await;
            }
        }
    }
}

/// When `<name>.arm` exists: removes it (so the next pass, or a restarted process, goes
/// on), writes `<name>.reached`, and waits for `<name>.release`, whose contents it gives
/// back (`None` inside after [`GIVE_UP`]). `None` when not armed.
async fn hold_if_armed(dir: &Path, name: &str) -> Option<Option<Vec<u8>>> {
    tokio::fs::remove_file(dir.join(format!("{name}.arm")))
        .await
        .ok()?;
    let reached = dir.join(format!("{name}.reached"));
    tokio::fs::write(&reached, b"").await.ok()?;
    let release = dir.join(format!("{name}.release"));
    let word = wait_for_release(&release).await;
    let _ = tokio::fs::remove_file(&release).await;
    let _ = tokio::fs::remove_file(&reached).await;
    Some(word)
}

/// The word `abort` rolls back; anything else, or none, goes on.
fn verdict(word: Option<Vec<u8>>) -> HookVerdict {
    match word {
        Some(word) if word.trim_ascii() == b"abort" => HookVerdict::Abort,
        _ => HookVerdict::Continue,
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
