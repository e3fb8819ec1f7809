//! Cancels beside creates: after a create's success its client sometimes cancels the
//! order, with copies under one key and at times a second key racing the first, each key
//! sent again while its answer is not known, as the contract tells a client to.

use std::sync::Arc;

use application::Outcome;
use application::orders::{CancelOrder, CancelRefusal, OrderCancellation};
use domain::{OrderId, Reason};

use super::requests::{Pending, Request, dispatch_request, is_definite, receive};
use super::shared::{Shared, Who};

/// The cancels of the order `who` created under `reference`, if the seed says so.
pub(super) async fn cancel_some(shared: &Arc<Shared>, who: Who, key: &str, reference: &str) {
    let choice = shared.world.choice().clone();
    if !choice.chance(400) {
        return;
    }
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
    let mut open: Vec<String> = vec![format!("{key}-c1")];
    if choice.chance(300) {
        open.push(format!("{key}-c2"));
    }
    for _ in 0..4 {
        let mut pending = Vec::new();
        for cancel_key in &open {
            let copies = 1 + usize::from(choice.chance(300));
            for _ in 0..copies {
                let process = choice.below(shared.processes.count());
                let sent = dispatch_cancel(shared, process, who, cancel_key, order);
                pending.push((cancel_key.clone(), sent));
            }
        }
        let mut answered = Vec::new();
        for (cancel_key, sent) in pending {
            if is_definite(receive(shared, sent).await.as_ref()) {
                answered.push(cancel_key);
            }
        }
        open.retain(|cancel_key| !answered.contains(cancel_key));
        if open.is_empty() {
            break;
        }
    }
}

/// One cancel of `order` under `key`, its reason named after the key.
fn dispatch_cancel(
    shared: &Arc<Shared>,
    process: usize,
    who: Who,
    key: &str,
    order: u64,
) -> Option<Pending<CancelRefusal>> {
    let reason = Reason::parse(&format!("reason {key}")).ok()?;
    let input = OrderCancellation {
        order: OrderId::new(order),
        reason,
    };
    let label = format!("cancel orders/{order}");
    let request = Request {
        op: CancelOrder,
        who,
        key,
        label: &label,
        input: input.clone(),
    };
    let task_key = key.to_owned();
    dispatch_request(
        shared,
        process,
        request,
        move |shared, lived_through, outcome: &Outcome<CancelRefusal>| {
            shared.check_cancel(process, (who, &task_key), &input, lived_through, outcome);
        },
    )
}
