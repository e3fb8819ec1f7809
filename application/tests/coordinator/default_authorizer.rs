//! The replay authorizer a coordinator has unless a test replaces it: the permissions in
//! the caller's verified token.

use application::{Caller, CreateOrder, Outcome};
use domain::{ActorId, TenantId};

use crate::support::*;

#[tokio::test]
async fn by_default_a_stored_response_goes_only_to_a_token_that_grants_the_operation() {
    let mut reader = MockReader::new();
    reader
        .expect_find()
        .times(1)
        .returning(|_, _| ready(Ok(Some(existing(&new_order(2), completed_state("{}"))))));
    // The same tenant and actor as the first request, but a token that may only read.
    let reader_only = Caller::new(
        TenantId::parse(7).unwrap(),
        ActorId::parse(42).unwrap(),
        "orders:read",
    );

    // No transaction is offered: the answer comes from the read alone.
    let no_transactions = ScriptedUnitOfWork::<MockTx>::of([]);

    let outcome = coordinator(no_transactions, reader)
        .run(&CreateOrder, &reader_only, &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::Forbidden);
}
