//! Histories the checker must refuse, each with the rule it breaks.

use super::{created, orders, problem, rules, sent};
use crate::history::state::OrderEvent;
use crate::history::violation::Rule;

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
