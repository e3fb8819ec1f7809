//! What the stand-in shares between connections: the ledger, the controls, the release
//! signal for held answers, and the counters a test reads.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use serde::Serialize;
use tokio::sync::watch;

use crate::controls::{Controls, Plan};
use crate::ledger::{Ledger, Resource};

#[derive(Debug)]
pub(crate) struct State {
    pub(crate) ledger: tokio::sync::Mutex<Ledger>,
    controls: Mutex<Controls>,
    /// Bumped by every release; a held answer waits for the first bump after its call.
    release: watch::Sender<u64>,
    charge_calls: AtomicU64,
    refund_calls: AtomicU64,
    lookup_calls: AtomicU64,
    in_flight: AtomicU64,
    held: AtomicU64,
    /// The last [`MAX_TRACEPARENTS`] `traceparent` headers of charge calls, oldest first.
    traceparents: Mutex<VecDeque<String>>,
}

/// How many `traceparent` headers are kept: a client cannot grow memory without bound.
const MAX_TRACEPARENTS: usize = 1000;
/// A W3C `traceparent` is 55 characters; longer values are not recorded.
const MAX_TRACEPARENT_LEN: usize = 55;

/// `GET /counters`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Counters {
    /// `POST /v1/charges` calls, valid or not.
    charge_calls: u64,
    /// `POST /v1/refunds` calls, valid or not.
    refund_calls: u64,
    /// `GET` calls of either.
    lookup_calls: u64,
    /// Distinct charges made: keys charged.
    charges: u64,
    /// Distinct refunds made, declined ones included.
    refunds: u64,
    in_flight: u64,
    held: u64,
    /// The `traceparent` of each charge call that had one, in the order received (the
    /// last 1000): the tests check the provider saw the trace of the request that
    /// accepted the capture.
    traceparents: Vec<String>,
}

impl State {
    pub(crate) fn new(ledger: Ledger) -> Self {
        Self {
            ledger: tokio::sync::Mutex::new(ledger),
            controls: Mutex::new(Controls::default()),
            release: watch::Sender::new(0),
            charge_calls: AtomicU64::new(0),
            refund_calls: AtomicU64::new(0),
            lookup_calls: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            held: AtomicU64::new(0),
            traceparents: Mutex::new(VecDeque::new()),
        }
    }

    pub(crate) fn count_create_call(&self, resource: Resource) {
        match resource {
            Resource::Charges => &self.charge_calls,
            Resource::Refunds => &self.refund_calls,
        }
        .fetch_add(1, Ordering::SeqCst);
    }

    /// Records a charge call's `traceparent`: only up to 55 bytes of visible ASCII, so
    /// nothing longer or with control characters reaches `/counters`.
    pub(crate) fn record_traceparent(&self, value: &[u8]) {
        if value.is_empty()
            || value.len() > MAX_TRACEPARENT_LEN
            || !value.iter().all(u8::is_ascii_graphic)
        {
            return;
        }
        let value = String::from_utf8_lossy(value).into_owned();
        let mut traceparents = self
            .traceparents
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if traceparents.len() == MAX_TRACEPARENTS {
            traceparents.pop_front();
        }
        traceparents.push_back(value);
    }

    pub(crate) fn in_flight(&self) -> InFlight<'_> {
        InFlight::new(&self.in_flight)
    }

    pub(crate) fn lookup_call(&self) {
        self.lookup_calls.fetch_add(1, Ordering::SeqCst);
    }

    /// The current controls (what is left of the counts).
    pub(crate) fn controls(&self) -> Controls {
        self.controls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    pub(crate) fn down(&self) -> bool {
        self.controls().fail_always
    }

    /// Turning `hold` off releases the held answers.
    pub(crate) fn set_controls(&self, controls: Controls) {
        let hold = controls.hold;
        if let Ok(mut current) = self.controls.lock() {
            *current = controls;
        }
        if !hold {
            self.release();
        }
    }

    /// The plan of a charge call arriving now, and the release signal it would wait on
    /// (taken now, so a release from this moment on is not missed).
    pub(crate) fn take_plan(&self) -> (Plan, watch::Receiver<u64>) {
        let receiver = self.release.subscribe();
        let plan = match self.controls.lock() {
            Ok(mut controls) => controls.take_plan(),
            Err(poisoned) => poisoned.into_inner().take_plan(),
        };
        (plan, receiver)
    }

    /// Waits for the next release (or forever without one), counted as held meanwhile.
    pub(crate) async fn hold(&self, mut release: watch::Receiver<u64>) {
        let _held = InFlight::new(&self.held);
        // Err: the sender is gone, which cannot happen while `self` lives.
        let _ = release.changed().await;
    }

    /// Releases every held answer; how many there were.
    pub(crate) fn release(&self) -> u64 {
        // Read first: once released, answers leave the count as they go.
        let held = self.held.load(Ordering::SeqCst);
        self.release.send_modify(|n| *n = n.wrapping_add(1));
        held
    }

    pub(crate) async fn counters(&self) -> Counters {
        let (charges, refunds) = {
            let ledger = self.ledger.lock().await;
            (
                ledger.len(Resource::Charges) as u64,
                ledger.len(Resource::Refunds) as u64,
            )
        };
        Counters {
            charge_calls: self.charge_calls.load(Ordering::SeqCst),
            refund_calls: self.refund_calls.load(Ordering::SeqCst),
            lookup_calls: self.lookup_calls.load(Ordering::SeqCst),
            charges,
            refunds,
            in_flight: self.in_flight.load(Ordering::SeqCst),
            held: self.held.load(Ordering::SeqCst),
            traceparents: self
                .traceparents
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .cloned()
                .collect(),
        }
    }
}

/// One more in a gauge while it lives.
#[derive(Debug)]
pub(crate) struct InFlight<'a>(&'a AtomicU64);

impl<'a> InFlight<'a> {
    fn new(gauge: &'a AtomicU64) -> Self {
        gauge.fetch_add(1, Ordering::SeqCst);
        Self(gauge)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_bounded_visible_traceparents_are_kept() {
        let state = State::new(Ledger::open(None).await.unwrap());
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        state.record_traceparent(traceparent.as_bytes());
        for refused in [
            &b""[..],
            b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
            b"00 4bf9",
            b"00-\x1b[31m",
            "00-\u{e9}".as_bytes(),
        ] {
            state.record_traceparent(refused);
        }
        assert_eq!(state.counters().await.traceparents, [traceparent]);

        for n in 0..MAX_TRACEPARENTS {
            state.record_traceparent(n.to_string().as_bytes());
        }
        let kept = state.counters().await.traceparents;
        assert_eq!(kept.len(), MAX_TRACEPARENTS);
        assert_eq!((kept[0].as_str(), kept[999].as_str()), ("0", "999"));
    }
}
