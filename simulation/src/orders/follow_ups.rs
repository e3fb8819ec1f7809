//! What a client does with an order it created: sometimes cancel it, sometimes capture a
//! payment of it, sometimes both at once, with copies under one key and at times a second
//! key racing the first, each key sent again while its answer is not known, as the
//! contract tells a client to.

use std::collections::BTreeSet;
use std::sync::Arc;

use application::orders::{CancelOrder, CancelRefusal, OrderCancellation};
use application::payments::{CapturePayment, CaptureRefusal};
use application::{IdempotentOperation, Steps};
use domain::{Amount, Currency, OrderId, PaymentCapture, Reason};

use super::answers::Answered;
use super::requests::{Pending, Request, dispatch_request, is_definite, receive};
use super::shared::{Asked, Shared, Who};
use super::{cancel_checks, capture_checks};
use crate::choice::Choice;
use crate::locked::locked;
use crate::world::{Db, RecordKey, SimTx};

/// One request of a follow-up, on its way.
enum Sent {
    Cancel(Option<Pending<CancelRefusal>>),
    Capture(Option<Pending<CaptureRefusal>>),
}

/// The cancels and captures of the order `who` created under `reference`, as the seed
/// draws them.
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
    // Each key still open, and whether it is a cancel's.
    let mut open: Vec<(String, bool)> = Vec::new();
    for (is_cancel, rate) in [(true, 400), (false, 300)] {
        if choice.chance(rate) {
            let kind = if is_cancel { "c" } else { "p" };
            open.push((format!("{key}-{kind}1"), is_cancel));
            if choice.chance(300) {
                open.push((format!("{key}-{kind}2"), is_cancel));
            }
        }
    }
    for _ in 0..4 {
        if open.is_empty() {
            break;
        }
        let mut pending = Vec::new();
        for (follow_key, is_cancel) in &open {
            for _ in 0..copies(&choice) {
                let process = choice.below(shared.processes.count());
                let sent = if *is_cancel {
                    Sent::Cancel(dispatch_cancel(shared, process, who, follow_key, order))
                } else {
                    Sent::Capture(dispatch_capture(shared, process, who, follow_key, order))
                };
                pending.push((follow_key.clone(), sent));
            }
        }
        let mut answered = Vec::new();
        for (follow_key, sent) in pending {
            let definite = match sent {
                Sent::Cancel(sent) => is_definite(receive(shared, sent).await.as_ref()),
                Sent::Capture(sent) => is_definite(receive(shared, sent).await.as_ref()),
            };
            if definite {
                answered.push(follow_key);
            }
        }
        open.retain(|(follow_key, _)| !answered.contains(follow_key));
    }
}

fn copies(choice: &Choice) -> usize {
    1 + usize::from(choice.chance(300))
}

/// One cancel of `order` under `key`, its reason named after the key.
fn dispatch_cancel(
    shared: &Arc<Shared>,
    process: usize,
    who: Who,
    key: &str,
    order: u64,
) -> Option<Pending<CancelRefusal>> {
    let input = OrderCancellation {
        order: OrderId::new(order),
        reason: Reason::parse(&format!("reason {key}")).ok()?,
    };
    let label = format!("cancel orders/{order}");
    dispatch_follow_up(
        shared,
        process,
        (who, key),
        label,
        CancelOrder,
        input,
        |db, answered, executed, shared| {
            cancel_checks::check(db, answered, executed, &mut locked(&shared.cancelled))
        },
    )
}

/// One capture of 1 500 JPY of `order` under `key`.
fn dispatch_capture(
    shared: &Arc<Shared>,
    process: usize,
    who: Who,
    key: &str,
    order: u64,
) -> Option<Pending<CaptureRefusal>> {
    let input = PaymentCapture {
        order: OrderId::new(order),
        amount: Amount::parse(1500).ok()?,
        currency: Currency::parse("JPY").ok()?,
    };
    let label = format!("capture orders/{order}");
    dispatch_follow_up(
        shared,
        process,
        (who, key),
        label,
        CapturePayment,
        input,
        |db, answered, executed, shared| {
            capture_checks::check(db, answered, executed, &mut locked(&shared.captured))
        },
    )
}

/// The rule an operation's answers are judged by.
type Rule<Op> = fn(
    &Db,
    &Answered<'_, <Op as IdempotentOperation>::Input, <Op as IdempotentOperation>::Refusal>,
    &mut BTreeSet<RecordKey>,
    &Shared,
) -> Result<(), String>;

/// One request of `op` under `key`, judged by `rule` when answered.
fn dispatch_follow_up<Op>(
    shared: &Arc<Shared>,
    process: usize,
    (who, key): (Who, &str),
    label: String,
    op: Op,
    input: Op::Input,
    rule: Rule<Op>,
) -> Option<Pending<Op::Refusal>>
where
    Op: IdempotentOperation + Send + Sync + 'static,
    Op::Input: Clone + Send + Sync + 'static,
    Op::Refusal: std::fmt::Debug + Send + 'static,
    SimTx: Steps<Op>,
{
    let request = Request {
        op,
        who,
        key,
        label: &label,
        input: input.clone(),
    };
    let (task_key, task_label) = (key.to_owned(), label.clone());
    dispatch_request(
        shared,
        process,
        request,
        move |shared, lived_through, outcome| {
            let asked = Asked {
                process,
                who,
                key: &task_key,
                label: task_label,
            };
            shared.judge::<Op>(asked, &input, lived_through, outcome, rule);
        },
    )
}
