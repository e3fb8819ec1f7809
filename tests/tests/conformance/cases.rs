//! The conformance cases, each generic over the store.

use std::sync::Arc;

use adapters::SystemClock;
use application::ports::{
    HookVerdict, NewRecord, OrderReader, OrderRepository, OutboxWriter, RecordReader, RecordTx,
    UnitOfWork,
};
use application::{
    Coordinator, CreateOrder, CreateRefusal, Order, Outcome, PurgeSettings, order_created,
    purge_expired,
};
use chrono::{DateTime, Utc};
use domain::{
    Completion, Fingerprinted, IdempotencyKey, NewOrder, Operation, OrderId, RecordState, Scope,
    StoredResponse,
};
use tests::{
    Api, Backend, BatchLog, GateHandle, LeaderGate, Service, ServiceOptions,
    batched_coordinator_on, caller, create_as_tenant_1, executed_count, join_all, key, new_order,
    order_id_in, order_json, token,
};
use tokio::task::JoinHandle;

const STORM_ROUNDS: usize = 5;
const STORM_SIZE: usize = 32;
const LEADER_ROUNDS: usize = 5;

/// The coordinator the cases run through: batching on, as the server runs it.
pub(crate) fn coordinator<B: Backend>(db: &B) -> Coordinator<B::Store, B::Store> {
    batched_coordinator_on(db.store())
}

/// Creates an order of tenant 1 through the coordinator and answers its id.
pub(crate) async fn create<B: Backend>(db: &B, reference: &str) -> OrderId {
    let outcome = create_as_tenant_1(&coordinator(db), reference, reference).await;
    let Outcome::Executed { response, .. } = outcome else {
        panic!("{outcome:?}")
    };
    OrderId::new(order_id_in(response.body()))
}

/// Asserts one order for the reference, and that every success carries its id.
async fn assert_one_order<B: Backend>(
    db: &B,
    client_order_ref: &str,
    outcomes: &[Outcome<CreateRefusal>],
) {
    let ids = db.order_ids(1, client_order_ref).await;
    assert_eq!(ids.len(), 1, "orders for {client_order_ref}: {ids:?}");
    for outcome in outcomes {
        if let Outcome::Executed { response, .. } | Outcome::Replayed { response, .. } = outcome {
            assert_eq!(order_id_in(response.body()), ids[0], "{outcome:?}");
        }
    }
}

pub(crate) async fn storm<B: Backend>() {
    let db = B::create().await;
    let coordinator = Arc::new(coordinator(&db));
    for round in 0..STORM_ROUNDS {
        let (k, order) = (
            key(&format!("storm-{round}")),
            new_order(&format!("R-{round}"), 1),
        );
        let barrier = Arc::new(tokio::sync::Barrier::new(STORM_SIZE));
        let tasks = (0..STORM_SIZE)
            .map(|_| {
                let (coordinator, barrier) = (coordinator.clone(), barrier.clone());
                let (k, order) = (k.clone(), order.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    coordinator
                        .run(&CreateOrder, &caller(1, 1), &k, &order)
                        .await
                })
            })
            .collect();
        let outcomes = join_all(tasks).await;
        assert_eq!(executed_count(&outcomes), 1, "round {round}: {outcomes:?}");
        for outcome in &outcomes {
            assert!(
                matches!(outcome, Outcome::Executed { .. } | Outcome::Replayed { .. }),
                "round {round}: {outcome:?}"
            );
        }
        assert_one_order(&db, order.client_order_ref.as_str(), &outcomes).await;
    }
    db.finish().await;
}

/// Starts a leader for `k` and holds it right after its record insert, in its open
/// transaction, until the handle releases it.
async fn held_leader<B: Backend>(
    db: &B,
    k: &IdempotencyKey,
    order: &NewOrder,
) -> (JoinHandle<Outcome<CreateRefusal>>, GateHandle) {
    let (gate, mut handle) = LeaderGate::new();
    let leader_coordinator = coordinator(db).with_hooks(gate);
    let (k, order) = (k.clone(), order.clone());
    let leader = tokio::spawn(async move {
        leader_coordinator
            .run(&CreateOrder, &caller(1, 1), &k, &order)
            .await
    });
    handle.leader_inserted().await;
    (leader, handle)
}

