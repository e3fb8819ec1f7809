//! The check a scenario runs when it finishes: whatever its clients recorded, against its
//! database, named after the test (`docs/testing.md#histories`).

use super::record::History;
use super::state::FinalState;
use super::verdict::assert_legal;
use crate::TestDb;

/// Asserts `history` legal against `db` when anything was recorded; a failing history
/// is written under the test's name (its thread's, as the test harness names it).
///
/// # Panics
/// When the run is not legal.
pub async fn assert_recorded_run_legal(history: &History, db: &TestDb) {
    if history.exchanges().is_empty() {
        return;
    }
    let name = std::thread::current()
        .name()
        .unwrap_or("unnamed-test")
        .replace("::", "-");
    assert_legal(history, &FinalState::read(db).await, &name);
}
