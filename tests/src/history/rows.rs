//! The rules between a run's answers and what it left in the database: rows equal the
//! successes, an open outcome made at most one, every row has a key the run sent, an
//! order's events rise from its creation's revision 1 in commit order, and an operation
//! charged at most once.

use std::collections::{BTreeMap, HashMap};

use super::read::api_id;
use super::record::{Exchange, ScopeKey};
use super::state::{CREATING, CreatedRow, FinalState};
use super::violation::{Rule, Violation, by_key, describe};

/// Every violation of the end-state rules.
#[must_use]
pub(super) fn check_rows(exchanges: &[Exchange], state: &FinalState) -> Vec<Violation> {
    let mut violations = Vec::new();
    if state.attributed {
        rows_equal_successes(exchanges, &state.rows, &mut violations);
    }
    if let Some(events) = &state.events {
        let mut per_order: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for event in events {
            per_order
                .entry(event.order_id)
                .or_default()
                .push(event.sequence);
        }
        for (order, sequences) in per_order {
            // Creation is 1; later changes rise, with gaps where a change wrote no event
            // (an accepted capture, `docs/events.md`).
            let rising = sequences.windows(2).all(|pair| pair[0] < pair[1]);
            if sequences.first() != Some(&1) || !rising {
                violations.push(Violation {
                    rule: Rule::EventsOutOfOrder,
                    scope: None,
                    detail: format!("order {order}: sequences in commit order {sequences:?}"),
                });
            }
        }
    }
    for charges in state.charges.iter().flatten().filter(|c| c.count > 1) {
        violations.push(Violation {
            rule: Rule::SecondCharge,
            scope: None,
            detail: format!(
                "operation {}: {} charges",
                charges.operation_id, charges.count
            ),
        });
    }
    violations
}

fn rows_equal_successes(exchanges: &[Exchange], rows: &[CreatedRow], out: &mut Vec<Violation>) {
    let groups = by_key(exchanges);
    let mut rows_of: HashMap<&ScopeKey, Vec<&CreatedRow>> = HashMap::new();
    for row in rows {
        match &row.created_by {
            None => out.push(Violation {
                rule: Rule::RowWithoutKey,
                scope: None,
                detail: format!("{} row {} of tenant {}", row.operation, row.id, row.tenant),
            }),
            Some(key) if !groups.contains_key(key) => out.push(Violation::of_key(
                Rule::RowForUnsentKey,
                key,
                format!("row {}", row.id),
            )),
            Some(key) => rows_of.entry(key).or_default().push(row),
        }
    }
    for (scope, list) in groups
        .iter()
        .filter(|(scope, _)| CREATING.contains(&scope.operation.as_str()))
    {
        let found = rows_of.get(scope).map_or(&[][..], Vec::as_slice);
        let ids: Vec<&str> = found.iter().map(|r| r.id.as_str()).collect();
        let success = list.iter().find(|e| e.succeeded());
        match (found.len(), success) {
            (0, Some(success)) => out.push(Violation::of_key(
                Rule::SuccessWithoutRow,
                scope,
                describe(success),
            )),
            (1, None) if !list.iter().any(|e| e.outcome_open()) => {
                out.push(Violation::of_key(
                    Rule::RowWithoutSuccess,
                    scope,
                    format!("row {}; every answer final and none a success", ids[0]),
                ));
            }
            (0 | 1, _) => {}
            _ => out.push(Violation::of_key(
                Rule::TwoRowsForKey,
                scope,
                format!("rows {ids:?}"),
            )),
        }
        if let [row] = found {
            for e in list.iter().filter(|e| e.succeeded()) {
                let named = e.location.as_deref().and_then(|l| l.rsplit('/').next());
                if named.is_some_and(|id| api_id(id) != row.id) {
                    out.push(Violation::of_key(
                        Rule::RowDiffersFromAnswer,
                        scope,
                        format!("row {}; {} names another", row.id, describe(e)),
                    ));
                }
            }
        }
    }
}
