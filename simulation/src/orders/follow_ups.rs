//! What a client does with an order it created: sometimes cancel it, sometimes capture a
//! payment of it, sometimes both at once, with copies under one key and at times a second
//! key racing the first, each key sent again while its answer is not known, as the
//! contract tells a client to.

use std::sync::Arc;

use application::Outcome;
use application::orders::{CancelOrder, CancelRefusal, OrderCancellation};
use application::payments::{
    CapturePayment, CaptureRefusal, RefundPayment, RefundRefusal, RefundRequest,
};
use domain::{Amount, Currency, OperationState, OrderId, PaymentCapture, Reason};

use super::requests::{Pending, Request, dispatch_request, is_definite, receive};
use super::shared::{Shared, Who};
use super::{cancel_checks, capture_checks, refund_checks};
use crate::choice::Choice;
use crate::locked::locked;

/// One request of a follow-up, on its way.
enum Sent {
    Cancel(Option<Pending<CancelRefusal>>),
    Capture(Option<Pending<CaptureRefusal>>),
    Refund(Option<Pending<RefundRefusal>>),
}

/// What a follow-up's key asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    Cancel,
    Capture,
    /// A refund of this much.
    Refund(i64),
}

/// The cancels and captures of the order `who` created under `reference`, as the seed
/// draws them; then, once a capture of it was accepted, sometimes its charge (the worker's
/// part, proven in the captures' seeds, done here at once) and refunds of it.
pub(super) async fn follow_up(shared: &Arc<Shared>, who: Who, key: &str, reference: &str) {
    let choice = shared.world.choice().clone();
    let found = shared
        .world
        .db()
        .orders
        .iter()
        .find(|order| order.tenant == who.tenant && order.client_order_ref == reference)
        .map(|order| order.id);
    let Some(order) = found else {
        return;
    };
    let mut open = Vec::new();
    for (ask, name, rate) in [(Ask::Cancel, "c", 400), (Ask::Capture, "p", 300)] {
        if choice.chance(rate) {
            open.push((format!("{key}-{name}1"), ask));
            if choice.chance(300) {
                open.push((format!("{key}-{name}2"), ask));
            }
        }
    }
    let captured = ask_rounds(shared, who, order, open).await;
    if !captured || !choice.chance(600) || !charge(shared, order) {
        return;
    }
    let mut refunds = vec![(format!("{key}-r1"), Ask::Refund(1000))];
    if choice.chance(500) {
        refunds.push((format!("{key}-r2"), Ask::Refund(700)));
    }
    ask_rounds(shared, who, order, refunds).await;
}

/// Sends every open key's request (sometimes two copies) at once, again while its answer
/// is not definite, up to four rounds; whether a capture was accepted.
async fn ask_rounds(
    shared: &Arc<Shared>,
    who: Who,
    order: u64,
    mut open: Vec<(String, Ask)>,
) -> bool {
    let choice = shared.world.choice().clone();
    let mut captured = false;
    for _ in 0..4 {
        if open.is_empty() {
            break;
        }
        let mut pending = Vec::new();
        for (follow_key, ask) in &open {
            for _ in 0..copies(&choice) {
                let process = choice.below(shared.processes.count());
                let to = (process, who, follow_key.as_str(), order);
                let sent = match ask {
                    Ask::Cancel => Sent::Cancel(dispatch_cancel(shared, to)),
                    Ask::Capture => Sent::Capture(dispatch_capture(shared, to)),
                    Ask::Refund(amount) => Sent::Refund(dispatch_refund(shared, to, *amount)),
                };
                pending.push((follow_key.clone(), sent));
            }
        }
        let mut answered = Vec::new();
        for (follow_key, sent) in pending {
            let definite = match sent {
                Sent::Cancel(sent) => is_definite(receive(shared, sent).await.as_ref()),
                Sent::Capture(sent) => {
                    let answer = receive(shared, sent).await;
                    captured |= matches!(
                        answer,
                        Some(Outcome::Executed { .. } | Outcome::Replayed { .. })
                    );
                    is_definite(answer.as_ref())
                }
                Sent::Refund(sent) => is_definite(receive(shared, sent).await.as_ref()),
            };
            if definite {
                answered.push(follow_key);
            }
        }
        open.retain(|(follow_key, _)| !answered.contains(follow_key));
    }
    captured
}

/// The order's pending capture ends succeeded with its payment, at once, as its worker's
/// end would commit it; false when it has none pending.
fn charge(shared: &Shared, order: u64) -> bool {
    let mut db = shared.world.db();
    let Some((id, row)) = db
        .operations
        .iter_mut()
        .find(|(_, row)| row.order.get() == order && row.state == OperationState::Pending)
    else {
        return false;
    };
    row.state = OperationState::Succeeded;
    let id = *id;
    db.payments.push((id, format!("ch_{order}")));
    db.commits += 1;
    true
}

fn copies(choice: &Choice) -> usize {
    1 + usize::from(choice.chance(300))
}

/// Where a follow-up goes, whose it is, under which key, of which order.
type To<'a> = (usize, Who, &'a str, u64);

/// One cancel of `order` under `key`, its reason named after the key.
fn dispatch_cancel(
    shared: &Arc<Shared>,
    (process, who, key, order): To<'_>,
) -> Option<Pending<CancelRefusal>> {
    let input = OrderCancellation {
        order: OrderId::new(order),
        reason: Reason::parse(&format!("reason {key}")).ok()?,
    };
    let request = Request {
        op: CancelOrder,
        who,
        key,
        label: format!("cancel orders/{order}"),
        input,
    };
    dispatch_request(
        shared,
        process,
        request,
        |db, answered, executed, shared| {
            cancel_checks::check(db, answered, executed, &mut locked(&shared.cancelled))
        },
    )
}

/// One capture of 1 500 JPY of `order` under `key`.
fn dispatch_capture(
    shared: &Arc<Shared>,
    (process, who, key, order): To<'_>,
) -> Option<Pending<CaptureRefusal>> {
    let input = PaymentCapture {
        order: OrderId::new(order),
        amount: Amount::parse(1500).ok()?,
        currency: Currency::parse("JPY").ok()?,
    };
    let request = Request {
        op: CapturePayment,
        who,
        key,
        label: format!("capture orders/{order}"),
        input,
    };
    dispatch_request(
        shared,
        process,
        request,
        |db, answered, executed, shared| {
            capture_checks::check(db, answered, executed, &mut locked(&shared.captured))
        },
    )
}

/// One refund of `amount` JPY of `order`'s capture under `key`.
fn dispatch_refund(
    shared: &Arc<Shared>,
    (process, who, key, order): To<'_>,
    amount: i64,
) -> Option<Pending<RefundRefusal>> {
    let input = RefundRequest {
        order: OrderId::new(order),
        amount: Amount::parse(amount).ok()?,
        reason: Reason::parse(&format!("reason {key}")).ok()?,
    };
    let request = Request {
        op: RefundPayment,
        who,
        key,
        label: format!("refund {amount} of orders/{order}"),
        input,
    };
    dispatch_request(shared, process, request, |db, answered, executed, _| {
        refund_checks::check(db, answered, executed)
    })
}
