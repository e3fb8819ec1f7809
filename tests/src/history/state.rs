//! What the database holds at the end of a run, as plain data a checker compares the
//! history against: the rows idempotent executions create, which key created each (read
//! from the stored answer of its record, `docs/storage.md`), and the orders' events.

use serde::Serialize;

use super::record::ScopeKey;

/// A row one idempotent execution creates: an order (`orders.create.v1`) or an operation
/// (`payments.capture.v1`, `payments.refund.v1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreatedRow {
    /// The operation that creates such rows.
    pub operation: String,
    /// The row's id as the API spells it (`orderId`, `operationId`).
    pub id: String,
    /// The row's tenant.
    pub tenant: u64,
    /// The key whose stored success names this row; `None` when no record names it.
    pub created_by: Option<ScopeKey>,
}

/// One event of an order, in commit order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrderEvent {
    /// The order.
    pub order_id: u64,
    /// Its sequence (the order's revision when the event was written).
    pub sequence: u64,
    /// The event type.
    pub event_type: String,
}

/// How many charges (payments) one operation made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Charges {
    /// The operation's id as the API spells it.
    pub operation_id: String,
    /// Payments recorded for it.
    pub count: u64,
}

/// The end state of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FinalState {
    /// Every created row, of every operation that creates one.
    pub rows: Vec<CreatedRow>,
    /// Whether rows can be attributed to keys (records were kept for all of them); when
    /// not, only the answer rules are checked.
    pub attributed: bool,
    /// The orders' events in commit order, when the run checks them.
    pub events: Option<Vec<OrderEvent>>,
    /// Charges per operation, when the run has them.
    pub charges: Option<Vec<Charges>>,
}

/// The operations whose success creates exactly one row.
pub(super) const CREATING: [&str; 3] = [
    "orders.create.v1",
    "payments.capture.v1",
    "payments.refund.v1",
];
