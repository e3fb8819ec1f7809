//! The invariants of captures' acceptances beside cancels (`docs/simulation.md#invariants`):
//! each answer checked against the database at the moment it is given. An accepted
//! capture is the only active one of its order, of an order not cancelled, and answers its
//! own operation; its refusals only as the database explains them.

use std::collections::BTreeSet;

use application::payments::{CapturePayment, CaptureRefusal};
use domain::{PaymentCapture, StoredResponse};

use super::answers::{self, Answered, Rules};
use crate::world::{Db, OperationRow, RecordKey};

/// One capture's answer, as the request that got it knew it.
pub(crate) type CaptureAnswered<'a> = Answered<'a, PaymentCapture, CaptureRefusal>;

fn about(answered: &CaptureAnswered<'_>) -> String {
    let (tenant, actor, _, key) = answered.record;
    format!(
        "capture t{tenant}a{actor}:{key} (orders/{})",
        answered.input.order.get()
    )
}

/// The order's pending or succeeded capture, if it has one.
pub(crate) fn active_capture(db: &Db, order: u64) -> Option<(&uuid::Uuid, &OperationRow)> {
    db.operations
        .iter()
        .find(|(_, row)| row.order.get() == order && row.state.blocks_another_capture())
}

/// An answer the contract allows a capture at this moment, or why not. `executed` holds
/// the keys answered as executed, `accepted` the orders a capture was accepted for.
pub(crate) fn check(
    db: &Db,
    answered: &CaptureAnswered<'_>,
    executed: &mut BTreeSet<RecordKey>,
    accepted: &mut BTreeSet<u64>,
) -> Result<(), String> {
    let about = about(answered);
    let mut rules = CaptureRules { answered, accepted };
    answers::check::<CapturePayment>(db, answered, &about, executed, &mut rules)
}

struct CaptureRules<'a, 'b> {
    answered: &'a CaptureAnswered<'b>,
    accepted: &'a mut BTreeSet<u64>,
}

impl Rules<CaptureRefusal> for CaptureRules<'_, '_> {
    /// The `202` names the order's one active capture, as its acceptance answers it.
    fn success(&self, db: &Db, response: &StoredResponse) -> Result<(), String> {
        let order = self.answered.input.order.get();
        let legal = active_capture(db, order).and_then(|(id, row)| answers::accepted(*id, row));
        if legal.as_ref() == Some(response) {
            Ok(())
        } else {
            Err(format!(
                "{}: accepted, and its answer is not its order's capture",
                about(self.answered)
            ))
        }
    }

    fn executed(&mut self) -> Result<(), String> {
        let order = self.answered.input.order.get();
        let about = about(self.answered);
        answers::once_per_order(
            self.accepted,
            order,
            &about,
            "a second capture of one order accepted",
        )
    }

    fn refused(&self, db: &Db, refusal: &CaptureRefusal) -> Result<(), String> {
        let order = self.answered.input.order.get();
        let explained = match refusal {
            CaptureRefusal::OrderCancelled => db.cancellations.contains_key(&order),
            CaptureRefusal::PaymentExists => active_capture(db, order).is_some(),
            CaptureRefusal::OrderNotFound => false,
        };
        answers::explained(explained, &about(self.answered), refusal)
    }
}
