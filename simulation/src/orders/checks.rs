//! The invariants of creates (`docs/simulation.md#invariants`): each answer is checked
//! against the database at the moment it is given, the database after every step.

use std::collections::{BTreeMap, BTreeSet};

use application::orders::ORDERS_CANCELLED;
use application::{
    Answer, CreateOrder, CreateRefusal, IdempotentOperation, ORDERS_CREATED, Order, answer,
};
use domain::{NewOrder, OrderId, RecordState, StoredResponse, TenantId};

use super::answers::{self, Answered, Rules};

use crate::world::{Db, RecordKey};

/// One create's answer, as the request that got it knew it.
pub(crate) type CreateAnswered<'a> = Answered<'a, NewOrder, CreateRefusal>;

/// What a violation is about, for the seed's report.
fn about(answered: &CreateAnswered<'_>) -> String {
    let (tenant, actor, _, key) = answered.record;
    format!(
        "key t{tenant}a{actor}:{key} ({})",
        answered.input.sku.as_str()
    )
}

/// An answer the contract allows a create at this moment, or why not. `executed` holds
/// the keys already answered as executed: a second such answer is a second execution.
pub(crate) fn check(
    db: &Db,
    answered: &CreateAnswered<'_>,
    executed: &mut BTreeSet<RecordKey>,
) -> Result<(), String> {
    let about = about(answered);
    answers::check::<CreateOrder>(db, answered, &about, executed, &mut CreateRules(answered))
}

struct CreateRules<'a, 'b>(&'a CreateAnswered<'b>);

impl Rules<CreateRefusal> for CreateRules<'_, '_> {
    fn success(&self, db: &Db, response: &StoredResponse) -> Result<(), String> {
        own_answer(db, self.0, response)
    }

    fn executed(&mut self) -> Result<(), String> {
        Ok(())
    }

    /// The one refusal a create has: only when a committed order has its reference.
    fn refused(&self, db: &Db, _refusal: &CreateRefusal) -> Result<(), String> {
        let answered = self.0;
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
}

/// A success must be the legal execution's answer to this very request: the order of the
/// caller's tenant with the body's reference, as its create answered it. A response stored
/// under the right key can still be another request's (a batch that mixed its members up).
fn own_answer(
    db: &Db,
    answered: &CreateAnswered<'_>,
    response: &StoredResponse,
) -> Result<(), String> {
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

/// The database's invariants for creates and cancels: one order per intent (tenant and
/// SKU), each committed create record completed with one order beside it, each order's
/// created event and, once cancelled, its one cancelled event after it.
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
    let creates = db
        .records
        .keys()
        .filter(|(_, _, operation, _)| operation == CreateOrder::NAME)
        .count();
    if creates != db.orders.len() {
        return Err(format!(
            "{creates} create records committed beside {} orders",
            db.orders.len()
        ));
    }
    for order in &db.orders {
        let about = format!("orders/{}", order.id);
        let events: Vec<(&str, u64)> = db
            .events
            .iter()
            .filter_map(|event| match &event.about {
                Some((key, sequence)) if *key == about => Some((event.event_type, *sequence)),
                _ => None,
            })
            .collect();
        // Created at revision 1; cancelled, if it was, at 2.
        let mut expected = vec![(ORDERS_CREATED.name, 1)];
        if db.cancellations.contains_key(&order.id) {
            expected.push((ORDERS_CANCELLED.name, 2));
        }
        if events != expected {
            return Err(format!("{about} committed with the events {events:?}"));
        }
        if db.cancellations.contains_key(&order.id)
            && super::capture_checks::active_capture(db, order.id).is_some()
        {
            return Err(format!(
                "{about} committed both cancelled and with a capture"
            ));
        }
    }
    Ok(())
}
