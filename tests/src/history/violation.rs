//! What a checker reports: the rule a run broke and where, naming keys, statuses, ids
//! and times only, never a request body or a token (a report is written to a file).

use std::collections::BTreeMap;

use serde::Serialize;

use super::record::{Exchange, ScopeKey};

/// The rules a history and its end state must keep (`docs/testing.md#histories`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A key was answered more than one success without the replay marker.
    SecondOriginal,
    /// A replay's status or body is not the original's.
    ReplayDiffers,
    /// With the original's answer lost, two replays differ.
    ReplaysDiffer,
    /// A success was answered for another body than the key's first success.
    SuccessForAnotherBody,
    /// `422 idempotency_key_reused` for the body the key succeeded with.
    ReusedForSameBody,
    /// `409 request_in_progress` while no other request with the key was in flight.
    InProgressWithoutOverlap,
    /// A key answered a success has no row.
    SuccessWithoutRow,
    /// A row exists for a key never answered a success and never left open.
    RowWithoutSuccess,
    /// One key has two rows.
    TwoRowsForKey,
    /// A row's key was never sent in the run.
    RowForUnsentKey,
    /// A row no stored success names.
    RowWithoutKey,
    /// A success's `Location` names another row than the key's.
    RowDiffersFromAnswer,
    /// An order's events, in commit order, do not start at 1 and rise.
    EventsOutOfOrder,
    /// An operation made more than one charge.
    SecondCharge,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// The key it concerns, if one.
    pub scope: Option<ScopeKey>,
    /// What was seen: statuses, digests, ids and times, never bodies or tokens.
    pub detail: String,
}

impl Violation {
    /// A violation of `rule` by `scope`'s key.
    #[must_use]
    pub fn of_key(rule: Rule, scope: &ScopeKey, detail: String) -> Self {
        Self {
            rule,
            scope: Some(scope.clone()),
            detail,
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rule = serde_json::to_value(self.rule).unwrap_or_default();
        match &self.scope {
            Some(s) => write!(
                f,
                "{} [{} tenant {} actor {} key {}]: {}",
                rule.as_str().unwrap_or("?"),
                s.operation,
                s.tenant,
                s.actor,
                s.key,
                self.detail
            ),
            None => write!(f, "{}: {}", rule.as_str().unwrap_or("?"), self.detail),
        }
    }
}

/// The exchanges of each key, each key's in the order they were sent.
#[must_use]
pub(super) fn by_key(exchanges: &[Exchange]) -> BTreeMap<ScopeKey, Vec<&Exchange>> {
    let mut groups: BTreeMap<ScopeKey, Vec<&Exchange>> = BTreeMap::new();
    for exchange in exchanges {
        groups
            .entry(exchange.scope_key())
            .or_default()
            .push(exchange);
    }
    for list in groups.values_mut() {
        list.sort_by_key(|e| (e.sent_us, e.answered_us));
    }
    groups
}

/// A short description of an answer for a violation's detail.
#[must_use]
pub(super) fn describe(e: &Exchange) -> String {
    let status = e.status.map_or("no response".to_owned(), |s| s.to_string());
    let code = e
        .code
        .as_deref()
        .map(|c| format!(" {c}"))
        .unwrap_or_default();
    let replayed = if e.replayed { " (replayed)" } else { "" };
    let digest = e
        .response_digest
        .as_deref()
        .map(|d| format!(" body {}", &d[..12.min(d.len())]))
        .unwrap_or_default();
    format!(
        "{status}{code}{replayed}{digest} sent at {} us, answered at {} us",
        e.sent_us, e.answered_us
    )
}
