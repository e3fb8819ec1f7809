//! The rules on a key's answers alone (`docs/http-api.md#outcomes-of-an-idempotent-post`):
//! one execution, replays identical to it, a body bound to its key, and
//! `409 request_in_progress` only while another request with the key was in flight.

use super::record::{Exchange, ScopeKey};
use super::violation::{Rule, Violation, by_key, describe};

/// Every violation of the answer rules in `exchanges`.
#[must_use]
pub(super) fn check_answers(exchanges: &[Exchange]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (scope, list) in by_key(exchanges) {
        one_execution(&scope, &list, &mut violations);
        bound_to_one_body(&scope, &list, &mut violations);
        in_progress_only_beside_another(&scope, &list, &mut violations);
    }
    violations
}

/// At most one original; every replay the original's status and bytes, or, with the
/// original's answer lost, every replay the same as the first.
fn one_execution(scope: &ScopeKey, list: &[&Exchange], out: &mut Vec<Violation>) {
    let originals: Vec<_> = list.iter().filter(|e| e.is_original()).collect();
    for second in originals.iter().skip(1) {
        out.push(Violation::of_key(
            Rule::SecondOriginal,
            scope,
            format!(
                "first original {}; another {}",
                describe(originals[0]),
                describe(second)
            ),
        ));
    }
    let mut replays = list.iter().filter(|e| e.is_replay());
    let (reference, rule) = match originals.first() {
        Some(original) => (**original, Rule::ReplayDiffers),
        None => match replays.next() {
            Some(first) => (*first, Rule::ReplaysDiffer),
            None => return,
        },
    };
    for replay in replays {
        if (replay.status, &replay.response_digest)
            != (reference.status, &reference.response_digest)
        {
            out.push(Violation::of_key(
                rule,
                scope,
                format!(
                    "expected {}; replay {}",
                    describe(reference),
                    describe(replay)
                ),
            ));
        }
    }
}

/// Every success for the body of the key's first success; `422 idempotency_key_reused`
/// only for another body.
fn bound_to_one_body(scope: &ScopeKey, list: &[&Exchange], out: &mut Vec<Violation>) {
    let Some(first) = list.iter().find(|e| e.succeeded()) else {
        return;
    };
    for e in list.iter().filter(|e| e.succeeded()) {
        if e.request_digest != first.request_digest {
            out.push(Violation::of_key(
                Rule::SuccessForAnotherBody,
                scope,
                format!(
                    "first success {} for request {}; {} for request {}",
                    describe(first),
                    short(&first.request_digest),
                    describe(e),
                    short(&e.request_digest)
                ),
            ));
        }
    }
    for e in list
        .iter()
        .filter(|e| e.code.as_deref() == Some("idempotency_key_reused"))
    {
        if e.request_digest == first.request_digest {
            out.push(Violation::of_key(
                Rule::ReusedForSameBody,
                scope,
                format!("{} for the body of {}", describe(e), describe(first)),
            ));
        }
    }
}

/// `409 request_in_progress` only while another request with the key overlapped it. A
/// request whose outcome was left open (no response, a `5xx`) may still be running in
/// the service after its client gave up, so it counts as in flight until the end.
fn in_progress_only_beside_another(scope: &ScopeKey, list: &[&Exchange], out: &mut Vec<Violation>) {
    for (i, e) in list.iter().enumerate() {
        if e.code.as_deref() != Some("request_in_progress") {
            continue;
        }
        let overlapped = list.iter().enumerate().any(|(j, other)| {
            let other_end = if other.outcome_open() {
                u64::MAX
            } else {
                other.answered_us
            };
            j != i && other.sent_us <= e.answered_us && other_end >= e.sent_us
        });
        if !overlapped {
            out.push(Violation::of_key(
                Rule::InProgressWithoutOverlap,
                scope,
                describe(e),
            ));
        }
    }
}

fn short(digest: &str) -> &str {
    &digest[..12.min(digest.len())]
}
