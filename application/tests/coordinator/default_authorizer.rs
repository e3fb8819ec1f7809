//! The replay authorizer a coordinator has unless a test replaces it: the permissions in
//! the caller's verified token.

use application::{Caller, CreateOrder, Outcome};
use domain::{ActorId, TenantId};

use crate::support::*;

#[tokio::test]
async fn by_default_a_stored_response_goes_only_to_a_token_that_grants_the_operation() {
    let reader = reader_finding(Some(existing(&new_order(2), completed_state("{}"))));
    // The same tenant and actor as the first request, but a token that may only read.
    let reader_only = Caller::new(
        TenantId::parse(7).unwrap(),
        ActorId::parse(42).unwrap(),
        "orders:read",
    );

    // The retry's insert finds the key; the fresh read answers.
    let retry = ScriptedUnitOfWork::of([tx_hitting_the_key()]);

    let outcome = coordinator(retry, reader)
        .run(&CreateOrder, &reader_only, &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::Forbidden);
}
