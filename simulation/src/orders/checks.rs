//! The invariants of creates (`docs/simulation.md#invariants`): each answer is checked
//! against the database at the moment it is given, the database after every step.

use std::collections::{BTreeMap, BTreeSet};

use application::{CreateOrder, CreateRefusal, FailureCause, IdempotentOperation, Outcome};
use domain::{Fingerprinted, NewOrder, RecordState, StoredResponse};

use crate::world::{Db, RecordKey};

/// One answer, as the request that got it knew it.
pub(crate) struct Answered<'a> {
    pub(crate) record: &'a RecordKey,
    pub(crate) tenant: u64,
    pub(crate) input: &'a NewOrder,
    pub(crate) outcome: &'a Outcome<CreateRefusal>,
}

/// What a violation is about, for the seed's report.
fn about(answered: &Answered<'_>) -> String {
    format!(
        "key {} ({})",
        answered.record.3,
        answered.input.sku.as_str()
    )
}

/// An answer the contract allows at this moment, or why not. `executed` holds the keys
/// already answered as executed: a second such answer is a second execution.
pub(crate) fn answer(
    db: &Db,
    answered: &Answered<'_>,
    executed: &mut BTreeSet<RecordKey>,
) -> Result<(), String> {
    let mine = answered.input.fingerprint(&CreateOrder::OPERATION);
    let stored = db.records.get(answered.record);
    let first_answer = |response: &StoredResponse| match stored {
        None => Err(format!(
            "{}: answered before its record committed",
            about(answered)
        )),
        Some(row) if row.fingerprint != mine => Err(format!(
            "{}: given the answer of another body under its key",
            about(answered)
        )),
        Some(row) => match &row.state {
            RecordState::Completed(completion) if completion.response == *response => Ok(()),
            _ => Err(format!(
                "{}: the answer differs from the key's first, byte for byte",
                about(answered)
            )),
        },
    };
    match answered.outcome {
        Outcome::Executed { response, .. } => {
            first_answer(response)?;
            if executed.insert(answered.record.clone()) {
                Ok(())
            } else {
                Err(format!("{}: executed a second time", about(answered)))
            }
        }
        Outcome::Replayed { response, .. } => first_answer(response),
        Outcome::KeyReused => match stored {
            Some(row) if row.fingerprint != mine => Ok(()),
            _ => Err(format!(
                "{}: told its key holds another body, which it does not",
                about(answered)
            )),
        },
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict) => {
            let reference = answered.input.client_order_ref.as_str();
            if db
                .orders
                .iter()
                .any(|o| o.tenant == answered.tenant && o.client_order_ref == reference)
            {
                Ok(())
            } else {
                Err(format!(
                    "{}: refused for a clientOrderRef no committed order has",
                    about(answered)
                ))
            }
        }
        // Both say "not known now": allowed whenever a wait ran out or a fault struck.
        Outcome::InProgress | Outcome::OutcomeUnknown(_) => Ok(()),
        // Nothing committed, after deadlocks (injected ones included) on every attempt.
        Outcome::Failed(FailureCause::DeadlockRetriesExhausted) => Ok(()),
        other => Err(format!(
            "{}: an answer no create may get: {other:?}",
            about(answered)
        )),
    }
}

/// The database's invariants for creates: one order per intent (the body's SKU), each
/// committed record completed with one order beside it, one created event per order.
pub(crate) fn database(db: &Db) -> Result<(), String> {
    let mut per_sku: BTreeMap<&str, usize> = BTreeMap::new();
    for order in &db.orders {
        let count = per_sku.entry(order.sku.as_str()).or_default();
        *count += 1;
        if *count > 1 {
            return Err(format!("a second order for one intent ({})", order.sku));
        }
    }
    if let Some((key, _)) = db
        .records
        .iter()
        .find(|(_, row)| row.state == RecordState::Processing)
    {
        return Err(format!("key {} committed while still processing", key.3));
    }
    if db.records.len() != db.orders.len() {
        return Err(format!(
            "{} records committed beside {} orders",
            db.records.len(),
            db.orders.len()
        ));
    }
    for order in &db.orders {
        let about = format!("orders/{}", order.id);
        let events = db
            .events
            .iter()
            .filter(|event| event.about.as_ref().is_some_and(|(key, _)| *key == about))
            .count();
        if events != 1 {
            return Err(format!("{about} committed with {events} created events"));
        }
    }
    Ok(())
}
