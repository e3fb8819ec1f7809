//! The invariants of refunds' acceptances (`docs/simulation.md#invariants`): each answer
//! checked against the database at the moment it is given. An accepted refund names its
//! own operation, of its order and amount; `exceeds captured` only when the capture has
//! less left than asked, `not refundable` only without a succeeded capture.

use std::collections::BTreeSet;

use application::IdempotentOperation;
use application::leased::decode_job;
use application::payments::{RefundJob, RefundPayment, RefundRefusal, RefundRequest};
use domain::StoredResponse;
use uuid::Uuid;

use super::answers::{self, Answered, Rules};
use crate::world::{Db, RecordKey, succeeded_capture};

/// One refund's answer, as the request that got it knew it.
pub(crate) type RefundAnswered<'a> = Answered<'a, RefundRequest, RefundRefusal>;

fn about(answered: &RefundAnswered<'_>) -> String {
    let (tenant, actor, _, key) = answered.record;
    format!(
        "refund t{tenant}a{actor}:{key} ({} of orders/{})",
        answered.input.amount.get(),
        answered.input.order.get()
    )
}

/// What the order's capture has left for refunds, as the database holds it now.
pub(crate) fn left(db: &Db, order: u64) -> Option<u32> {
    let (_, captured) = succeeded_capture(db, order)?;
    captured.checked_sub(db.refunded.get(&order).copied().unwrap_or(0))
}

/// An answer the contract allows a refund at this moment, or why not.
pub(crate) fn check(
    db: &Db,
    answered: &RefundAnswered<'_>,
    executed: &mut BTreeSet<RecordKey>,
) -> Result<(), String> {
    let about = about(answered);
    answers::check::<RefundPayment>(db, answered, &about, executed, &mut RefundRules(answered))
}

struct RefundRules<'a, 'b>(&'a RefundAnswered<'b>);

impl Rules<RefundRefusal> for RefundRules<'_, '_> {
    /// The `202` names a refund operation of this order and amount, as its acceptance
    /// answers it.
    fn success(&self, db: &Db, response: &StoredResponse) -> Result<(), String> {
        let input = self.0.input;
        let named = serde_json::from_slice::<serde_json::Value>(response.body())
            .ok()
            .and_then(|body| Uuid::parse_str(body.get("operationId")?.as_str()?).ok());
        let legal = named.and_then(|id| {
            let row = db.operations.get(&id)?;
            let job: RefundJob = decode_job(&row.input).ok()?;
            let mine = row.kind == RefundPayment::NAME
                && row.order == input.order
                && job.amount == input.amount;
            if mine {
                answers::accepted(id, row)
            } else {
                None
            }
        });
        if legal.as_ref() == Some(response) {
            Ok(())
        } else {
            Err(format!(
                "{}: accepted, and its answer is not a refund of its order and amount",
                about(self.0)
            ))
        }
    }

    fn executed(&mut self) -> Result<(), String> {
        Ok(())
    }

    fn refused(&self, db: &Db, refusal: &RefundRefusal) -> Result<(), String> {
        let order = self.0.input.order.get();
        let explained = match refusal {
            RefundRefusal::NotRefundable => succeeded_capture(db, order).is_none(),
            RefundRefusal::ExceedsCaptured => {
                left(db, order).is_some_and(|left| left < self.0.input.amount.get())
            }
            RefundRefusal::OrderNotFound => false,
        };
        answers::explained(explained, &about(self.0), refusal)
    }
}

/// Never more reserved than captured, and what is reserved is what the refunds accepted ask.
pub(crate) fn database(db: &Db) -> Result<(), String> {
    for (order, refunded) in &db.refunded {
        let captured = succeeded_capture(db, *order).map_or(0, |(_, amount)| amount);
        if *refunded > captured {
            return Err(format!(
                "orders/{order}: {refunded} reserved for refunds of a capture of {captured}"
            ));
        }
        let asked: u32 = db
            .operations
            .values()
            .filter(|row| row.kind == RefundPayment::NAME && row.order.get() == *order)
            .filter_map(|row| decode_job::<RefundJob>(&row.input).ok())
            .map(|job| job.amount.get())
            .sum();
        if asked != *refunded {
            return Err(format!(
                "orders/{order}: {refunded} reserved beside refunds asking {asked}"
            ));
        }
    }
    Ok(())
}
