//! A mock of the admin's store, a fixed clock, and the fixtures the cases share.

use std::future::Future;
use std::pin::Pin;

use application::admin::{
    Admin, AdminOperation, AdminRequest, AdminScope, AdminStore, AuditCursor, AuditEntry,
    AuditEvent, ChangeOutcome, KeyAddress, KeyRecordView, KeyState, OperationChange,
    OperationCursor, OperationFilter, OperatorName, Recording, Who,
};
use application::leased::{LeasedKinds, Members};
use application::payments::CapturePayment;
use application::ports::{Clock, StoreError, UnitOfWork};
use chrono::{DateTime, TimeDelta, Utc};
use domain::{ActorId, Generation, IdempotencyKey, Operation, OperationState, OrderId, TenantId};
use mockall::mock;

use crate::no_tx::NoTx;
use uuid::Uuid;

mock! {
    pub(crate) Store {}
    impl UnitOfWork for Store {
        type Tx = NoTx;
        fn begin(&self) -> impl Future<Output = Result<NoTx, StoreError>> + Send;
    }
    impl AdminStore for Store {
        fn list_operations(
            &self,
            scope: AdminScope,
            filter: &OperationFilter,
            after: Option<OperationCursor>,
            limit: usize,
        ) -> impl Future<Output = Result<Vec<AdminOperation>, StoreError>> + Send;
        fn find_operation(
            &self,
            scope: AdminScope,
            id: Uuid,
        ) -> impl Future<Output = Result<Option<AdminOperation>, StoreError>> + Send;
        fn change_operation<'a, 'b>(
            &self,
            change: &OperationChange<'a>,
            audit: &AuditEntry,
            recording: Option<Recording<'b, NoTx>>,
        ) -> impl Future<Output = Result<ChangeOutcome, StoreError>> + Send;
        fn find_key(
            &self,
            address: &KeyAddress,
        ) -> impl Future<Output = Result<Option<KeyRecordView>, StoreError>> + Send;
        fn evict_key(
            &self,
            address: &KeyAddress,
            audit: &AuditEntry,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn list_audit(
            &self,
            scope: AdminScope,
            after: Option<AuditCursor>,
            limit: usize,
        ) -> impl Future<Output = Result<Vec<AuditEvent>, StoreError>> + Send;
    }
}

/// A mock's answer: mockall wants the future boxed.
pub(crate) fn ready<T: Send + 'static>(value: T) -> Pin<Box<dyn Future<Output = T> + Send>> {
    Box::pin(std::future::ready(value))
}

/// Always reads [`t0`]: every judgement is made at one known instant.
pub(crate) struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        t0()
    }
}

pub(crate) fn t0() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).unwrap()
}

pub(crate) const RETENTION_HOURS: i64 = 24;

/// The kinds served: captures.
pub(crate) static KINDS: std::sync::LazyLock<LeasedKinds<NoTx>> =
    std::sync::LazyLock::new(|| LeasedKinds::default().with::<CapturePayment>());

pub(crate) fn admin(store: &MockStore) -> Admin<'_, MockStore> {
    Admin {
        store,
        kinds: &KINDS,
        clock: &FixedClock,
        key_retention: TimeDelta::hours(RETENTION_HOURS),
        replay_cache: None,
    }
}

pub(crate) fn tenant(id: u64) -> TenantId {
    TenantId::parse(id).unwrap()
}

pub(crate) fn op_id() -> Uuid {
    Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef)
}

/// Asked by actor 5 of tenant 1, who may see every tenant.
pub(crate) fn request() -> AdminRequest {
    AdminRequest {
        scope: AdminScope::AllTenants,
        who: Who::Caller {
            tenant: tenant(1),
            actor: ActorId::parse(5).unwrap(),
        },
        request_id: "req-42".to_owned(),
    }
}

pub(crate) fn operator_request() -> AdminRequest {
    AdminRequest {
        scope: AdminScope::AllTenants,
        who: Who::Operator(OperatorName::parse("alice@example.com").unwrap()),
        request_id: "cli-7".to_owned(),
    }
}

/// An operation of tenant 2 (not the caller's), accepted an hour ago, at generation 4.
pub(crate) fn operation(state: OperationState) -> AdminOperation {
    AdminOperation {
        id: op_id(),
        operation_type: "payments.capture.v1".to_owned(),
        tenant: tenant(2),
        order: OrderId::new(9),
        input: Members::parse(br#"{"amount":1500,"currency":"JPY"}"#).unwrap(),
        state,
        attempts: 3,
        next_attempt_at: t0() - TimeDelta::minutes(5),
        lease_owner: None,
        lease_expires_at: None,
        generation: Generation::new(4),
        downstream_key: "op-downstream-key".to_owned(),
        last_error: None,
        accepted_at: t0() - TimeDelta::hours(1),
        updated_at: t0() - TimeDelta::minutes(5),
        result: Members::parse(br#"{"payment":null}"#).unwrap(),
        trace_id: None,
    }
}

/// `operation(state)` as an earlier worker left it: leased until `expires_at`.
pub(crate) fn leased(state: OperationState, expires_at: DateTime<Utc>) -> AdminOperation {
    AdminOperation {
        lease_owner: Some("worker-1".to_owned()),
        lease_expires_at: Some(expires_at),
        ..operation(state)
    }
}

/// A store whose every read of the operation answers `seen`.
pub(crate) fn store_reading(seen: AdminOperation, reads: usize) -> MockStore {
    let mut store = MockStore::new();
    store
        .expect_find_operation()
        .withf(|_, id| *id == op_id())
        .times(reads)
        .returning(move |_, _| ready(Ok(Some(seen.clone()))));
    store
}

pub(crate) fn address(tenant_id: u64) -> KeyAddress {
    KeyAddress {
        tenant: tenant(tenant_id),
        actor: ActorId::parse(3).unwrap(),
        operation: Operation::parse("payments.capture.v1").unwrap(),
        key: IdempotencyKey::parse("key-1").unwrap(),
    }
}

pub(crate) fn key_record(tenant_id: u64, state: KeyState) -> KeyRecordView {
    KeyRecordView {
        address: address(tenant_id),
        state,
        fingerprint_version: 1,
        fingerprint: vec![0xab; 32],
        created_at: t0() - TimeDelta::hours(2),
        expires_at: (state == KeyState::Completed).then(|| t0() + TimeDelta::hours(22)),
        response_status: (state == KeyState::Completed).then_some(202),
        operation: None,
    }
}
