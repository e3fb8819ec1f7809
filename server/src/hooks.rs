//! The flow hooks of this build: the file-driven pause points only in a build for the
//! tests (the `test-hooks` feature, which `scripts/test` turns on), none otherwise.

use std::path::PathBuf;

#[cfg(feature = "test-hooks")]
pub(crate) type Hooks = adapters::pause_file::PauseFileHooks;

#[cfg(not(feature = "test-hooks"))]
pub(crate) type Hooks = application::ports::NoHooks;

/// Whether this build can pause on `IDEMPOTENCY_TEST_PAUSE_DIR` (a release build refuses
/// to start with it, rather than ignore it or let callers hold transactions).
pub(crate) const PAUSE_POINTS: bool = cfg!(feature = "test-hooks");

/// The hooks pausing through `dir`, inert without one.
#[cfg(feature = "test-hooks")]
pub(crate) fn hooks(dir: Option<PathBuf>) -> Hooks {
    dir.map_or_else(Hooks::disabled, Hooks::in_dir)
}

/// No pause points in this build (configuration refuses a pause directory).
#[cfg(not(feature = "test-hooks"))]
pub(crate) fn hooks(_dir: Option<PathBuf>) -> Hooks {
    Hooks::default()
}
