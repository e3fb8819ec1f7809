//! Running the pending migrations, all of them or only those up to one: the second is for
//! a test of a migration on the data an older version left.

use diesel::backend::Backend;
use diesel::migration::MigrationSource;
use diesel_migrations::MigrationHarness;

/// The pending migrations of `source`, in order, up to and including the one whose name
/// begins with `last` (all of them without one); answers the names of those run.
///
/// # Errors
/// The first migration's that fails.
pub(crate) fn run_through<DB, H>(
    harness: &mut H,
    source: impl MigrationSource<DB>,
    last: Option<&str>,
) -> diesel::migration::Result<Vec<String>>
where
    DB: Backend,
    H: MigrationHarness<DB>,
{
    let mut done = Vec::new();
    for migration in harness.pending_migrations(source)? {
        let name = migration.name().to_string();
        harness.run_migration(&*migration)?;
        let reached = last.is_some_and(|last| name.starts_with(last));
        done.push(name);
        if reached {
            break;
        }
    }
    Ok(done)
}
