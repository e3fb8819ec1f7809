//! Holds the first request through the flow right after its record insert, inside its
//! open transaction, until the test says how it ends. No sleeps: the test waits for the
//! "inserted" signal, arranges the followers, then sends the verdict.

use std::sync::Mutex;

use application::ports::{FlowHooks, HookVerdict, KeyPoint};
use domain::{IdempotencyKey, Scope};
use tokio::sync::oneshot;

/// The hook side, installed in the leader's coordinator.
#[derive(Debug)]
pub struct LeaderGate {
    once: Mutex<Option<(oneshot::Sender<()>, oneshot::Receiver<HookVerdict>)>>,
}

/// The test's side.
#[derive(Debug)]
pub struct GateHandle {
    inserted: oneshot::Receiver<()>,
    verdict: oneshot::Sender<HookVerdict>,
}

impl LeaderGate {
    /// A gate that holds the first request to reach it; later ones pass straight through.
    #[must_use]
    pub fn new() -> (Self, GateHandle) {
        let (inserted_tx, inserted_rx) = oneshot::channel();
        let (verdict_tx, verdict_rx) = oneshot::channel();
        let gate = Self {
            once: Mutex::new(Some((inserted_tx, verdict_rx))),
        };
        let handle = GateHandle {
            inserted: inserted_rx,
            verdict: verdict_tx,
        };
        (gate, handle)
    }
}

impl FlowHooks for LeaderGate {
    async fn at_key(&self, point: KeyPoint, _scope: &Scope, _key: &IdempotencyKey) -> HookVerdict {
        if point != KeyPoint::RecordInserted {
            return HookVerdict::Continue;
        }
        let held = self.once.lock().ok().and_then(|mut once| once.take());
        let Some((inserted, verdict)) = held else {
            return HookVerdict::Continue;
        };
        let _ = inserted.send(());
        verdict.await.unwrap_or(HookVerdict::Abort)
    }
}

impl GateHandle {
    /// Waits until the leader holds its uncommitted record.
    ///
    /// # Panics
    /// If the leader ended without reaching the gate.
    pub async fn leader_inserted(&mut self) {
        (&mut self.inserted)
            .await
            .expect("the leader ended before inserting its record");
    }

    /// Lets the leader go on to commit, or makes it roll back.
    pub fn release(self, verdict: HookVerdict) {
        let _ = self.verdict.send(verdict);
    }
}
