//! What the process keeps in memory: completed records served without a read, and
//! same-key requests that wait for the first one instead of the database's lock. Both
//! answer exactly as the database path would: the fingerprint and the caller's permission
//! are checked every time.

use std::sync::Arc;

use application::{
    Coordinator, CreateOrder, CreateRefusal, Outcome, ReplayCache, ReplayCacheSettings, StepError,
};
use domain::RecordId;
use futures_util::FutureExt;
use futures_util::future::{join_all, join3};

use crate::support::*;

fn cache() -> Arc<ReplayCache> {
    Arc::new(ReplayCache::new(ReplayCacheSettings::default()).unwrap())
}

/// The create leaves no copy: the first retry goes to the database (its insert finds the
/// key, the fresh read answers), and the retries after it are answered from the copy that
/// read left.
#[tokio::test]
async fn a_create_is_kept_only_once_it_is_replayed() {
    let reader = reader_finding(Some(existing(&new_order(2), completed_state("{}"))));
    let uow = ScriptedUnitOfWork::of([tx_committing(), tx_hitting_the_key()]);
    let coordinator = coordinator(uow, reader).with_replay_cache(cache());
    assert!(
        coordinator.replay_cache().is_some(),
        "the admin's eviction reaches the copies through it"
    );

    let first = coordinator
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;
    let mut answers = Vec::new();
    for _ in 0..3 {
        let input = new_order(2);
        answers.push(
            coordinator
                .run(&CreateOrder, &caller(), &key(), &input)
                .await,
        );
    }

    assert!(matches!(first, Outcome::Executed { .. }), "{first:?}");
    assert!(
        matches!(answers[0], Outcome::Replayed { .. }),
        "{answers:?}"
    );
    assert!(answers.iter().all(|a| *a == answers[0]), "{answers:?}");
}

#[tokio::test]
async fn a_copy_still_refuses_another_body_and_a_caller_not_authorized_now() {
    let shared = cache();
    let reader = reader_finding(Some(existing(&new_order(2), completed_state("{}"))));
    let reading = coordinator(ScriptedUnitOfWork::of([tx_hitting_the_key()]), reader)
        .with_replay_cache(Arc::clone(&shared));
    let replayed = reading
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;
    assert!(matches!(replayed, Outcome::Replayed { .. }), "{replayed:?}");

    // No read and no transaction from here: both would panic.
    let mut refusing = MockAuthorizer::new();
    refusing.expect_may_replay().times(1).return_const(false);
    let from_memory = coordinator(ScriptedUnitOfWork::<MockTx>::of([]), MockReader::new())
        .with_replay_cache(shared)
        .with_authorizer(Arc::new(refusing));
    let other_body = from_memory
        .run(&CreateOrder, &caller(), &key(), &new_order(3))
        .await;
    let not_authorized = from_memory
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(other_body, Outcome::KeyReused);
    assert_eq!(not_authorized, Outcome::Forbidden);
}

#[tokio::test]
async fn a_record_still_running_is_never_kept() {
    let shared = cache();
    let running = existing(&new_order(2), domain::RecordState::Processing);

    let outcome = coordinator(
        ScriptedUnitOfWork::of([tx_hitting_the_key()]),
        reader_finding(Some(running)),
    )
    .with_replay_cache(Arc::clone(&shared))
    .run(&CreateOrder, &caller(), &key(), &new_order(2))
    .await;

    assert_eq!(outcome, Outcome::InProgress);
    assert!(shared.is_empty());
}

/// One execution at most: one transaction, no read.
fn executing_once(gate: &Gate) -> Coordinator<ScriptedUnitOfWork<MockTx>, MockReader, Gate> {
    in_one_process(
        coordinator(ScriptedUnitOfWork::of([tx_committing()]), no_reads()),
        gate,
    )
}

/// The leader, then each follower, polled in that order before the gate opens: `join3`
/// and `join_all` poll their futures in order.
#[tokio::test(start_paused = true)]
async fn followers_answer_from_the_leader_s_record_with_their_own_checks_and_no_read() {
    let gate = Gate::closed();
    let coordinator = executing_once(&gate);
    let (who, k, order) = (caller(), key(), new_order(2));
    let leader = coordinator.run(&CreateOrder, &who, &k, &order);
    let coordinator = &coordinator;
    let followers = join_all((0..8).map(|n| {
        // The last follower sends another body under the key.
        let quantity = if n == 7 { 3 } else { 2 };
        async move {
            coordinator
                .run(&CreateOrder, &caller(), &key(), &new_order(quantity))
                .await
        }
    }));

    let (led, followed, ()) = join3(leader, followers, async { gate.open(1) }).await;

    let Outcome::Executed { record, response } = led else {
        panic!("{led:?}")
    };
    let replay = Outcome::Replayed { record, response };
    for same in &followed[..7] {
        assert_eq!(*same, replay);
    }
    assert_eq!(followed[7], Outcome::KeyReused);
}

