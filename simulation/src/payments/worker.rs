//! A process's worker: the production `work_once` over the due operations, pass after
//! pass, as the server's worker task loops, until nothing is pending.

use std::sync::Arc;
use std::time::Duration;

use application::IdempotentOperation;
use application::leased::{OperationStore, Unobserved, WorkerPorts, WorkerSettings, work_once};
use application::payments::CapturePayment;
use application::ports::{Clock, NoHooks};
use chrono::TimeDelta;
use domain::OwnerId;

use super::{MAX_ATTEMPTS, Shared};
use crate::world::SimClock;

pub(super) async fn worker(shared: Arc<Shared>, process: usize, worker: u64) {
    let clock = SimClock(Arc::clone(&shared.world));
    let Ok(owner) = OwnerId::parse(&format!("worker-{worker}")) else {
        return;
    };
    let settings = WorkerSettings {
        owner,
        lease: TimeDelta::milliseconds(3),
        max_attempts: MAX_ATTEMPTS,
        first_backoff: Duration::from_millis(1),
        key_retention: TimeDelta::days(1),
    };
    let ports = WorkerPorts {
        store: &shared.store,
        provider: &shared.provider,
        clock: &clock,
        hooks: &NoHooks,
        calls: &Unobserved,
    };
    while shared.any_pending() {
        let due = shared
            .store
            .due(&[CapturePayment::NAME], 4, clock.now())
            .await;
        let due = match due {
            Ok(due) if !due.is_empty() => due,
            _ => {
                clock.pause(Duration::from_millis(1)).await;
                continue;
            }
        };
        for operation in due {
            let worked = work_once::<CapturePayment, _, _, _>(ports, &settings, &operation).await;
            shared.note(format!(
                "p{process} worker-{worker}: capture {} {worked:?}",
                operation.order
            ));
        }
    }
}
