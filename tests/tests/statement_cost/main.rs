//! What a create, a replay and a capture's and a refund's acceptance cost the database, read from the server's own counters
//! (`SHOW GLOBAL STATUS`): every statement prepared once per connection and then reused,
//! and the round trips the design needs and no more.
//!
//! A test binary of its own, which the test runner runs with nothing beside it
//! (`.config/nextest.toml`), so while it runs no other test's statements land in the
//! server's global counters.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

use std::collections::HashMap;
use std::sync::Arc;

use adapters::mysql::InsertIds;
use adapters::mysql::MysqlStore;
use application::payments::{CapturePayment, RefundPayment, RefundRequest};
use application::ports::HookVerdict;
use application::ports::UnitOfWork;
use application::{
    BatchSettings, Batching, Caller, CreateOrder, CreateRefusal, IdempotentOperation, InFlight,
    Outcome, Steps,
};
use diesel_async::{AsyncConnection, AsyncMysqlConnection};
use domain::{ActorId, Amount, Currency, OrderId, PaymentCapture, Reason, TenantId};
use std::time::Duration;
use tests::{
    LeaderGate, TestDb, TestServer, caller, coordinator_on, create_as_tenant_1, key, new_order,
    wait_until,
};

mod support;
mod worker_group;

use support::{
    assert_nothing_prepared_again, counters, one_connection_store, per_request, round_trips,
    store_of,
};

const CREATES: u64 = 40;
const STORM: u64 = 64;
const BATCH: u64 = 8;

/// Runs one create on a store of one connection that obtains insert ids as `ids` says,
/// then `CREATES` more, then sends each of them again; returns what the server's counters
/// say each create and each replay after the first cost; checks every order against its
/// record and answer, and every replay against the create's answer.
async fn cost_per_create_and_replay(
    ids: InsertIds,
) -> (HashMap<String, f64>, HashMap<String, f64>) {
    let db = TestDb::create().await;
    let store = one_connection_store(&db, ids).await;
    let coordinator = coordinator_on(&store);
    let request = |n: u64| {
        (
            key(&format!("cost-{n}")),
            new_order(&format!("COST-{n}"), 1),
        )
    };
    let mut admin = AsyncMysqlConnection::establish(&TestServer::from_env().url_for(""))
        .await
        .unwrap();

    let mut costs = Vec::new();
    let mut answers = Vec::new();
    for _round in ["create", "replay"] {
        let mut outcomes = Vec::new();
        let mut before = HashMap::new();
        for n in 0..=CREATES {
            if n == 1 {
                // The first request on the connections prepared what it needs.
                before = counters(&mut admin).await;
            }
            let (k, order) = request(n);
            let outcome = coordinator
                .run(&CreateOrder, &caller(1, 1), &k, &order)
                .await;
            outcomes.push(outcome);
        }
        let after = counters(&mut admin).await;
        costs.push(per_request(&before, &after, CREATES));
        answers.push(outcomes);
    }

    let [created, replayed] = <[_; 2]>::try_from(answers).unwrap();
    for ((n, outcome), replay) in (0..=CREATES).zip(created).zip(replayed) {
        let Outcome::Executed { record, response } = &outcome else {
            panic!("{outcome:?}")
        };
        let expected = Outcome::Replayed {
            record: *record,
            response: response.clone(),
        };
        assert_eq!(replay, expected);
        // The id each insert gave back is the order's: in the answer, the stored body and
        // the table alike.
        let (k, order) = request(n);
        db.assert_exactly_one_order(&caller(1, 1), &k, &order, &[outcome, replay])
            .await;
    }
    db.drop_database().await;
    let [create, replay] = <[_; 2]>::try_from(costs).unwrap();
    (create, replay)
}