/// Runs a held leader and one follower queued behind it; returns both outcomes.
async fn leader_and_follower<B: Backend>(
    db: &B,
    round: usize,
    verdict: HookVerdict,
) -> (Outcome<CreateRefusal>, Outcome<CreateRefusal>, String) {
    let (k, order) = (
        key(&format!("leader-{round}")),
        new_order(&format!("R-{round}"), 1),
    );
    let (leader, handle) = held_leader(db, &k, &order).await;
    let follower_coordinator = coordinator(db);
    let follower = {
        let (k, order) = (k.clone(), order.clone());
        tokio::spawn(async move {
            follower_coordinator
                .run(&CreateOrder, &caller(1, 1), &k, &order)
                .await
        })
    };
    db.wait_for_queued_writers(1).await;
    handle.release(verdict);
    let leader = leader.await.unwrap();
    let follower = follower.await.unwrap();
    (leader, follower, order.client_order_ref.as_str().to_owned())
}

pub(crate) async fn leader_commits<B: Backend>() {
    let db = B::create().await;
    for round in 0..LEADER_ROUNDS {
        let (leader, follower, reference) =
            leader_and_follower(&db, round, HookVerdict::Continue).await;
        assert!(matches!(leader, Outcome::Executed { .. }), "{leader:?}");
        assert!(matches!(follower, Outcome::Replayed { .. }), "{follower:?}");
        assert_one_order(&db, &reference, &[leader, follower]).await;
    }
    db.finish().await;
}

pub(crate) async fn leader_rolls_back<B: Backend>() {
    let db = B::create().await;
    for round in 0..LEADER_ROUNDS {
        let (leader, follower, reference) =
            leader_and_follower(&db, round, HookVerdict::Abort).await;
        assert!(matches!(leader, Outcome::Failed(_)), "{leader:?}");
        assert!(matches!(follower, Outcome::Executed { .. }), "{follower:?}");
        assert_one_order(&db, &reference, &[follower]).await;
    }
    db.finish().await;
}

pub(crate) async fn held_past_the_lock_wait<B: Backend>() {
    let db = B::create_with_lock_wait(1).await;
    let (k, order) = (key("held"), new_order("R-held", 1));
    let (leader, handle) = held_leader(&db, &k, &order).await;
    let follower = coordinator(&db)
        .run(&CreateOrder, &caller(1, 1), &k, &order)
        .await;
    assert_eq!(follower, Outcome::InProgress);
    handle.release(HookVerdict::Continue);
    let leader = leader.await.unwrap();
    assert_one_order(&db, "R-held", &[leader]).await;
    db.finish().await;
}

pub(crate) async fn key_reuse<B: Backend>() {
    let db = B::create().await;
    let coordinator = coordinator(&db);
    let (who, k) = (caller(1, 1), key("reuse"));
    let first = coordinator
        .run(&CreateOrder, &who, &k, &new_order("R-1", 1))
        .await;
    let reused = coordinator
        .run(&CreateOrder, &who, &k, &new_order("R-1", 2))
        .await;
    assert!(matches!(first, Outcome::Executed { .. }), "{first:?}");
    assert_eq!(reused, Outcome::KeyReused);
    assert_one_order(&db, "R-1", &[first]).await;
    db.finish().await;
}

