//! Reads a [`FinalState`] from a test's database with the checks' own connection
//! (`TestDb::rows`): orders, operations and the records that name them, events, charges.

use std::collections::HashMap;

use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Binary, Nullable, Text};

use super::record::ScopeKey;
use super::state::{Charges, CreatedRow, FinalState, OrderEvent};
use crate::TestDb;

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = Text)]
    operation: String,
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = BigInt)]
    tenant_id: i64,
}

#[derive(QueryableByName)]
struct Record {
    #[diesel(sql_type = Text)]
    operation: String,
    #[diesel(sql_type = BigInt)]
    tenant_id: i64,
    #[diesel(sql_type = BigInt)]
    actor_id: i64,
    #[diesel(sql_type = Binary)]
    idempotency_key: Vec<u8>,
    #[diesel(sql_type = Nullable<Binary>)]
    response_body: Option<Vec<u8>>,
}

#[derive(QueryableByName)]
struct Event {
    #[diesel(sql_type = BigInt)]
    order_id: i64,
    #[diesel(sql_type = BigInt)]
    sequence: i64,
    #[diesel(sql_type = Text)]
    event_type: String,
}

#[derive(QueryableByName)]
struct ChargeCount {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Orders, then operations (ids as the API spells them: decimal, and a UUID's lowercase
/// hex without dashes, as [`api_id`] normalizes both).
const ROWS: &str = "SELECT 'orders.create.v1' AS operation, CAST(id AS CHAR) AS id, tenant_id \
     FROM orders UNION ALL \
     SELECT CAST(operation_type AS CHAR), LOWER(HEX(id)), tenant_id FROM operations";

/// Records whose stored answer is a success that created a row.
const RECORDS: &str = "SELECT CAST(operation AS CHAR) AS operation, tenant_id, actor_id, \
     idempotency_key, response_body FROM api_idempotency \
     WHERE state = 'COMPLETED' AND response_status BETWEEN 200 AND 299";

const EVENTS: &str = "SELECT CAST(SUBSTRING(CAST(ordering_key AS CHAR), 8) AS SIGNED) AS order_id, \
     ordering_seq AS sequence, CAST(event_type AS CHAR) AS event_type FROM outbox \
     WHERE ordering_key LIKE 'orders/%' ORDER BY id";

const CHARGES: &str =
    "SELECT LOWER(HEX(operation_id)) AS id, COUNT(*) AS n FROM payments GROUP BY operation_id";

/// An id as the API spells it, normalized for comparison: a UUID loses its dashes.
#[must_use]
pub(super) fn api_id(id: &str) -> String {
    id.replace('-', "").to_ascii_lowercase()
}

/// The id a stored success names: `orderId` of an order, `operationId` of an operation.
fn named_id(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    ["operationId", "orderId"]
        .iter()
        .find_map(|member| value.get(*member)?.as_str().map(api_id))
}

impl FinalState {
    /// The end state of `db`: every created row with the key that created it, the
    /// orders' events, and the charges per operation.
    pub async fn read(db: &TestDb) -> Self {
        let records: Vec<Record> = db.rows(RECORDS).await;
        let named: HashMap<(String, i64, String), ScopeKey> = records
            .into_iter()
            .filter_map(|r| {
                let id = named_id(r.response_body.as_deref()?)?;
                let key = ScopeKey {
                    operation: r.operation.clone(),
                    tenant: r.tenant_id as u64,
                    actor: r.actor_id as u64,
                    key: String::from_utf8_lossy(&r.idempotency_key).into_owned(),
                };
                Some(((r.operation, r.tenant_id, id), key))
            })
            .collect();
        let rows: Vec<Row> = db.rows(ROWS).await;
        let rows = rows
            .into_iter()
            .map(|row| {
                let id = api_id(&row.id);
                let created_by = named
                    .get(&(row.operation.clone(), row.tenant_id, id.clone()))
                    .cloned();
                CreatedRow {
                    operation: row.operation,
                    id,
                    tenant: row.tenant_id as u64,
                    created_by,
                }
            })
            .collect();
        let events: Vec<Event> = db.rows(EVENTS).await;
        let charges: Vec<ChargeCount> = db.rows(CHARGES).await;
        Self {
            rows,
            attributed: true,
            events: Some(
                events
                    .into_iter()
                    .map(|e| OrderEvent {
                        order_id: e.order_id as u64,
                        sequence: e.sequence as u64,
                        event_type: e.event_type,
                    })
                    .collect(),
            ),
            charges: Some(
                charges
                    .into_iter()
                    .map(|c| Charges {
                        operation_id: c.id,
                        count: c.n as u64,
                    })
                    .collect(),
            ),
        }
    }
}
