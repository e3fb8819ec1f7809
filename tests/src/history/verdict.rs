//! The checker's verdict on a run: every violation of the answer and end-state rules,
//! and, when there is one, the whole history written where a failed run can be read
//! (`target/histories/<name>.json`, `docs/testing.md#histories`).

use std::path::PathBuf;

use super::answers::check_answers;
use super::record::History;
use super::rows::check_rows;
use super::state::FinalState;
use super::violation::Violation;

/// Every violation `history` and `state` show together; empty when the run has a legal
/// explanation.
#[must_use]
pub fn check(history: &History, state: &FinalState) -> Vec<Violation> {
    let exchanges = history.exchanges();
    let mut violations = check_answers(&exchanges);
    violations.extend(check_rows(&exchanges, state));
    violations
}

/// Where failing histories go: `histories/` in the build's target directory.
#[must_use]
pub fn histories_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")),
            PathBuf::from,
        )
        .join("histories")
}

/// Asserts the run is legal.
///
/// # Panics
/// When nothing was recorded (a test that forgot its recording client), and when the
/// run is not legal: after writing the history, the end state and the violations to
/// `histories/<name>.json`, with a summary of the violations.
pub fn assert_legal(history: &History, state: &FinalState, name: &str) {
    assert!(
        !history.exchanges().is_empty(),
        "{name}: the history recorded nothing"
    );
    let violations = check(history, state);
    if violations.is_empty() {
        return;
    }
    let dir = histories_dir();
    let path = dir.join(format!("{name}.json"));
    let report = serde_json::json!({
        "name": name,
        "violations": violations,
        "exchanges": history.exchanges(),
        "final_state": state,
    });
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, serde_json::to_vec_pretty(&report).unwrap()));
    let whereto = match written {
        Ok(()) => format!("history in {}", path.display()),
        Err(e) => format!("history not written to {}: {e}", path.display()),
    };
    let shown: Vec<String> = violations.iter().take(5).map(ToString::to_string).collect();
    panic!(
        "{name}: {} violation(s) of the history rules ({whereto}):\n{}",
        violations.len(),
        shown.join("\n")
    );
}
