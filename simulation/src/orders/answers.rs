//! What every keyed answer must be, whatever its operation (`docs/simulation.md#invariants`):
//! a success or a stored answer is its key's first answer byte for byte, under the request's
//! own body, executed once; `409`s, `503` and failures after deadlocks only as the
//! contract allows them. The operation says what its success and its refusals must be.

use std::collections::BTreeSet;

use application::leased::NewOperation;
use application::{FailureCause, IdempotentOperation, Outcome};
use domain::{Fingerprinted, RecordState, StoredResponse};

use crate::world::{Db, OperationRow, RecordKey, Strikes};

/// One answer, as the request that got it knew it.
pub(crate) struct Answered<'a, I, R> {
    pub(crate) record: &'a RecordKey,
    pub(crate) tenant: u64,
    pub(crate) input: &'a I,
    pub(crate) outcome: &'a Outcome<R>,
    /// The faults struck when it was sent and when it was answered.
    pub(crate) lived_through: (Strikes, Strikes),
}

/// What an operation's answers must be beyond what every keyed answer must.
pub(crate) trait Rules<R> {
    /// A success, as the database holds it now: the legal execution's answer to this request.
    fn success(&self, db: &Db, response: &StoredResponse) -> Result<(), String>;
    /// Told once per key executed: what else an execution must be (the only one of its
    /// order, say).
    fn executed(&mut self) -> Result<(), String>;
    /// A refusal answered as it was decided.
    fn refused(&self, db: &Db, refusal: &R) -> Result<(), String>;
}

/// An answer of `Op` the contract allows at this moment, or why not; `about` names it in a
/// violation. `executed` holds the keys already answered as executed: a second such
/// answer is a second execution.
pub(crate) fn check<Op>(
    db: &Db,
    answered: &Answered<'_, Op::Input, Op::Refusal>,
    about: &str,
    executed: &mut BTreeSet<RecordKey>,
    rules: &mut dyn Rules<Op::Refusal>,
) -> Result<(), String>
where
    Op: IdempotentOperation,
    Op::Refusal: std::fmt::Debug,
{
    let mine = answered.input.fingerprint(&Op::OPERATION);
    let (before, after) = answered.lived_through;
    let stored = db.records.get(answered.record);
    let first_answer = |response: &StoredResponse| match stored {
        None => Err(format!("{about}: answered before its record committed")),
        Some(row) if row.fingerprint != mine => Err(format!(
            "{about}: given the answer of another body under its key"
        )),
        Some(row) => match &row.state {
            RecordState::Completed(completion) if completion.response == *response => {
                if response.status() < 300 {
                    rules.success(db, response)
                } else {
                    Ok(())
                }
            }
            _ => Err(format!(
                "{about}: the answer differs from the key's first, byte for byte"
            )),
        },
    };
    match answered.outcome {
        Outcome::Executed { response, .. } => {
            first_answer(response)?;
            if !executed.insert(answered.record.clone()) {
                return Err(format!("{about}: executed a second time"));
            }
            rules.executed()
        }
        Outcome::Replayed { response, .. } => first_answer(response),
        Outcome::Rejected(refusal) => rules.refused(db, refusal),
        // A refusal stored under its key: its first answer, as the database explains it.
        Outcome::RejectedAndStored {
            refusal, response, ..
        } => {
            first_answer(response)?;
            if !executed.insert(answered.record.clone()) {
                return Err(format!("{about}: its refusal stored a second time"));
            }
            rules.refused(db, refusal)
        }
        Outcome::KeyReused => match stored {
            Some(row) if row.fingerprint != mine => Ok(()),
            _ => Err(format!(
                "{about}: told its key holds another body, which it does not"
            )),
        },
        // Another request holds the key: allowed whenever a wait ran out.
        Outcome::InProgress => Ok(()),
        // Only a fault explains it; it may have struck before the request came: the
        // members waiting on a batch whose database just failed are told so at once.
        Outcome::OutcomeUnknown(_) if after.any() => Ok(()),
        // Nothing committed, after deadlocks (injected ones included) on every attempt.
        Outcome::Failed(FailureCause::DeadlockRetriesExhausted)
            if before.deadlock_before(after) =>
        {
            Ok(())
        }
        other => Err(format!("{about}: an answer it may not get: {other:?}")),
    }
}

/// A refusal the database explains, or why it breaks the run.
pub(crate) fn explained<R: std::fmt::Debug>(
    explained: bool,
    about: &str,
    refusal: &R,
) -> Result<(), String> {
    if explained {
        Ok(())
    } else {
        Err(format!(
            "{about}: refused ({refusal:?}) where the database does not say so"
        ))
    }
}

/// What the acceptance of the operation `id`, stored as `row`, answers: its `202`.
pub(crate) fn accepted(id: uuid::Uuid, row: &OperationRow) -> Option<StoredResponse> {
    NewOperation {
        id,
        kind: row.kind,
        tenant: row.tenant,
        order: row.order,
        input: row.input.clone(),
        result: Vec::new(),
        downstream_key: row.downstream_key.clone(),
        accepted_at: row.accepted_at,
    }
    .accepted::<application::NoRefusal>()
    .ok()
}

/// The first execution of its kind for `order` (in `done`), or a violation naming `what`.
pub(crate) fn once_per_order(
    done: &mut BTreeSet<u64>,
    order: u64,
    about: &str,
    what: &str,
) -> Result<(), String> {
    if done.insert(order) {
        Ok(())
    } else {
        Err(format!("{about}: {what}"))
    }
}
