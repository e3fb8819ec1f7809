//! Batched creates on every store (`docs/storage.md#batched-operations`): a batch of several
//! members is built for certain (the first request holds the only slot inside its
//! transaction until the others wait behind it), then runs as one transaction; a member
//! whose key or `clientOrderRef` is taken reruns the batch member by member.

use std::sync::Arc;

use application::ports::HookVerdict;
use application::{CreateOrder, CreateRefusal, Outcome, RerunCause};
use domain::StoredResponse;
use tests::{Backend, caller, coordinator_on, create_as_tenant_1, new_order};

use crate::batch_rig::{Batch, Rig, Seen, held_then_batched_on};

/// Runs `first` held in its transaction with the only slot, queues `queued` behind it,
/// lets it go, and answers every outcome (`first`'s first) with what the batches did.
async fn held_then_batched<B: Backend>(
    db: &B,
    first: (&str, &str),
    queued: &[(&str, &str)],
) -> (Vec<Outcome<CreateRefusal>>, Arc<Seen>) {
    held_then_batched_on(db.store(), first, queued, HookVerdict::Continue, || {}).await
}

fn response(outcome: &Outcome<CreateRefusal>) -> &StoredResponse {
    match outcome {
        Outcome::Executed { response, .. } | Outcome::Replayed { response, .. } => response,
        other => panic!("no stored response: {other:?}"),
    }
}

pub(crate) async fn a_batch_commits_each_member_once_and_each_replays_its_own_answer<B: Backend>() {
    let db = B::create().await;
    let queued: Vec<(String, String)> = (1..=8)
        .map(|n| (format!("b-{n}"), format!("B-{n}")))
        .collect();
    let members: Vec<(&str, &str)> = queued
        .iter()
        .map(|(k, r)| (k.as_str(), r.as_str()))
        .collect();
    let (outcomes, seen) = held_then_batched(&db, ("b-0", "B-0"), &members).await;

    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, Outcome::Executed { .. })),
        "{outcomes:?}"
    );
    assert_eq!(
        *seen.ran.lock().unwrap(),
        [8],
        "the eight waiting went as one batch"
    );
    assert!(seen.reruns.lock().unwrap().is_empty());
    assert_eq!(db.count_rows("orders").await, 9);
    assert_eq!(
        db.count_rows("api_idempotency WHERE state = 'COMPLETED'")
            .await,
        9
    );
    // Each member's answer is its own order, and a retry gets exactly its bytes.
    let locations: std::collections::HashSet<_> = outcomes
        .iter()
        .map(|o| response(o).location().map(str::to_owned))
        .collect();
    assert_eq!(locations.len(), 9, "nine orders, nine locations");
    let replaying = coordinator_on(db.store());
    for ((k, reference), outcome) in std::iter::once(&("b-0".to_owned(), "B-0".to_owned()))
        .chain(&queued)
        .zip(&outcomes)
    {
        let again = create_as_tenant_1(&replaying, k, reference).await;
        assert!(matches!(again, Outcome::Replayed { .. }), "{again:?}");
        assert_eq!(response(&again), response(outcome), "{k}");
    }
    db.finish().await;
}

pub(crate) async fn a_completed_key_in_a_batch_replays_and_a_taken_reference_reruns_it<
    B: Backend,
