//! Reading what requests cost: the server's statement counters before and after, per
//! request, and stores of a known number of connections.

use std::collections::HashMap;
use std::time::Duration;

use adapters::mysql::{InsertIds, MysqlConfig, MysqlStore};
use diesel_async::AsyncMysqlConnection;
use tests::{TestDb, global_status};

/// The statement counters of the whole server.
pub(crate) async fn counters(admin: &mut AsyncMysqlConnection) -> HashMap<String, u64> {
    global_status(
        admin,
        &[
            "Questions",
            "Com_stmt_prepare",
            "Com_stmt_execute",
            "Com_stmt_close",
            "Com_begin",
            "Com_commit",
            "Com_rollback",
        ],
    )
    .await
}

/// What each of the `requests` between `before` and `after` cost.
pub(crate) fn per_request(
    before: &HashMap<String, u64>,
    after: &HashMap<String, u64>,
    requests: u64,
) -> HashMap<String, f64> {
    after
        .keys()
        .map(|name| {
            // The SHOW of `after` is a statement of its own (sql_query prepares, runs and
            // closes it).
            let own = u64::from(matches!(
                name.as_str(),
                "Questions" | "Com_stmt_prepare" | "Com_stmt_execute" | "Com_stmt_close"
            ));
            let delta = after[name] - before[name] - own;
            (name.clone(), delta as f64 / requests as f64)
        })
        .collect()
}

/// A store of one connection on `db` that obtains insert ids as `ids` says.
pub(crate) async fn one_connection_store(db: &TestDb, ids: InsertIds) -> MysqlStore {
    store_of(db, ids, 1).await
}

pub(crate) async fn store_of(db: &TestDb, ids: InsertIds, connections: usize) -> MysqlStore {
    MysqlStore::connect(&MysqlConfig {
        url: db.url().to_owned(),
        lock_wait_timeout_secs: 5,
        max_connections: connections,
        database_timeout: Duration::from_secs(6),
        migration_timeout: Duration::from_secs(60),
        node_return: Duration::from_secs(60),
    })
    .await
    .unwrap()
    .with_insert_ids(ids)
}

/// Prepares plus executions plus `BEGIN` and `COMMIT`: each waits for the server's answer
/// (closing a statement does not).
pub(crate) fn round_trips(cost: &HashMap<String, f64>) -> f64 {
    [
        "Com_stmt_prepare",
        "Com_stmt_execute",
        "Com_begin",
        "Com_commit",
    ]
    .iter()
    .map(|name| cost[*name])
    .sum()
}

pub(crate) fn assert_nothing_prepared_again(cost: &HashMap<String, f64>) {
    eprintln!("per request, from the server's counters: {cost:?}");
    assert_eq!(
        cost["Com_stmt_prepare"], 0.0,
        "each statement is prepared once per connection, not per request"
    );
    assert_eq!(cost["Com_stmt_close"], 0.0, "nor closed");
}
