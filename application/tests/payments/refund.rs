//! The refund's batched plan, with mocked ports: which members a batch may accept together
//! and which run alone for their own answer (`docs/storage.md#batched-operations`).

use application::leased::NewOperation;
use application::payments::{
    CapturedCharge, RefundAcceptance, RefundJob, RefundPayment, RefundRefusal, RefundRequest,
    RefundableCharge,
};
use application::ports::StoreError;
use application::{BatchMember, Execute, StepContext, StepError};
use domain::{ActorId, Amount, Currency, OrderId, Reason, TenantId};
use mockall::mock;

use crate::support::{ready, t0};

mock! {
    pub(crate) Tx {}
    impl RefundAcceptance for Tx {
        fn captured_charge(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> impl std::future::Future<Output = Result<CapturedCharge, StepError<RefundRefusal>>> + Send;
        fn accept_refund(
            &mut self,
            operation: &NewOperation,
            amount: Amount,
        ) -> impl std::future::Future<Output = Result<(), StepError<RefundRefusal>>> + Send;
        fn refundable_charges(
            &mut self,
            orders: &[(TenantId, OrderId)],
        ) -> impl std::future::Future<Output = Result<Vec<Option<RefundableCharge>>, StoreError>> + Send;
    }
}

fn member(order: u64, amount: i64) -> BatchMember<RefundRequest> {
    BatchMember {
        context: StepContext {
            tenant: TenantId::parse(3).unwrap(),
            actor: ActorId::parse(4).unwrap(),
            now: t0(),
        },
        input: RefundRequest {
            order: OrderId::new(order),
            amount: Amount::parse(amount).unwrap(),
            reason: Reason::parse("damaged").unwrap(),
        },
        span: tracing::Span::none(),
    }
}

#[tokio::test]
async fn a_batch_plans_only_the_first_member_of_each_capture_with_its_amount_left() {
    let mut tx = MockTx::new();
    // 9 has 500 left, 10 no capture, 11 only 100 left; read once, for every member.
    tx.expect_refundable_charges()
        .withf(|orders| orders.len() == 5)
        .times(1)
        .returning(|orders| {
            let charges = orders
                .iter()
                .map(|(_, order)| {
                    let left = match order.get() {
                        9 => 500,
                        11 => 100,
                        _ => return None,
                    };
                    Some(RefundableCharge {
                        captured: CapturedCharge {
                            charge: format!("ch_{}", order.get()),
                            currency: Currency::parse("JPY").unwrap(),
                        },
                        left,
                    })
                })
                .collect();
            ready(Ok(charges))
        });
    let members = [(9, 500), (9, 1), (10, 1), (11, 101), (11, 100)].map(|(o, a)| member(o, a));
    let plan = RefundPayment
        .plan_batch(&mut tx, &members, false)
        .await
        .unwrap();
    let planned: Vec<bool> = plan.iter().map(Option::is_some).collect();
    // The first on 11 asks more than is left: it runs alone for its stored refusal, and
    // the second on 11 after it, which stays alone too.
    assert_eq!(planned, [true, false, false, false, false]);
    let first = plan[0].as_ref().unwrap();
    assert_eq!(first.response.status(), 202);
    assert_eq!(first.reserved.kind, "payments.refund.v1");
    let job: RefundJob = serde_json::from_slice(&first.reserved.input).unwrap();
    assert_eq!((job.charge.as_str(), job.amount.get()), ("ch_9", 500));
}
