//! What a worker's group saves the database: due operations claimed in one statement and
//! ended in one transaction cost fewer round trips than the same operations worked one by
//! one, each still under its own fence; and no statement of the worker is prepared again.

use std::collections::HashMap;

use adapters::SystemClock;
use adapters::mysql::InsertIds;
use application::leased::{
    Definite, NoAnswer, ProviderAnswer, Unobserved, Worked, WorkerPorts, WorkerSettings,
    work_group, work_once,
};
use application::payments::{
    CapturePayment, Money, PaymentProvider, ProviderRequest, ProviderResource,
};
use application::ports::NoHooks;
use chrono::{TimeDelta, Utc};
use diesel_async::{AsyncConnection, AsyncMysqlConnection};
use domain::{OwnerId, ProviderId};
use tests::leased::{add_capture, due};
use tests::{Backend, TestDb, TestServer};

use crate::support::{counters, one_connection_store, per_request};

/// Operations due at once, worked as one group or one by one.
const DUE: u64 = 8;

/// Charges every capture at once.
struct Charges;

impl PaymentProvider for Charges {
    async fn create(
        &self,
        _resource: ProviderResource,
        key: &str,
        _request: &ProviderRequest<'_>,
    ) -> ProviderAnswer {
        ProviderAnswer::Definite(Definite {
            id: ProviderId::parse(&format!("ch_{}", key.len())).unwrap(),
            succeeded: true,
        })
    }

    async fn find(
        &self,
        _resource: ProviderResource,
        _key: &str,
        _money: Money,
    ) -> Result<Option<Definite>, NoAnswer> {
        Ok(None)
    }
}

/// What each of `DUE` due captures cost to claim, charge and end, worked as one group or
/// one by one; every one must end succeeded.
async fn cost_per_operation(grouped: bool) -> HashMap<String, f64> {
    let db = TestDb::create().await;
    for n in 1..=DUE {
        add_capture(&db, u128::from(n), n).await;
    }
    let store = one_connection_store(&db, InsertIds::Returning).await;
    let due = due(&store, Utc::now()).await.unwrap();
    assert_eq!(due.len() as u64, DUE);
    let settings = WorkerSettings {
        owner: OwnerId::parse("cost-worker").unwrap(),
        lease: TimeDelta::seconds(30),
        max_attempts: 8,
        first_backoff: std::time::Duration::from_secs(1),
        key_retention: TimeDelta::days(3650),
    };
    let ports = WorkerPorts {
        store: &store,
        provider: &Charges,
        clock: &SystemClock,
        hooks: &NoHooks,
        calls: &Unobserved,
    };
    let mut admin = AsyncMysqlConnection::establish(&TestServer::from_env().url_for(""))
        .await
        .unwrap();
    let before = counters(&mut admin).await;
    let worked = if grouped {
        work_group::<CapturePayment, _, _, _>(ports, &settings, &due, &[])
            .await
            .unwrap()
    } else {
        let mut worked = Vec::new();
        for operation in &due {
            worked.push(
                work_once::<CapturePayment, _, _, _>(ports, &settings, operation)
                    .await
                    .unwrap(),
            );
        }
        worked
    };
    let after = counters(&mut admin).await;
    assert!(
        worked.iter().all(|w| matches!(w, Worked::Ended(_))),
        "{worked:?}"
    );
    assert_eq!(
        db.count("SELECT COUNT(*) AS n FROM payments").await as u64,
        DUE,
        "one payment each"
    );
    db.finish().await;
    per_request(&before, &after, DUE)
}

#[tokio::test]
async fn a_group_of_eight_is_claimed_in_one_statement_and_ended_in_one_transaction() {
    let alone = cost_per_operation(false).await;
    let grouped = cost_per_operation(true).await;
    eprintln!("per operation, alone: {alone:?}\nper operation, grouped: {grouped:?}");
    let total = |cost: &HashMap<String, f64>, name: &str| (cost[name] * DUE as f64).round();
    assert_eq!(total(&alone, "Com_commit"), DUE as f64, "one end each");
    assert_eq!(total(&grouped, "Com_commit"), 1.0, "one end for the group");
    // The due read, the claim, the end, the payment, the order's revision, the event and
    // the result: each prepared once on the connection, for one operation as for eight.
    for cost in [&alone, &grouped] {
        assert_eq!(total(cost, "Com_stmt_prepare"), 7.0, "{cost:?}");
    }
    let saved = |name| total(&alone, name) - total(&grouped, name);
    assert_eq!(saved("Com_stmt_execute"), 7.0, "seven claims fewer");
    assert_eq!(
        saved("Questions"),
        7.0 + 7.0,
        "seven claims and seven COMMITs fewer"
    );
}
