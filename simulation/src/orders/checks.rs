//! The invariants of creates (`docs/simulation.md#invariants`): each answer is checked
//! against the database at the moment it is given, the database after every step.

use std::collections::{BTreeMap, BTreeSet};

use application::{
    Answer, CreateOrder, CreateRefusal, FailureCause, IdempotentOperation, Order, Outcome, answer,
};
use domain::{Fingerprinted, NewOrder, OrderId, RecordState, StoredResponse, TenantId};

use crate::world::{Db, RecordKey, Strikes};

/// One answer, as the request that got it knew it.
pub(crate) struct Answered<'a> {
    pub(crate) record: &'a RecordKey,
    pub(crate) tenant: u64,
    pub(crate) input: &'a NewOrder,
    pub(crate) outcome: &'a Outcome<CreateRefusal>,
    /// The faults struck when it was sent and when it was answered.
    pub(crate) lived_through: (Strikes, Strikes),
}

/// What a violation is about, for the seed's report.
fn about(answered: &Answered<'_>) -> String {
    let (tenant, actor, _, key) = answered.record;
    format!(
        "key t{tenant}a{actor}:{key} ({})",
        answered.input.sku.as_str()
    )
}

/// An answer the contract allows at this moment, or why not. `executed` holds the keys
/// already answered as executed: a second such answer is a second execution.
pub(crate) fn check(
    db: &Db,
    answered: &Answered<'_>,
    executed: &mut BTreeSet<RecordKey>,
) -> Result<(), String> {
    let mine = answered.input.fingerprint(&CreateOrder::OPERATION);
    let (before, after) = answered.lived_through;
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
            RecordState::Completed(completion) if completion.response == *response => {
                own_answer(db, answered, response)
            }
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
        other => Err(format!(
            "{}: an answer no create may get: {other:?}",
            about(answered)
        )),
    }
}

/// A success must be the legal execution's answer to this very request: the order of the
/// caller's tenant with the body's reference, as its create answered it. A response stored
/// under the right key can still be another request's (a batch that mixed its members up).
fn own_answer(db: &Db, answered: &Answered<'_>, response: &StoredResponse) -> Result<(), String> {
    let input = answered.input;
    let reference = input.client_order_ref.as_str();
    let Some(order) = db
        .orders
        .iter()
        .find(|o| o.tenant == answered.tenant && o.client_order_ref == reference)
    else {
        return Err(format!(
            "{}: answered as done, and its tenant has no order with its reference",
            about(answered)
        ));
    };
    if order.sku != input.sku.as_str() || order.quantity != input.quantity.get() {
        return Err(format!(
            "{}: its reference's order is another request's",
            about(answered)
        ));
    }
    let legal = TenantId::parse(answered.tenant).ok().and_then(|tenant| {
        let created = Order::created(
            OrderId::new(order.id),
            tenant,
            input.clone(),
            order.created_at,
        );
        answer::<CreateRefusal>(Answer::Created(created.location()), created.to_json()).ok()
    });
    if legal.as_ref() == Some(response) {
        Ok(())
    } else {
        Err(format!(
            "{}: answered with another request's order",
            about(answered)
        ))
    }
}

/// The database's invariants for creates: one order per intent (tenant and SKU), each
/// committed record completed with one order beside it, one created event per order.
pub(crate) fn database(db: &Db) -> Result<(), String> {
    let mut per_intent: BTreeMap<(u64, &str), usize> = BTreeMap::new();
    for order in &db.orders {
        let count = per_intent
            .entry((order.tenant, order.sku.as_str()))
            .or_default();
        *count += 1;
        if *count > 1 {
            return Err(format!(
                "a second order for one intent ({} of tenant {})",
                order.sku, order.tenant
            ));
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
