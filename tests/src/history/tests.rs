//! The checker's own cases, no database: each illegal history gives its violation, and
//! the legal ones `docs/http-api.md` allows after a fault give none.

use super::record::{Exchange, History, ScopeKey};
use super::state::{CreatedRow, FinalState, OrderEvent};
use super::verdict::check;
use super::violation::Rule;

const CREATE: &str = "orders.create.v1";

/// A create with `key` and body `body`, sent at `sent` ms and answered at `answered` ms.
fn sent(key: &str, body: &str, sent: u64, answered: u64) -> Exchange {
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
fn created(mut e: Exchange, order: u64, replayed: bool) -> Exchange {
    e.status = Some(201);
    e.replayed = replayed;
    e.response_digest = Some(format!("order-{order}"));
    e.location = Some(format!("/api/orders/{order}"));
    e
}

fn problem(mut e: Exchange, status: u16, code: &str) -> Exchange {
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
fn orders(rows: &[(u64, &str)]) -> FinalState {
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

fn rules(exchanges: Vec<Exchange>, state: &FinalState) -> Vec<Rule> {
    check(&History::of(exchanges), state)
        .into_iter()
        .map(|v| v.rule)
        .collect()
}

#[test]
fn a_second_original_success_for_a_key_is_illegal() {
    let history = vec![
        created(sent("k", "a", 0, 1), 1, false),
        created(sent("k", "a", 2, 3), 1, false),
    ];
    assert_eq!(rules(history, &orders(&[(1, "k")])), [Rule::SecondOriginal]);
}

#[test]
fn a_replay_whose_body_differs_is_illegal() {
    let history = vec![
        created(sent("k", "a", 0, 1), 1, false),
        created(sent("k", "a", 2, 3), 2, true),
    ];
    let found = rules(history, &orders(&[(1, "k")]));
    assert!(found.contains(&Rule::ReplayDiffers), "{found:?}");
}

#[test]
fn with_the_original_lost_two_different_replays_are_illegal() {
    let history = vec![
        problem(sent("k", "a", 0, 1), 503, "outcome_unknown"),
        created(sent("k", "a", 2, 3), 1, true),
        created(sent("k", "a", 4, 5), 2, true),
    ];
    let found = rules(history, &orders(&[(1, "k")]));
    assert!(found.contains(&Rule::ReplaysDiffer), "{found:?}");
}

#[test]
fn an_order_without_a_success_for_its_key_is_illegal() {
    let history = vec![problem(
        sent("k", "a", 0, 1),
        409,
        "client_order_ref_conflict",
    )];
    assert_eq!(
        rules(history, &orders(&[(1, "k")])),
        [Rule::RowWithoutSuccess]
    );
    let unsent = rules(vec![], &orders(&[(1, "never")]));
    assert_eq!(unsent, [Rule::RowForUnsentKey]);
    let mut nameless = orders(&[(1, "k")]);
    nameless.rows[0].created_by = None;
    assert_eq!(rules(vec![], &nameless), [Rule::RowWithoutKey]);
}

#[test]
fn a_succeeded_create_with_no_order_is_illegal() {
    let history = vec![created(sent("k", "a", 0, 1), 1, false)];
    assert_eq!(rules(history, &orders(&[])), [Rule::SuccessWithoutRow]);
}

#[test]
fn two_orders_for_one_key_are_illegal() {
    let history = vec![
        sent("k", "a", 0, 1),
        problem(sent("k", "a", 2, 3), 503, "outcome_unknown"),
    ];
    assert_eq!(
        rules(history, &orders(&[(1, "k"), (2, "k")])),
        [Rule::TwoRowsForKey]
    );
}

#[test]
fn a_success_for_another_body_than_the_key_s_first_is_illegal() {
    let history = vec![
        created(sent("k", "a", 0, 1), 1, false),
        created(sent("k", "b", 2, 3), 1, true),
    ];
    assert_eq!(
        rules(history, &orders(&[(1, "k")])),
        [Rule::SuccessForAnotherBody]
    );
}

#[test]
fn events_out_of_commit_order_are_illegal() {
    let event = |order_id, sequence| OrderEvent {
        order_id,
        sequence,
        event_type: "orders.created.v1".to_owned(),
    };
    let mut state = orders(&[]);
    state.events = Some(vec![event(1, 1), event(2, 1), event(1, 3), event(1, 2)]);
    assert_eq!(rules(vec![], &state), [Rule::EventsOutOfOrder]);
    state.events = Some(vec![event(2, 2)]);
    assert_eq!(rules(vec![], &state), [Rule::EventsOutOfOrder]);
    // A change without an event (an accepted capture) leaves a gap.
    state.events = Some(vec![event(1, 1), event(2, 1), event(1, 3), event(1, 4)]);
    assert_eq!(rules(vec![], &state), []);
}

#[test]
fn in_progress_with_nothing_else_in_flight_is_illegal() {
    let history = vec![
        created(sent("k", "a", 0, 1), 1, false),
        problem(sent("k", "a", 2, 3), 409, "request_in_progress"),
    ];
    assert_eq!(
        rules(history, &orders(&[(1, "k")])),
        [Rule::InProgressWithoutOverlap]
    );
}

#[test]
fn outcome_unknown_then_a_replay_is_legal() {
    let history = vec![
        problem(sent("k", "a", 0, 1), 503, "outcome_unknown"),
        created(sent("k", "a", 2, 3), 1, true),
        created(sent("k", "a", 4, 5), 1, true),
    ];
    assert_eq!(rules(history, &orders(&[(1, "k")])), []);
}

#[test]
fn no_response_then_a_later_original_success_is_legal() {
    let history = vec![
        sent("k", "a", 0, 1),
        created(sent("k", "a", 2, 3), 1, false),
    ];
    assert_eq!(rules(history, &orders(&[(1, "k")])), []);
    // The run may end on the lost answer: its one execution, or none.
    assert_eq!(rules(vec![sent("k", "a", 0, 1)], &orders(&[(1, "k")])), []);
    assert_eq!(rules(vec![sent("k", "a", 0, 1)], &orders(&[])), []);
}

#[test]
fn in_progress_overlapping_a_success_then_a_replay_is_legal() {
    let history = vec![
        created(sent("k", "a", 0, 10), 1, false),
        problem(sent("k", "a", 2, 5), 409, "request_in_progress"),
        created(sent("k", "a", 11, 12), 1, true),
    ];
    assert_eq!(rules(history, &orders(&[(1, "k")])), []);
}

#[test]
fn key_reused_for_another_body_is_legal_and_for_the_same_body_is_not() {
    let history = vec![
        created(sent("k", "a", 0, 1), 1, false),
        problem(sent("k", "b", 2, 3), 422, "idempotency_key_reused"),
    ];
    assert_eq!(rules(history, &orders(&[(1, "k")])), []);
    let history = vec![
        created(sent("k", "a", 0, 1), 1, false),
        problem(sent("k", "a", 2, 3), 422, "idempotency_key_reused"),
    ];
    assert_eq!(
        rules(history, &orders(&[(1, "k")])),
        [Rule::ReusedForSameBody]
    );
}

#[test]
fn a_failed_run_is_written_out_without_bodies_or_tokens() {
    let history = History::of(vec![created(sent("k", "a", 0, 1), 1, false)]);
    let outcome = std::panic::catch_unwind(|| {
        super::assert_legal(&history, &orders(&[]), "checker-self-test");
    });
    assert!(outcome.is_err(), "an illegal run passed");
    let path = super::histories_dir().join("checker-self-test.json");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("success_without_row"), "{written}");
    let _ = std::fs::remove_file(path);
}
