//! A process's worker: the production `work_group` over the due operations, pass after
//! pass, as the server's worker task loops, until nothing is pending. Each pass works what
//! it read in groups of sizes the seed draws (one operation alone among them), so grouped
//! claims, heartbeats and ends meet crashes, lost leases and other processes' claims.

use std::sync::Arc;
use std::time::Duration;

use application::IdempotentOperation;
use application::leased::{OperationStore, Unobserved, WorkerPorts, WorkerSettings, work_group};
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
        let mut left = due.as_slice();
        while !left.is_empty() {
            let size = 1 + shared.world.choice().below(left.len());
            let (group, rest) = left.split_at(size);
            left = rest;
            let worked = work_group::<CapturePayment, _, _, _>(ports, &settings, group, &[]).await;
            let orders: Vec<u64> = group.iter().map(|op| op.order.get()).collect();
            shared.note(format!(
                "p{process} worker-{worker}: captures {orders:?} {worked:?}"
            ));
        }
    }
}
