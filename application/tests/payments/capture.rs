//! The acceptance's business step: each answer of the capture's port becomes the right
//! step result, and a success stores the `202` of
//! `docs/long-running-operations.md#acceptance`.

use application::leased::NewOperation;
use application::orders::{LockedOrder, OrderLocks};
use application::payments::{CaptureAcceptance, CapturePayment, CaptureRefusal};
use application::ports::StoreError;
use application::{BatchMember, Execute, IdempotentOperation, Order, StepContext, StepError};
use domain::{
    ActorId, Amount, ClientOrderRef, Currency, NewOrder, OperationState, OrderId, OrderStatus,
    PaymentCapture, Quantity, Sku, TenantId,
};
use mockall::mock;

use crate::support::{ready, t0};

mock! {
    pub(crate) Tx {}
    impl CaptureAcceptance for Tx {
        fn accept_capture(
            &mut self,
            operation: &NewOperation,
        ) -> impl std::future::Future<Output = Result<(), StepError<CaptureRefusal>>> + Send;
    }
    impl OrderLocks for Tx {
        fn lock_order(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> impl std::future::Future<Output = Result<Option<LockedOrder>, StoreError>> + Send;
        fn blocking_capture(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> impl std::future::Future<Output = Result<Option<OperationState>, StoreError>> + Send;
    }
}

fn context() -> StepContext {
    StepContext {
        tenant: TenantId::parse(3).unwrap(),
        actor: ActorId::parse(4).unwrap(),
        now: t0(),
    }
}

fn input() -> PaymentCapture {
    PaymentCapture {
        order: OrderId::new(9),
        amount: Amount::parse(1500).unwrap(),
        currency: Currency::parse("JPY").unwrap(),
    }
}

async fn run(
    answer: fn() -> Result<(), StepError<CaptureRefusal>>,
) -> Result<domain::StoredResponse, StepError<CaptureRefusal>> {
    let mut tx = MockTx::new();
    tx.expect_accept_capture()
        .withf(|capture| {
            capture.tenant == TenantId::parse(3).unwrap()
                && capture.order == OrderId::new(9)
                && capture.input == br#"{"amount":1500,"currency":"JPY"}"#
                && capture.result == br#"{"payment":null}"#
                && capture.kind == "payments.capture.v1"
                && capture.accepted_at == t0()
                && capture.downstream_key.len() == 36
                && capture.downstream_key != capture.id.hyphenated().to_string()
        })
        .times(1)
        .returning(move |_| ready(answer()));
    CapturePayment.execute(&mut tx, context(), &input()).await
}

#[tokio::test]
async fn an_accepted_capture_stores_202_with_its_location() {
    let response = run(|| Ok(())).await.unwrap();
    assert_eq!(response.status(), 202);
    let location = response.location().unwrap().to_owned();
    let id = location.strip_prefix("/api/operations/").unwrap();
    let body: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"operationId": id, "state": "pending"})
    );
}

#[tokio::test]
async fn a_missing_order_and_an_existing_payment_are_refusals() {
    assert!(matches!(
        run(|| Err(StepError::Rejected(CaptureRefusal::OrderNotFound))).await,
        Err(StepError::Rejected(CaptureRefusal::OrderNotFound))
    ));
    assert!(matches!(
        run(|| Err(StepError::Rejected(CaptureRefusal::PaymentExists))).await,
        Err(StepError::Rejected(CaptureRefusal::PaymentExists))
    ));
}

#[test]
fn a_capture_and_its_replay_need_payments_create() {
    assert_eq!(CapturePayment::PERMISSION, "payments:create");
    assert_eq!(CapturePayment::NAME, "payments.capture.v1");
}

#[tokio::test]
async fn a_store_failure_is_passed_on_for_the_coordinator_to_classify() {
    assert!(matches!(
        run(|| Err(StepError::Store(StoreError::Deadlock))).await,
        Err(StepError::Store(StoreError::Deadlock))
    ));
}

/// Order `id` of the test's tenant, as a locking read finds it.
fn locked(id: u64, status: OrderStatus) -> LockedOrder {
    let details = NewOrder {
        client_order_ref: ClientOrderRef::parse("R").unwrap(),
        sku: Sku::parse("S").unwrap(),
        quantity: Quantity::parse(1).unwrap(),
    };
    LockedOrder {
        order: Order {
            status,
            ..Order::created(OrderId::new(id), context().tenant, details, t0())
        },
        revision: 1,
    }
}

fn member(order: u64) -> BatchMember<PaymentCapture> {
    BatchMember {
        context: context(),
        input: PaymentCapture {
            order: OrderId::new(order),
            ..input()
        },
        span: tracing::Span::none(),
    }
}

#[tokio::test]
async fn a_batch_plans_only_the_first_member_of_each_active_order_without_a_capture() {
    let mut tx = MockTx::new();
    // 9 active, 10 cancelled, 11 active with a pending capture, 12 not the tenant's.
    tx.expect_lock_order().returning(|_, order| {
        ready(Ok(match order.get() {
            9 | 11 => Some(locked(order.get(), OrderStatus::Active)),
            10 => Some(locked(10, OrderStatus::Cancelled)),
            _ => None,
        }))
    });
    // Captures are read only of the active orders.
    tx.expect_blocking_capture()
        .withf(|_, order| matches!(order.get(), 9 | 11))
        .returning(|_, order| ready(Ok((order.get() == 11).then_some(OperationState::Pending))));
    let members: Vec<_> = [9, 9, 10, 11, 12].into_iter().map(member).collect();
    let plan = CapturePayment
        .plan_batch(&mut tx, &members, false)
        .await
        .unwrap();
    let planned: Vec<bool> = plan.iter().map(Option::is_some).collect();
    assert_eq!(planned, [true, false, false, false, false]);
    let first = plan[0].as_ref().unwrap();
    assert_eq!(first.response.status(), 202);
    assert_eq!(
        first.response.location().unwrap(),
        format!("/api/operations/{}", first.reserved.id.hyphenated())
    );
    assert_eq!(first.reserved.order, OrderId::new(9));
    assert!(first.events.is_empty());
}
