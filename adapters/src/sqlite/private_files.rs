//! The embedded store's files hold every stored response, so its directory is its owner's
//! alone (0700) and so are its files (0600; SQLite gives the `-wal` and `-shm` files the
//! database file's mode). An existing one that others may read is left as it is, and
//! warned about at start.

use std::fs::{DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates `dir` (and its parents) readable by its owner only, or warns when it exists
/// and is not.
///
/// # Errors
/// When it cannot be created or read.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    match std::fs::metadata(dir) {
        Ok(found) => warn_if_shared(dir, found.permissions().mode()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        }
        Err(error) => return Err(error),
    }
    Ok(())
}

/// Creates the database file readable by its owner only before SQLite opens it, or warns
/// when it (or its `-wal` or `-shm`) exists and is not.
///
/// # Errors
/// When it cannot be created or read.
pub(crate) fn private_file(path: &Path) -> io::Result<()> {
    let created = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
    match created {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            for suffix in ["", "-wal", "-shm"] {
                let mut name = path.as_os_str().to_owned();
                name.push(suffix);
                if let Ok(found) = std::fs::metadata(Path::new(&name)) {
                    warn_if_shared(Path::new(&name), found.permissions().mode());
                }
            }
            Ok(())
        }
        Err(error) => Err(error),
    }
}

/// Once per process: every HTTP worker opens the store, and one warning says it.
static WARNED: std::sync::Once = std::sync::Once::new();

fn warn_if_shared(path: &Path, mode: u32) {
    if mode & 0o077 != 0 {
        WARNED.call_once(|| warn(path, mode));
    }
}

fn warn(path: &Path, mode: u32) {
    tracing::warn!(
        path = %path.display(),
        mode = format!("{:o}", mode & 0o777),
        "the embedded store's files hold every stored response, and others may read \
         this one; make it the owner's alone (chmod go-rwx)"
    );
}
