//! Histories of fault runs and the checker that decides whether one has a legal
//! explanation: every idempotent request and answer, the end state of the database, and
//! the rules of `docs/http-api.md` between them (`docs/testing.md#histories`).

mod answers;
mod digest;
mod finish;
mod read;
mod record;
mod recording;
mod rows;
mod state;
mod verdict;
mod violation;

#[cfg(test)]
mod tests;

pub use finish::assert_recorded_run_legal;
pub use record::{Exchange, History, ScopeKey};
pub(crate) use recording::exchange_of;
pub use state::{Charges, CreatedRow, FinalState, OrderEvent};
pub use verdict::{assert_legal, check, histories_dir};
pub use violation::{Rule, Violation};
