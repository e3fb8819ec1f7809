//! A batch's `COMMIT` meeting a fault, on MySQL through a fault proxy: every member is
//! answered `503 outcome_unknown`, and each retry finds its one execution or none
//! (`docs/storage.md#batched-operations`).

use std::time::Duration;

use adapters::mysql::{MysqlConfig, MysqlStore};
use application::ports::HookVerdict;
use application::{Outcome, UnknownCause};
use tests::{
    Backend, CommitFault, FaultProxy, TestDb, TestServer, coordinator_on, create_as_tenant_1,
    url_via,
};

use crate::batch_rig::held_then_batched_on;

/// A batch of four whose `COMMIT` meets `fault` (through a proxy in front of MySQL): every
/// member is answered `503 outcome_unknown`, and each one's retry finds its one execution
/// or none. Gives back whether the retries replayed.
async fn a_batch_through_a_failing_commit(fault: CommitFault) -> Vec<bool> {
    let db = TestDb::create().await;
    let proxy = FaultProxy::start(TestServer::from_env().socket_addr());
    let proxied = MysqlStore::connect(&MysqlConfig {
        url: url_via(db.url(), proxy.address()),
        lock_wait_timeout_secs: 5,
        max_connections: 8,
        database_timeout: Duration::from_secs(6),
        migration_timeout: Duration::from_secs(600),
        node_return: Duration::from_secs(60),
    })
    .await
    .unwrap();
    let members = [
        ("c-1", "C-1"),
        ("c-2", "C-2"),
        ("c-3", "C-3"),
        ("c-4", "C-4"),
    ];
    // The held request rolls back, so the next `COMMIT` the proxy sees is the batch's.
    let (outcomes, seen) = held_then_batched_on(
        &proxied,
        ("c-0", "C-0"),
        &members,
        HookVerdict::Abort,
        || proxy.fail_next_commit(fault),
    )
    .await;
    assert_eq!(
        proxy.commit_faults_fired(),
        1,
        "the fault hit the batch's COMMIT"
    );
    assert_eq!(*seen.ran.lock().unwrap(), [4]);
    for outcome in &outcomes[1..] {
        assert_eq!(
            *outcome,
            Outcome::OutcomeUnknown(UnknownCause::CommitOutcomeUnknown)
        );
    }
    let direct = coordinator_on(db.store());
    let mut replayed = Vec::new();
    for (k, reference) in members {
        let retry = create_as_tenant_1(&direct, k, reference).await;
        replayed.push(matches!(retry, Outcome::Replayed { .. }));
        assert!(
            matches!(retry, Outcome::Replayed { .. } | Outcome::Executed { .. }),
            "{retry:?}"
        );
        assert_eq!(
            db.orders_with_ref_prefix(1, reference).await,
            1,
            "{k}: one order"
        );
    }
    db.finish().await;
    replayed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_whose_commit_answer_is_lost_answers_every_member_503_and_each_retry_replays() {
    let replayed = a_batch_through_a_failing_commit(CommitFault::AnswerLost).await;
    assert_eq!(
        replayed, [true; 4],
        "the batch had committed: every retry replays"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_whose_commit_never_arrives_answers_every_member_503_and_each_retry_executes() {
    let replayed = a_batch_through_a_failing_commit(CommitFault::NeverArrives).await;
    assert_eq!(
        replayed, [false; 4],
        "nothing had committed: every retry executes"
    );
}
