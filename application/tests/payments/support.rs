//! Mocks of the worker's ports and the fixtures its cases share.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use application::leased::{RecordEnd, Unobserved, Worked, WorkerPorts, WorkerSettings, work_once};
use application::payments::{CapturePayment, Money, ProviderRequest, ProviderResource};
use application::ports::{
    Clock, Definite, DueOperation, Ending, NoAnswer, NoHooks, OperationEnd, OperationStore,
    PaymentProvider, ProviderAnswer, StoreError, UnitOfWork,
};
use chrono::{DateTime, TimeDelta, Utc};
use domain::{
    AttemptError, Generation, Lease, LeaseView, OrderId, OwnerId, PaymentCapture, TenantId,
};
use mockall::mock;
use uuid::Uuid;

use crate::no_tx::NoTx;

mock! {
    pub(crate) Store {}
    impl UnitOfWork for Store {
        type Tx = NoTx;
        fn begin(&self) -> impl Future<Output = Result<NoTx, StoreError>> + Send;
    }
    impl OperationStore for Store {
        fn due(
            &self,
            kinds: &[&'static str],
            limit: usize,
            now: DateTime<Utc>,
        ) -> impl Future<Output = Result<Vec<DueOperation>, StoreError>> + Send;
        fn claim(
            &self,
            id: Uuid,
            seen: Generation,
            lease: &Lease,
            now: DateTime<Utc>,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn extend(&self, id: Uuid, lease: &Lease) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn complete<'a, 'b>(
            &self,
            end: &OperationEnd<'a>,
            record: &'b dyn RecordEnd<NoTx>,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn complete_all<'a, 'b, 'c>(
            &self,
            ends: &[OperationEnd<'a>],
            record: &'b dyn RecordEnd<NoTx>,
        ) -> impl Future<Output = Result<Vec<bool>, StoreError>> + Send;
        fn retry_later(
            &self,
            id: Uuid,
            lease: &Lease,
            attempts: u32,
            error: AttemptError,
            next_attempt_at: DateTime<Utc>,
            now: DateTime<Utc>,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    }
}

mock! {
    pub(crate) Provider {}
    impl PaymentProvider for Provider {
        fn create<'a>(
            &self,
            resource: ProviderResource,
            key: &str,
            request: &ProviderRequest<'a>,
        ) -> impl Future<Output = ProviderAnswer> + Send;
        fn find(
            &self,
            resource: ProviderResource,
            key: &str,
            money: Money,
        ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send;
        fn charge(
            &self,
            key: &str,
            input: &PaymentCapture,
            reference: &str,
        ) -> impl Future<Output = ProviderAnswer> + Send;
        fn lookup(
            &self,
            key: &str,
            input: &PaymentCapture,
        ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send;
    }
}

/// A mock's answer: mockall wants the future boxed.
pub(crate) fn ready<T: Send + 'static>(value: T) -> Pin<Box<dyn Future<Output = T> + Send>> {
    Box::pin(std::future::ready(value))
}

pub(crate) const KEY: &str = "op-downstream-key";

pub(crate) fn t0() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).unwrap()
}

/// A clock that reads `t0`, then `later` on every read after the first (the provider
/// call takes that long). Its first `free_pauses` pauses end at once; every later one
/// never ends, so a heartbeat beats exactly that many times.
pub(crate) struct Clock2 {
    pub(crate) reads: Mutex<u32>,
    pub(crate) later: TimeDelta,
    pub(crate) free_pauses: Mutex<u32>,
}

impl Clock for Clock2 {
    fn now(&self) -> DateTime<Utc> {
        let mut reads = self.reads.lock().unwrap();
        *reads += 1;
        if *reads == 1 { t0() } else { t0() + self.later }
    }

    fn pause(&self, _duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let mut free = self.free_pauses.lock().unwrap();
        if *free == 0 {
            return Box::pin(std::future::pending());
        }
        *free -= 1;
        Box::pin(std::future::ready(()))
    }
}

pub(crate) fn clock(later_secs: i64) -> Clock2 {
    clock_beating(later_secs, 0)
}

/// A clock whose heartbeat beats `beats` times.
pub(crate) fn clock_beating(later_secs: i64, beats: u32) -> Clock2 {
    Clock2 {
        reads: Mutex::new(0),
        later: TimeDelta::seconds(later_secs),
        free_pauses: Mutex::new(beats),
    }
}

/// A provider call that answers `answer` only after the worker has had a chance to beat
/// (it yields once first).
pub(crate) fn slow<T: Send + 'static>(answer: T) -> Pin<Box<dyn Future<Output = T> + Send>> {
    Box::pin(async move {
        tokio::task::yield_now().await;
        answer
    })
}

pub(crate) fn settings() -> WorkerSettings {
    WorkerSettings {
        owner: OwnerId::parse("worker-1").unwrap(),
        lease: TimeDelta::seconds(30),
        max_attempts: 3,
        first_backoff: Duration::from_secs(2),
        key_retention: TimeDelta::hours(24),
    }
}

pub(crate) fn operation(attempts: u32) -> DueOperation {
    DueOperation {
        id: Uuid::from_u128(7),
        kind: "payments.capture.v1".to_owned(),
        tenant: TenantId::parse(1).unwrap(),
        order: OrderId::new(9),
        input: br#"{"amount":1500,"currency":"JPY"}"#.to_vec(),
        downstream_key: KEY.to_owned(),
        attempts,
        accepted_at: t0() - TimeDelta::hours(1),
        lease: LeaseView {
            generation: Generation::new(4),
            holder: None,
        },
        trace_context: None,
    }
}

/// A store whose claim of generation 4 succeeds with generation 5.
pub(crate) fn store_claiming() -> MockStore {
    let mut store = MockStore::new();
    store
        .expect_claim()
        .withf(|id, seen, lease, now| {
            *id == Uuid::from_u128(7)
                && *now == t0()
                && *seen == Generation::new(4)
                && lease.generation == Generation::new(5)
                && lease.expires_at == t0() + TimeDelta::seconds(30)
        })
        .times(1)
        .returning(|_, _, _, _| ready(Ok(true)));
    store
}

pub(crate) fn provider_answering(answer: ProviderAnswer) -> MockProvider {
    let mut provider = MockProvider::new();
    provider
        .expect_charge()
        .withf(|key, input, reference| {
            key == KEY
                && input.amount.get() == 1500
                && reference == Uuid::from_u128(7).hyphenated().to_string()
        })
        .times(1)
        .return_once(move |_, _, _| ready(answer));
    provider
}

pub(crate) fn charged(id: &str, succeeded: bool) -> Definite {
    Definite {
        id: domain::ProviderId::parse(id).unwrap(),
        succeeded,
    }
}

/// Expects the operation to end as `ending` with `attempts` counted, under generation 5.
pub(crate) fn expect_completion(
    store: &mut MockStore,
    ending: Ending,
    attempts: u32,
    accepted: bool,
) {
    store
        .expect_complete()
        .withf(move |end, _| {
            *end.ending == ending
                && end.attempts == attempts
                && end.lease.generation == Generation::new(5)
        })
        .times(1)
        .returning(move |_, _| ready(Ok(accepted)));
}

pub(crate) async fn work(store: &MockStore, provider: &MockProvider, op: &DueOperation) -> Worked {
    work_with(store, provider, &clock(1), op).await.unwrap()
}

/// The worker's ports over these mocks, with this clock and no pause points.
pub(crate) fn ports<'a>(
    store: &'a MockStore,
    provider: &'a MockProvider,
    clock: &'a Clock2,
) -> WorkerPorts<'a, MockStore, MockProvider, NoHooks> {
    WorkerPorts {
        store,
        provider,
        clock,
        hooks: &NoHooks,
        calls: &Unobserved,
    }
}

/// A worker that never ends is a failure, not a hang (a mutated loop, say).
pub(crate) async fn bounded<T>(work: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), work)
        .await
        .expect("the worker ends")
}

/// Works `op` once with this clock and no pause points.
pub(crate) async fn work_with(
    store: &MockStore,
    provider: &MockProvider,
    clock: &Clock2,
    op: &DueOperation,
) -> Result<Worked, StoreError> {
    let ports = ports(store, provider, clock);
    bounded(work_once::<CapturePayment, _, _, _>(ports, &settings(), op)).await
}
