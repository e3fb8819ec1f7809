//! The invariants of captures (`docs/simulation.md#invariants`): never a second charge or
//! a second payment for one operation, `needs_review` only when no definite answer could
//! be had; at the end every operation ended, and each succeeded one recorded once with
//! the provider's charge.

use domain::{AttemptError, OperationState};

use super::provider::Told;
use super::{MAX_ATTEMPTS, Shared};
use crate::locked::locked;

pub(super) fn every_step(shared: &Shared) -> Result<(), String> {
    let ledger = shared.provider.ledger();
    if let Some((reference, charges)) = ledger.per_reference.iter().find(|(_, n)| **n > 1) {
        return Err(format!("operation {reference} charged {charges} times"));
    }
    let db = shared.world.db();
    for row in db.operations.values() {
        if let Some(stale) = row.landed.iter().find(|landed| landed.under != landed.on) {
            return Err(format!(
                "capture {}: a write of generation {} landed on generation {}",
                row.order,
                stale.under.get(),
                stale.on.get()
            ));
        }
        if let Some(foreign) = row.landed.iter().find(|landed| !landed.by_claimer) {
            return Err(format!(
                "capture {}: a write of generation {} landed from a worker that did not win its claim",
                row.order,
                foreign.under.get()
            ));
        }
    }
    let mut looked_at = locked(&shared.looked_at);
    for (id, row) in &db.operations {
        if row.state == OperationState::Pending || looked_at.contains(id) {
            continue;
        }
        looked_at.push(*id);
        let payments = db.payments.iter().filter(|(op, _)| op == id).count();
        if payments > usize::from(row.state == OperationState::Succeeded) {
            return Err(format!("capture {}: {payments} payments", row.order));
        }
        let called = !matches!(
            row.last_error,
            Some(AttemptError::KeyRetentionPassed | AttemptError::InputUnreadable)
        );
        if row.state == OperationState::NeedsReview && called {
            if row.attempts < MAX_ATTEMPTS {
                return Err(format!(
                    "capture {}: needs review after {} calls without a definite answer",
                    row.order, row.attempts
                ));
            }
            let last = ledger
                .told
                .get(&row.downstream_key)
                .and_then(|told| told.last().copied());
            if last.is_some_and(Told::definite) {
                return Err(format!(
                    "capture {}: needs review while the provider's last word was {last:?}",
                    row.order
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn at_the_end(shared: &Shared) -> Result<(), String> {
    let ledger = shared.provider.ledger();
    let db = shared.world.db();
    for (id, row) in &db.operations {
        let charge = ledger.charges.get(&row.downstream_key);
        let paid: Vec<&str> = db
            .payments
            .iter()
            .filter(|(op, _)| op == id)
            .map(|(_, charge)| charge.as_str())
            .collect();
        let revision = db.revisions.get(&row.order.get()).copied();
        let fine = match row.state {
            OperationState::Succeeded => {
                charge.is_some_and(|c| c.succeeded && paid == [c.id.as_str()])
                    && revision == Some(2)
            }
            OperationState::Declined => {
                charge.is_some_and(|c| !c.succeeded) && paid.is_empty() && revision == Some(1)
            }
            OperationState::NeedsReview => paid.is_empty() && revision == Some(1),
            OperationState::Pending | OperationState::Cancelled => false,
        };
        if !fine {
            return Err(format!(
                "capture {} ended {:?} with charge {charge:?}, payments {paid:?}, revision {revision:?}",
                row.order, row.state
            ));
        }
    }
    Ok(())
}
