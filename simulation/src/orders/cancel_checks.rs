//! The invariants of cancels (`docs/simulation.md#invariants`): each answer checked against
//! the database at the moment it is given. A cancel that succeeded is the only one of its
//! order, answers the order as cancelled then, and is its key's first answer byte for byte;
//! `already cancelled` only for an order that is, `capture pending` only for an order with
//! a pending capture.

use std::collections::BTreeSet;

use application::orders::{CancelOrder, CancelRefusal, OrderCancellation};
use application::{Answer, Order, answer};
use domain::{
    ClientOrderRef, NewOrder, OperationState, OrderId, OrderStatus, Quantity, Sku, StoredResponse,
    TenantId,
};

use super::answers::{self, Answered, Rules};
use super::capture_checks::active_capture;
use crate::world::{Db, RecordKey};

/// One cancel's answer, as the request that got it knew it.
pub(crate) type CancelAnswered<'a> = Answered<'a, OrderCancellation, CancelRefusal>;

fn about(answered: &CancelAnswered<'_>) -> String {
    let (tenant, actor, _, key) = answered.record;
    format!(
        "cancel t{tenant}a{actor}:{key} (orders/{})",
        answered.input.order.get()
    )
}

/// An answer the contract allows a cancel at this moment, or why not. `executed` holds
/// the keys answered as executed, `cancelled` the orders a cancel was answered done for.
pub(crate) fn check(
    db: &Db,
    answered: &CancelAnswered<'_>,
    executed: &mut BTreeSet<RecordKey>,
    cancelled: &mut BTreeSet<u64>,
) -> Result<(), String> {
    let about = about(answered);
    let mut rules = CancelRules {
        answered,
        cancelled,
    };
    answers::check::<CancelOrder>(db, answered, &about, executed, &mut rules)
}

struct CancelRules<'a, 'b> {
    answered: &'a CancelAnswered<'b>,
    cancelled: &'a mut BTreeSet<u64>,
}

impl Rules<CancelRefusal> for CancelRules<'_, '_> {
    fn success(&self, db: &Db, response: &StoredResponse) -> Result<(), String> {
        cancelled_answer(db, self.answered, response)
    }

    fn executed(&mut self) -> Result<(), String> {
        let order = self.answered.input.order.get();
        let about = about(self.answered);
        answers::once_per_order(
            self.cancelled,
            order,
            &about,
            "a second cancel of one order done",
        )
    }

    fn refused(&self, db: &Db, refusal: &CancelRefusal) -> Result<(), String> {
        let order = self.answered.input.order.get();
        let capture = active_capture(db, order).map(|(_, row)| row.state);
        let explained = match refusal {
            CancelRefusal::AlreadyCancelled => db.cancellations.contains_key(&order),
            CancelRefusal::CapturePending => capture == Some(OperationState::Pending),
            CancelRefusal::CaptureSucceeded => capture == Some(OperationState::Succeeded),
            CancelRefusal::OrderNotFound => false,
        };
        answers::explained(explained, &about(self.answered), refusal)
    }
}

/// A cancel's success answers the caller's order as cancelled when it was, byte for byte
/// what the legal execution would answer.
fn cancelled_answer(
    db: &Db,
    answered: &CancelAnswered<'_>,
    response: &StoredResponse,
) -> Result<(), String> {
    let id = answered.input.order.get();
    let (Some(row), Some(at)) = (
        db.orders
            .iter()
            .find(|row| row.id == id && row.tenant == answered.tenant),
        db.cancellations.get(&id),
    ) else {
        return Err(format!(
            "{}: answered as cancelled, and its tenant's order is not",
            about(answered)
        ));
    };
    let legal = (|| {
        let order = Order {
            id: OrderId::new(id),
            tenant: TenantId::parse(answered.tenant).ok()?,
            details: NewOrder {
                client_order_ref: ClientOrderRef::parse(&row.client_order_ref).ok()?,
                sku: Sku::parse(&row.sku).ok()?,
                quantity: Quantity::parse(i64::from(row.quantity)).ok()?,
            },
            created_at: row.created_at,
            status: OrderStatus::Cancelled,
            cancelled_at: Some(*at),
        };
        answer::<CancelRefusal>(Answer::Done, order.to_json()).ok()
    })();
    if legal.as_ref() == Some(response) {
        Ok(())
    } else {
        Err(format!(
            "{}: answered with another order, or another cancel's",
            about(answered)
        ))
    }
}