pub(crate) async fn client_order_ref_conflict<B: Backend>() {
    let db = B::create().await;
    let coordinator = coordinator(&db);
    let who = caller(1, 1);
    let order = new_order("R-1", 1);
    let first = coordinator.run(&CreateOrder, &who, &key("a"), &order).await;
    let second = coordinator.run(&CreateOrder, &who, &key("b"), &order).await;
    assert_eq!(
        second,
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
    assert_eq!(
        db.total_records().await,
        1,
        "the refused key stored nothing"
    );
    assert_one_order(&db, "R-1", &[first]).await;
    db.finish().await;
}

pub(crate) async fn purge<B: Backend>() {
    let db = B::create().await;
    let coordinator = coordinator(&db);
    let who = caller(1, 1);
    for n in 0..3 {
        let outcome = coordinator
            .run(
                &CreateOrder,
                &who,
                &key(&format!("p-{n}")),
                &new_order(&format!("R-{n}"), 1),
            )
            .await;
        assert!(matches!(outcome, Outcome::Executed { .. }), "{outcome:?}");
    }
    db.run_sql(
        "UPDATE api_idempotency SET expires_at = '2000-01-01 00:00:00' \
         WHERE idempotency_key IN (X'702D30', X'702D31')", // 'p-0', 'p-1' as bytes
    )
    .await;
    let settings = PurgeSettings {
        batch_size: 1,
        max_batches: 10,
    };
    let log = BatchLog::new(db.store());
    let deleted = purge_expired(&log, &SystemClock, settings).await.unwrap();
    assert_eq!(deleted, 2, "both expired records");
    assert_eq!(
        log.batches(),
        [1, 1, 0],
        "one row per batch, then a short batch"
    );
    assert_eq!(db.total_records().await, 1, "the unexpired record stays");

    // The purged key with the same request meets the clientOrderRef: never a second order.
    let late = coordinator
        .run(&CreateOrder, &who, &key("p-0"), &new_order("R-0", 1))
        .await;
    assert_eq!(
        late,
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
    assert_eq!(db.order_ids(1, "R-0").await.len(), 1);
    db.finish().await;
}

/// What a store writes it reads back unchanged: times to the microsecond (MySQL's
/// `DATETIME(6)`, SQLite's `TIMESTAMP`), the response's status, headers and bytes.
pub(crate) async fn stored_values_read_back_unchanged<B: Backend>() {
    let db = B::create().await;
    let store = db.store();
    let at = |text: &str| text.parse::<DateTime<Utc>>().unwrap();
    let who = caller(1, 1);
    let operation = Operation::parse("orders.create.v1").unwrap();
    let order = new_order("R-1", 2);
    let record = NewRecord {
        fingerprint: order.fingerprint(&operation),
        scope: Scope {
            tenant: who.tenant,
            actor: who.actor,
            operation,
        },
        key: key("read-back"),
        created_at: at("2026-11-29T12:34:56.000001Z"),
    };
    let completion = Completion {
        response: StoredResponse::new(
            201,
            "application/json".to_owned(),
            Some("/orders/1".to_owned()),
            b"{\"id\":1}\0\xff".to_vec(),
        )
        .unwrap(),
        completed_at: at("2026-11-29T12:34:56.654321Z"),
        expires_at: at("2026-12-30T23:59:59.999999Z"),
    };

    let mut tx = store.begin().await.unwrap();
    let record_id = tx.insert_processing(&record).await.unwrap();
    let order_id = tx
        .insert_order(who.tenant, &order, at("2026-11-29T12:34:56.123456Z"))
        .await
        .unwrap();
    let made = Order::created(
        order_id,
        who.tenant,
        order.clone(),
        at("2026-11-29T12:34:56.123456Z"),
    );
    tx.add_event(&order_created(uuid::Uuid::new_v4(), &made))
        .await
        .unwrap();
    assert_eq!(tx.complete(record_id, &completion).await.unwrap(), 1);
    tx.commit().await.unwrap();

    let stored = store
        .find(&record.scope, &record.key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stored.id, stored.fingerprint, stored.state),
        (
            record_id,
            record.fingerprint,
            RecordState::Completed(completion)
        )
    );
    let read = store
        .find_order(who.tenant, order_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (read.id, read.tenant, read.details, read.created_at),
        (
            order_id,
            who.tenant,
            order,
            at("2026-11-29T12:34:56.123456Z")
        )
    );
    db.finish().await;
}

pub(crate) async fn replay_bytes_over_http<B: Backend>() {
    let db = B::create().await;
    let service = Service::start(&ServiceOptions::new(&db.server_url()));
    let api = Api::new(service.base_url());
    let bearer = token(1, 1, "orders:create orders:read");
    let first = api.create(&bearer, "http-1", &order_json("R-1", "SKU-1", 2));
    let replay = api.create(
        &bearer,
        "http-1",
        r#"{"quantity":2,"sku":"SKU-1","clientOrderRef":"R-1"}"#,
    );
    assert_eq!(first.status, 201);
    assert_eq!(
        (replay.status, &replay.body, replay.header("location")),
        (first.status, &first.body, first.header("location"))
    );
    assert_eq!(
        replay.header("idempotent-replayed").as_deref(),
        Some("true")
    );
    let read = api.get(&first.header("location").unwrap(), Some(&bearer));
    assert_eq!(read.body, first.body);
    drop(service);
    db.finish().await;
}
