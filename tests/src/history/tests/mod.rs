//! The checker's own cases, no database: each illegal history gives its violation, and
//! the legal ones `docs/http-api.md` allows after a fault give none. Builders here.

mod illegal;
mod legal;

use super::record::{Exchange, History, ScopeKey};
use super::state::{CreatedRow, FinalState};
use super::verdict::check;
use super::violation::Rule;

const CREATE: &str = "orders.create.v1";

/// A create with `key` and body `body`, sent at `sent` ms and answered at `answered` ms.
pub(super) fn sent(key: &str, body: &str, sent: u64, answered: u64) -> Exchange {
    Exchange {
        operation: CREATE.to_owned(),
        tenant: 1,
        actor: 1,
        key: key.to_owned(),
        request_digest: format!("request-{body}"),
        status: None,
        code: None,
        replayed: false,
        response_digest: None,
        location: None,
        sent_us: sent * 1000,
        answered_us: answered * 1000,
    }
}

/// Answered `201` for order `order`, the original or a replay.
pub(super) fn created(mut e: Exchange, order: u64, replayed: bool) -> Exchange {
    e.status = Some(201);
    e.replayed = replayed;
    e.response_digest = Some(format!("order-{order}"));
    e.location = Some(format!("/api/orders/{order}"));
    e
}

pub(super) fn problem(mut e: Exchange, status: u16, code: &str) -> Exchange {
    e.status = Some(status);
    e.code = Some(code.to_owned());
    e.response_digest = Some(format!("problem-{code}"));
    e
}

fn scope(key: &str) -> ScopeKey {
    ScopeKey {
        operation: CREATE.to_owned(),
        tenant: 1,
        actor: 1,
        key: key.to_owned(),
    }
}

/// An end state of these orders, each `(id, key that created it)`.
pub(super) fn orders(rows: &[(u64, &str)]) -> FinalState {
    FinalState {
        rows: rows
            .iter()
            .map(|(id, key)| CreatedRow {
                operation: CREATE.to_owned(),
                id: id.to_string(),
                tenant: 1,
                created_by: Some(scope(key)),
            })
            .collect(),
        attributed: true,
        events: None,
        charges: None,
    }
}

pub(super) fn rules(exchanges: Vec<Exchange>, state: &FinalState) -> Vec<Rule> {
    check(&History::of(exchanges), state)
        .into_iter()
        .map(|v| v.rule)
        .collect()
}
