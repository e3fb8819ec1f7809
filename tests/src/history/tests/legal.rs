//! Histories a fault allows (`docs/http-api.md#outcomes-of-an-idempotent-post`), which the
//! checker must accept, and how a refused one is written out.

use super::{created, orders, problem, rules, sent};
use crate::history::record::History;
use crate::history::violation::Rule;

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
        crate::history::assert_legal(&history, &orders(&[]), "checker-self-test");
    });
    assert!(outcome.is_err(), "an illegal run passed");
    let path = crate::history::histories_dir().join("checker-self-test.json");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("success_without_row"), "{written}");
    let _ = std::fs::remove_file(path);
}