/// Creates `CREATES + 1` orders (each with a succeeded capture of 1500 JPY when `paid`),
/// then has `who` run `operation` on each on a store of one connection (with
/// `RETURNING`), and returns what the server's counters say each one after the first cost.
async fn cost_per_order_operation<Op>(
    operation: &Op,
    who: &Caller,
    paid: bool,
    input_of: impl Fn(OrderId) -> Op::Input,
) -> HashMap<String, f64>
where
    Op: IdempotentOperation,
    <MysqlStore as UnitOfWork>::Tx: Steps<Op>,
{
    let db = TestDb::create().await;
    let store = one_connection_store(&db, InsertIds::Returning).await;
    let coordinator = coordinator_on(&store);
    let mut orders = Vec::new();
    for n in 0..=CREATES {
        let outcome =
            create_as_tenant_1(&coordinator, &format!("order-{n}"), &format!("CAP-{n}")).await;
        let Outcome::Executed { response, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let body: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
        orders.push(body["orderId"].as_str().unwrap().parse::<u64>().unwrap());
    }
    if paid {
        db.run_sql(
            "INSERT INTO payments (operation_id, tenant_id, order_id, provider_charge_id, \
             amount, currency, created_at) SELECT UNHEX(MD5(id)), tenant_id, id, 'ch_1', 1500, \
             'JPY', created_at FROM orders",
        )
        .await;
    }
    let mut admin = AsyncMysqlConnection::establish(&TestServer::from_env().url_for(""))
        .await
        .unwrap();
    let mut before = HashMap::new();
    for (n, order) in orders.into_iter().enumerate() {
        if n == 1 {
            before = counters(&mut admin).await;
        }
        let input = input_of(OrderId::new(order));
        let outcome = coordinator
            .run(operation, who, &key(&format!("operation-{n}")), &input)
            .await;
        assert!(matches!(outcome, Outcome::Executed { .. }), "{outcome:?}");
    }
    let after = counters(&mut admin).await;
    assert_eq!(
        db.count("SELECT COUNT(*) AS n FROM operations").await,
        i64::try_from(CREATES + 1).unwrap()
    );
    db.drop_database().await;
    per_request(&before, &after, CREATES)
}

/// `STORM` requests with one key and body released at once on one process, after one
/// create that prepared every statement; what each of the storm's requests cost, and the
/// outcomes. The replay cache is off: the followers' saving is the in-process wait alone.
async fn cost_per_storm_request() -> (HashMap<String, f64>, Vec<Outcome<CreateRefusal>>) {
    let db = TestDb::create().await;
    let store = store_of(&db, InsertIds::Returning, 8).await;
    let coordinator = coordinator_on(&store).with_in_flight(Arc::new(InFlight::new()));
    let warm = create_as_tenant_1(&coordinator, "warm", "WARM").await;
    assert!(matches!(warm, Outcome::Executed { .. }), "{warm:?}");
    let mut admin = AsyncMysqlConnection::establish(&TestServer::from_env().url_for(""))
        .await
        .unwrap();

    let before = counters(&mut admin).await;
    let (who, k, order) = (caller(1, 1), key("storm"), new_order("STORM", 1));
    // Polled together on one task: all of them are waiting before the leader's insert returns.
    let outcomes = futures_util::future::join_all(
        (0..STORM).map(|_| coordinator.run(&CreateOrder, &who, &k, &order)),
    )
    .await;
    let after = counters(&mut admin).await;

    db.assert_exactly_one_order(&caller(1, 1), &k, &order, &outcomes)
        .await;
    db.drop_database().await;
    (per_request(&before, &after, STORM), outcomes)
}

/// A batch of `BATCH` creates built for certain (a held request takes the only slot, and
/// they wait behind it), run three times on two connections so that each has prepared the
/// batch's statements; what the last round cost in all, counted from the held request's
/// release: the rest of its own transaction, then the batch.
async fn cost_of_a_batch() -> HashMap<String, f64> {
    let db = TestDb::create().await;
    let store = store_of(&db, InsertIds::Returning, 2).await;
    let mut admin = AsyncMysqlConnection::establish(&TestServer::from_env().url_for(""))
        .await
        .unwrap();
    let mut cost = HashMap::new();
    for round in 0..3 {
        let batching = Arc::new(Batching::new(BatchSettings {
            max_members: 16,
            max_in_flight: 1,
        }));
        let (gate, mut handle) = LeaderGate::new();
        let coordinator = Arc::new(
            coordinator_on(&store)
                .with_batching(batching.clone())
                .with_hooks(gate),
        );
        let run = |name: String| {
            let coordinator = coordinator.clone();
            tokio::spawn(async move { create_as_tenant_1(&coordinator, &name, &name).await })
        };
        let held = run(format!("held-{round}"));
        handle.leader_inserted().await;
        let waiting: Vec<_> = (0..BATCH).map(|n| run(format!("b-{round}-{n}"))).collect();
        wait_until(
            Duration::from_secs(30),
            "the batch waiting behind the held request",
            || async { batching.waiting::<CreateOrder>() },
            |n| *n == BATCH as usize,
        )
        .await;
        let before = counters(&mut admin).await;
        handle.release(HookVerdict::Continue);
        let mut outcomes = vec![held.await.unwrap()];
        for member in waiting {
            outcomes.push(member.await.unwrap());
        }
        let after = counters(&mut admin).await;
        assert!(
            outcomes
                .iter()
                .all(|o| matches!(o, Outcome::Executed { .. })),
            "{outcomes:?}"
        );
        cost = per_request(&before, &after, 1);
    }
    db.drop_database().await;
    cost
}

// One test, both ways in turn: two tests in one binary would run at once and count each
// other's statements.
#[tokio::test]
async fn a_create_prepares_nothing_again_and_costs_five_round_trips_with_returning_six_without_a_replay_three_a_capture_five_a_refund_seven_a_storm_follower_nothing_and_a_batch_five_in_all()
 {
    let (returning, replay) = cost_per_create_and_replay(InsertIds::Returning).await;
    assert_nothing_prepared_again(&returning);
    // The record, order and outbox inserts, the completion, COMMIT: no read first, and the
    // transaction begins with the record's insert, so no `BEGIN` is sent.
    assert_eq!(round_trips(&returning), 5.0, "{returning:?}");
    assert_eq!(returning["Com_begin"], 0.0, "{returning:?}");
    assert_eq!(returning["Questions"], 5.0, "{returning:?}");

    // A replay the cache does not hold: the record insert that finds the key, ROLLBACK, the
    // fresh read.
    assert_nothing_prepared_again(&replay);
    assert_eq!(replay["Questions"], 3.0, "{replay:?}");
    assert_eq!(replay["Com_rollback"], 1.0, "{replay:?}");

    let (last_insert_id, _) = cost_per_create_and_replay(InsertIds::LastInsertId).await;
    assert_nothing_prepared_again(&last_insert_id);
    // As above, plus `SELECT LAST_INSERT_ID()` after the record's insert (MySQL); the
    // order's id was reserved beforehand (`docs/storage.md#order-ids`).
    assert_eq!(round_trips(&last_insert_id), 6.0, "{last_insert_id:?}");

    let capture = cost_per_order_operation(&CapturePayment, &caller(1, 1), false, |order| {
        PaymentCapture {
            order,
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        }
    })
    .await;
    assert_nothing_prepared_again(&capture);
    // The record insert, the order's revision (so a cancel of the order conflicts), the
    // operation's insert, the completion, COMMIT.
    assert_eq!(round_trips(&capture), 5.0, "{capture:?}");

    let refunder = Caller::new(
        TenantId::parse(1).unwrap(),
        ActorId::parse(1).unwrap(),
        "payments:refund",
    );
    let refund = cost_per_order_operation(&RefundPayment, &refunder, true, |order| RefundRequest {
        order,
        amount: Amount::parse(500).unwrap(),
        reason: Reason::parse("damaged").unwrap(),
    })
    .await;
    assert_nothing_prepared_again(&refund);
    // The record insert, the savepoint a stored refusal would return to, the payment's
    // read, its reservation, the operation's insert, the completion, COMMIT.
    assert_eq!(refund["Questions"], 7.0, "{refund:?}");

    let (storm, outcomes) = cost_per_storm_request().await;
    assert_nothing_prepared_again(&storm);
    let executed = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Outcome::Executed { .. }))
        .count();
    assert_eq!(executed, 1, "{outcomes:?}");
    // The leader's five and nothing more: its followers waited in the process and
    // answered from its record, which it handed them.
    let total = storm["Questions"] * STORM as f64;
    assert_eq!(total, 5.0, "the storm's commands, all told: {storm:?}");

    let batch = cost_of_a_batch().await;
    eprintln!("a batch of {BATCH} after a held request, from its release: {batch:?}");
    // The held request's order, event, completion and COMMIT (it was held after its
    // record), then the batch's five statements for all eight: one read of their keys,
    // its records, inserted complete, its orders and its events, each in one multi-row
    // insert, and one COMMIT.
    // (Which of the two connections runs a batch is the pool's choice, so a round may
    // still prepare the batch's statements on the other: only executions are counted.)
    assert_eq!(batch["Com_stmt_execute"], 3.0 + 4.0, "{batch:?}");
    assert_eq!(batch["Com_commit"], 1.0 + 1.0, "{batch:?}");
}