>() {
    let db = B::create().await;
    let plain = coordinator_on(db.store());
    let done = create_as_tenant_1(&plain, "done", "DONE").await;
    assert!(matches!(done, Outcome::Executed { .. }), "{done:?}");

    // A retry of a completed key among new requests: the batch's read of its keys finds
    // the record, the retry replays from it, and the others execute as a batch of two.
    let (outcomes, seen) = held_then_batched(
        &db,
        ("k-0", "K-0"),
        &[("k-1", "K-1"), ("done", "DONE"), ("k-2", "K-2")],
    )
    .await;
    assert!(
        matches!(outcomes[1], Outcome::Executed { .. }),
        "{outcomes:?}"
    );
    assert_eq!(response(&outcomes[2]), response(&done), "the retry replays");
    assert!(
        matches!(outcomes[2], Outcome::Replayed { .. }),
        "{outcomes:?}"
    );
    assert!(
        matches!(outcomes[3], Outcome::Executed { .. }),
        "{outcomes:?}"
    );
    assert!(seen.reruns.lock().unwrap().is_empty());
    assert_eq!(*seen.ran.lock().unwrap(), [2]);

    // A new key with a used `clientOrderRef`: the order's unique index refuses the batch's
    // insert, and alone that member is refused while the others execute.
    let (outcomes, seen) = held_then_batched(
        &db,
        ("r-0", "R-0"),
        &[("r-1", "R-1"), ("r-2", "DONE"), ("r-3", "R-3")],
    )
    .await;
    assert!(
        matches!(outcomes[1], Outcome::Executed { .. }),
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes[2],
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
    assert!(
        matches!(outcomes[3], Outcome::Executed { .. }),
        "{outcomes:?}"
    );
    assert_eq!(*seen.reruns.lock().unwrap(), [(RerunCause::Refused, 3)]);
    assert_eq!(db.count_rows("orders").await, 1 + 3 + 3);
    db.finish().await;
}

pub(crate) async fn a_reference_two_members_share_leaves_only_the_second_to_run_alone<
    B: Backend,
>() {
    let db = B::create().await;
    // Two new keys with one `clientOrderRef` in one batch: the first is created with the
    // batch, the second runs alone after it and is refused; nothing is rerun.
    let (outcomes, seen) = held_then_batched(
        &db,
        ("s-0", "S-0"),
        &[
            ("s-1", "S-1"),
            ("s-2", "SHARED"),
            ("s-3", "SHARED"),
            ("s-4", "S-4"),
        ],
    )
    .await;
    for n in [0, 1, 2, 4] {
        assert!(
            matches!(outcomes[n], Outcome::Executed { .. }),
            "{n}: {outcomes:?}"
        );
    }
    assert_eq!(
        outcomes[3],
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
    assert!(seen.reruns.lock().unwrap().is_empty(), "{:?}", seen.reruns);
    assert_eq!(*seen.ran.lock().unwrap(), [3]);
    assert_eq!(db.count_rows("orders").await, 4);
    db.finish().await;
}
/// Batches after the warned one, each with a taken reference: more than a single refusal
/// keeps batches wary for.
const WARY_ROUNDS: u32 = 14;

pub(crate) async fn after_a_refused_batch_the_next_reads_its_references_and_is_not_rerun<
    B: Backend,
>() {
    let db = B::create().await;
    let done = create_as_tenant_1(&coordinator_on(db.store()), "done", "DONE").await;
    assert!(matches!(done, Outcome::Executed { .. }), "{done:?}");
    let rig = Rig::new();
    let create =
        |(k, reference): (&str, &str)| (k.to_owned(), caller(1, 1), new_order(reference, 1));
    let batch = |first, queued: [(&str, &str); 3]| Batch {
        op: CreateOrder,
        first: create(first),
        queued: queued.into_iter().map(create).collect(),
    };
    let executed = |outcomes: &[Outcome<CreateRefusal>], n: usize| {
        assert!(
            matches!(outcomes[n], Outcome::Executed { .. }),
            "{outcomes:?}"
        );
    };
    let refused = Outcome::Rejected(CreateRefusal::ClientOrderRefConflict);

    // The first batch meets the taken reference in its insert and runs its members alone.
    let first = batch(
        ("a-0", "A-0"),
        [("a-1", "A-1"), ("a-2", "DONE"), ("a-3", "A-3")],
    )
    .run_on(db.store(), &rig, HookVerdict::Continue, || {})
    .await;
    assert_eq!(first[2], refused);
    assert_eq!(*rig.seen.reruns.lock().unwrap(), [(RerunCause::Refused, 3)]);

    // Warned, the next batch reads its references first: the taken one runs alone and is
    // refused, the others commit together, and nothing is rerun.
    let second = batch(
        ("b-0", "B-0"),
        [("b-1", "B-1"), ("b-2", "DONE"), ("b-3", "B-3")],
    )
    .run_on(db.store(), &rig, HookVerdict::Continue, || {})
    .await;
    executed(&second, 1);
    executed(&second, 3);
    assert_eq!(second[2], refused);
    assert_eq!(
        *rig.seen.reruns.lock().unwrap(),
        [(RerunCause::Refused, 3)],
        "no second rerun"
    );
    assert_eq!(
        *rig.seen.ran.lock().unwrap(),
        [2],
        "b-1 and b-3 in one transaction"
    );

    // While refusals go on, batches stay wary: past the ten a single refusal warns.
    for round in 0..WARY_ROUNDS {
        let member = |n: usize| {
            let reference = if n == 2 {
                "DONE".to_owned()
            } else {
                format!("R{round}-{n}")
            };
            (
                format!("r{round}-{n}"),
                caller(1, 1),
                new_order(&reference, 1),
            )
        };
        let outcomes = Batch {
            op: CreateOrder,
            first: member(0),
            queued: (1..4).map(member).collect(),
        }
        .run_on(db.store(), &rig, HookVerdict::Continue, || {})
        .await;
        assert_eq!(outcomes[2], refused, "round {round}");
    }
    assert_eq!(
        *rig.seen.reruns.lock().unwrap(),
        [(RerunCause::Refused, 3)],
        "no batch rerun while refusals went on"
    );
    assert_eq!(
        db.count_rows("orders").await,
        i64::from(1 + 3 + 3 + 3 * WARY_ROUNDS)
    );
    db.finish().await;
}
