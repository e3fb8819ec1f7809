//! A stored refusal on a real store (`docs/http-api.md#stored-refusals`): the step's write is
//! undone back to its savepoint, the record commits `COMPLETED` with the refusal's problem,
//! and the key answers it again, byte for byte, after the state changed.

use adapters::http::{Problem, ProblemForm, ProblemForms};
use application::ports::{OrderRepository, OutboxWriter, RecordReader};
use application::{
    Execute, IdempotentOperation, Order, Outcome, Refusal, StepContext, StepError, answer,
    order_created,
};
use domain::{NewOrder, RecordState, StoredResponse};
use tests::{Backend, caller, coordinator_on, key, new_order};

/// Writes an order, then refuses when the quantity is over `LIMIT`: a refusal decided by
/// the request alone, so it is stored; under it the order's write must not survive.
#[derive(Debug, Clone, Copy, Default)]
struct LimitedOrder;

const LIMIT: u8 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OverLimit {
    TooMany,
    /// Not stored: the same refusal code space, answered unstored.
    Paused,
}

impl Refusal for OverLimit {
    const ALL: &'static [Self] = &[Self::TooMany, Self::Paused];

    fn code(self) -> &'static str {
        match self {
            Self::TooMany => "over_the_limit",
            Self::Paused => "paused",
        }
    }

    fn is_stored(self) -> bool {
        self == Self::TooMany
    }
}

impl ProblemForm for OverLimit {
    fn problem(&self) -> Problem {
        Problem::new(409, self.code(), "Over the limit", "At most five at once.")
    }
}

impl IdempotentOperation for LimitedOrder {
    const NAME: &'static str = "tests.limited_order.v1";
    const PERMISSION: &'static str = "orders:create";
    type Input = NewOrder;
    type Refusal = OverLimit;
    type Reserved = ();
}

impl<Tx: OrderRepository + OutboxWriter + Send> Execute<Tx> for LimitedOrder {
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &NewOrder,
    ) -> Result<StoredResponse, StepError<OverLimit>> {
        let id = tx
            .insert_order(context.tenant, input, context.now)
            .await
            .map_err(|_| StepError::Rejected(OverLimit::Paused))?;
        let order = Order::created(id, context.tenant, input.clone(), context.now);
        tx.add_event(&order_created(uuid::Uuid::new_v4(), &order))
            .await?;
        if input.quantity.get() > LIMIT {
            return Err(StepError::Rejected(OverLimit::TooMany));
        }
        answer(application::Answer::Done, order.to_json())
    }
}

pub(crate) async fn a_stored_refusal_undoes_the_step_and_answers_the_key_again<B: Backend>() {
    let db = B::create().await;
    let coordinator = coordinator_on(db.store()).with_refusal_forms(ProblemForms);
    let (who, k, over) = (caller(1, 1), key("limited"), new_order("LIMITED-1", 9));

    let first = coordinator.run(&LimitedOrder, &who, &k, &over).await;
    let Outcome::RejectedAndStored { response, .. } = first else {
        panic!("{first:?}");
    };
    assert_eq!(
        (response.status(), response.content_type()),
        (409, "application/problem+json")
    );
    assert_eq!(
        response.body(),
        OverLimit::TooMany.problem().to_json().as_slice()
    );
    assert!(
        db.order_ids(1, "LIMITED-1").await.is_empty(),
        "the step's order was undone with it"
    );
    let scope = domain::Scope {
        tenant: who.tenant,
        actor: who.actor,
        operation: LimitedOrder::OPERATION,
    };
    let stored = db.store().find(&scope, &k).await.unwrap().unwrap();
    assert!(
        matches!(&stored.state, RecordState::Completed(done) if done.response == response),
        "{stored:?}"
    );

    // The state changes (an order with the reference now exists), the answer does not.
    crate::cases::create(&db, "LIMITED-1").await;
    let again = coordinator.run(&LimitedOrder, &who, &k, &over).await;
    assert_eq!(
        again,
        Outcome::Replayed {
            record: stored.id,
            response
        }
    );
    let other = coordinator
        .run(&LimitedOrder, &who, &k, &new_order("LIMITED-1", 8))
        .await;
    assert_eq!(other, Outcome::KeyReused);
    db.finish().await;
}

pub(crate) async fn a_refusal_not_stored_leaves_the_key_free<B: Backend>() {
    let db = B::create().await;
    let coordinator = coordinator_on(db.store()).with_refusal_forms(ProblemForms);
    let who = caller(1, 1);
    crate::cases::create(&db, "TAKEN-1").await;

    let first = coordinator
        .run(&LimitedOrder, &who, &key("free"), &new_order("TAKEN-1", 1))
        .await;
    assert_eq!(first, Outcome::Rejected(OverLimit::Paused));
    assert_eq!(db.total_records().await, 1, "only the create's record");
    let next = coordinator
        .run(&LimitedOrder, &who, &key("free"), &new_order("FREE-1", 1))
        .await;
    assert!(matches!(next, Outcome::Executed { .. }), "{next:?}");
    db.finish().await;
}
