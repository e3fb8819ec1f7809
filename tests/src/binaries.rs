//! The binaries the black-box tests start: the workspace's own, named by an environment
//! variable or else found beside this test's build output, where `scripts/test` builds
//! them; and installed servers (NATS, Prometheus), named by an environment variable or
//! found on the `PATH` or where Debian puts them.

use std::path::{Path, PathBuf};

/// The `server` binary: `SERVER_BIN`, else the one beside this test's build output.
///
/// # Panics
/// When it was not built; `scripts/test` builds it first.
#[must_use]
pub fn server_binary() -> PathBuf {
    built("SERVER_BIN", "server")
}

/// The `server` binary as a user builds it, without the test-only pause points:
/// `SERVER_WITHOUT_TEST_HOOKS_BIN`, else the copy `scripts/test` leaves beside the other.
///
/// # Panics
/// When it was not built.
#[must_use]
pub fn server_without_test_hooks_binary() -> PathBuf {
    built("SERVER_WITHOUT_TEST_HOOKS_BIN", "server-without-test-hooks")
}

/// The `provider-stand-in` binary: `PROVIDER_STAND_IN_BIN`, else the one beside this
/// test's build output.
///
/// # Panics
/// When it was not built; `scripts/test` builds it first.
#[must_use]
pub fn provider_stand_in_binary() -> PathBuf {
    built("PROVIDER_STAND_IN_BIN", "provider-stand-in")
}

/// The binary `variable` names, else the workspace's binary `name` (of the package of
/// the same name) beside this test's build output.
fn built(variable: &str, name: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(variable) {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap();
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p {name}` (scripts/test does)",
        path.display()
    );
    path
}

/// `$variable`, else `name` on the `PATH`, else `debian_path`; `None` when none exists.
pub(crate) fn installed_binary(variable: &str, name: &str, debian_path: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(variable) {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join(name))
        .chain([PathBuf::from(debian_path)])
        .find(|path| path.is_file())
}