/// The default bound (5 s) passes at once: tokio's paused clock jumps when all wait.
#[tokio::test(start_paused = true)]
async fn a_follower_past_the_same_key_wait_hears_in_progress() {
    let gate = Gate::closed();
    let coordinator = executing_once(&gate);
    let (who, k, order) = (caller(), key(), new_order(2));
    let leader = coordinator.run(&CreateOrder, &who, &k, &order);
    let follower = async {
        let outcome = coordinator
            .run(&CreateOrder, &caller(), &key(), &new_order(2))
            .await;
        // Only now does the leader go on: the follower waited the whole bound.
        gate.open(1);
        outcome
    };

    let (led, followed) = futures_util::future::join(leader, follower).await;

    assert!(matches!(led, Outcome::Executed { .. }), "{led:?}");
    assert_eq!(followed, Outcome::InProgress);
}

#[tokio::test(start_paused = true)]
async fn when_the_leader_is_refused_a_follower_leads_and_the_rest_replay_its_record() {
    let gate = Gate::closed();
    let mut refused = tx_inserting_record();
    refused.expect_insert_order().times(1).returning(|_, _, _| {
        ready(Err(StepError::Rejected(
            CreateRefusal::ClientOrderRefConflict,
        )))
    });
    expect_rollback_only(&mut refused);
    // With the cache, as the server runs. Neither leader reads: both go straight to the
    // insert. A follower that wakes after the new leader landed finds the key taken and
    // reads its record (the create left no copy); the ones after it answer from the copy
    // that read left.
    let reader = reader_finding(Some(existing(&new_order(2), completed_state("{}"))));
    let transactions = [refused, tx_committing(), tx_hitting_the_key()];
    let coordinator = in_one_process(
        coordinator(ScriptedUnitOfWork::of(transactions), reader).with_replay_cache(cache()),
        &gate,
    );
    let (who, k, order) = (caller(), key(), new_order(2));
    let leader = coordinator.run(&CreateOrder, &who, &k, &order);
    let followers = join_all((0..4).map(|_| async {
        coordinator
            .run(&CreateOrder, &caller(), &key(), &new_order(2))
            .await
    }));

    let (led, followed, ()) = join3(leader, followers, async { gate.open(2) }).await;

    assert!(matches!(led, Outcome::Rejected(_)), "{led:?}");
    let [Outcome::Executed { record, .. }, rest @ ..] = &followed[..] else {
        panic!("{followed:?}")
    };
    assert_eq!(*record, RecordId(5));
    for replayed in rest {
        assert!(
            matches!(replayed, Outcome::Replayed { record, .. } if *record == RecordId(5)),
            "{followed:?}"
        );
    }
}

/// The client went away (or the server stopped) while its request held the key in this
/// process: the key is not left held, so the next request with it leads instead of
/// waiting, and a follower already waiting takes the lead.
#[tokio::test(start_paused = true)]
async fn a_leader_dropped_mid_flight_leaves_the_key_to_the_next_request() {
    let gate = Gate::closed();
    let mut dropped = tx_inserting_record();
    dropped.expect_commit().never();
    dropped.expect_rollback().never();
    let flights = Arc::new(application::InFlight::new());
    let coordinator = coordinator(
        ScriptedUnitOfWork::of([dropped, tx_committing()]),
        no_reads(),
    )
    .with_clock(Arc::new(SleepingClock))
    .with_in_flight(Arc::clone(&flights))
    .with_hooks(gate.clone());
    let (who, k, order) = (caller(), key(), new_order(2));
    {
        let mut leader = Box::pin(coordinator.run(&CreateOrder, &who, &k, &order));
        let mut follower = Box::pin(coordinator.run(&CreateOrder, &who, &k, &order));
        // The leader holds the key at the gate after its insert; the follower waits on it.
        assert!(leader.as_mut().now_or_never().is_none());
        assert!(follower.as_mut().now_or_never().is_none());
        drop(leader);
        gate.open(1);
        let followed = tokio::time::timeout(std::time::Duration::from_secs(60), follower)
            .await
            .expect("the follower was left waiting on a leader that is gone");
        assert!(matches!(followed, Outcome::Executed { .. }), "{followed:?}");
    }
    assert!(flights.is_empty(), "the key is held by nobody");
}
