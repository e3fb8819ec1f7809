//! The acceptance's business step: each answer of the capture's port becomes the right
//! step result, and a success stores the `202` of
//! `docs/long-running-operations.md#acceptance`.

use application::leased::NewOperation;
use application::payments::{CaptureAcceptance, CapturePayment, CaptureRefusal};
use application::ports::StoreError;
use application::{Execute, IdempotentOperation, StepContext, StepError};
use domain::{ActorId, Amount, Currency, OrderId, PaymentCapture, TenantId};
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
