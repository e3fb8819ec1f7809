//! What a worker says about each operation it touched: a log line (never the downstream
//! key; `needs_review` at `warn`, for a person) and the metrics.

use adapters::api::LEASED_KINDS;
use adapters::metrics::Metrics;
use application::ErrorChain;
use application::leased::Worked;
use application::ports::{DueOperation, Ending};
use domain::{AttemptError, OperationState};

/// The `type` label of `operation`: its kind's name as the list of served kinds spells it.
fn kind_label(operation: &DueOperation) -> &'static str {
    LEASED_KINDS
        .iter()
        .map(|(name, _)| *name)
        .find(|name| *name == operation.kind)
        .unwrap_or("unknown")
}

/// Logs and counts what working `operation` came to; `true` when this worker won its
/// claim.
pub(crate) fn report(operation: &DueOperation, worked: &Worked, metrics: Option<&Metrics>) -> bool {
    let operation_id = operation.id;
    let won = !matches!(worked, Worked::NotClaimed);
    match worked {
        Worked::NotClaimed => {
            tracing::debug!(%operation_id, "another worker claimed the operation");
        }
        Worked::Ended(ending) => {
            let state = ending.state().as_api();
            if let Ending::NeedsReview(last_error) = ending {
                tracing::warn!(
                    %operation_id,
                    state,
                    last_error = last_error.as_str(),
                    attempts = operation.attempts.saturating_add(1),
                    "operation needs review: no definite answer from the provider within the \
                     attempts; for a person to look at"
                );
            } else {
                tracing::info!(%operation_id, state, "operation ended");
            }
        }
        Worked::RetryAt(next_attempt_at) => {
            tracing::info!(
                %operation_id,
                %next_attempt_at,
                "no definite answer from the provider; the operation is retried later"
            );
        }
        Worked::LeaseLost => {
            tracing::warn!(
                %operation_id,
                "lease lost to another worker; this worker wrote nothing more"
            );
        }
        Worked::Unrecorded { error } => {
            tracing::warn!(
                %operation_id,
                state = "needs_review",
                last_error = AttemptError::CompletionFailed.as_str(),
                error = %ErrorChain(error),
                "operation needs review: the database refused to record the provider's \
                 answer twice the same way; for a person to look at"
            );
        }
        Worked::Abandoned { step, error } => {
            tracing::warn!(
                %operation_id,
                step = step.as_str(),
                error = %ErrorChain(error),
                "a database write failed; this worker wrote nothing more and the lease \
                 runs out for the next owner"
            );
        }
    }
    if let Some(metrics) = metrics {
        metrics.count_operation_claim(won);
        match worked {
            Worked::NotClaimed => {}
            Worked::Ended(ending) => {
                metrics.count_operation_ended(kind_label(operation), ending.state());
            }
            Worked::Unrecorded { .. } => {
                metrics.count_operation_ended(kind_label(operation), OperationState::NeedsReview);
            }
            Worked::RetryAt(_) => metrics.count_operation_retry(),
            Worked::LeaseLost => metrics.count_operation_lease_loss(),
            Worked::Abandoned { .. } => metrics.count_operation_abandoned(),
        }
    }
    won
}

#[cfg(test)]
mod tests {
    use domain::{AttemptError, Generation, LeaseView, OrderId, TenantId};

    use adapters::SystemClock;
    use application::ports::Clock;
    use uuid::Uuid;

    use super::*;

    fn due() -> DueOperation {
        DueOperation {
            id: Uuid::new_v4(),
            kind: "payments.capture.v1".to_owned(),
            tenant: TenantId::parse(1).unwrap(),
            order: OrderId::new(42),
            input: br#"{"amount":1500,"currency":"JPY"}"#.to_vec(),
            downstream_key: "downstream-secret".to_owned(),
            attempts: 7,
            accepted_at: chrono::Utc::now(),
            lease: LeaseView {
                generation: Generation::UNCLAIMED,
                holder: None,
            },
            trace_context: None,
        }
    }

    #[test]
    fn each_result_is_counted_once_and_only_a_lost_claim_is_not_won() {
        let metrics = Metrics::new();
        let operation = due();
        let results = [
            (Worked::NotClaimed, false),
            (
                Worked::Ended(Ending::NeedsReview(AttemptError::Timeout)),
                true,
            ),
            (
                Worked::Ended(Ending::Succeeded {
                    provider_id: "ch_1".to_owned(),
                }),
                true,
            ),
            (Worked::RetryAt(SystemClock.now()), true),
            (Worked::LeaseLost, true),
            (
                Worked::Abandoned {
                    step: application::leased::Step::Completion,
                    error: application::ports::StoreError::Deadlock,
                },
                true,
            ),
        ];
        for (worked, won) in results {
            assert_eq!(
                report(&operation, &worked, Some(&metrics)),
                won,
                "{worked:?}"
            );
        }
        assert!(report(&operation, &Worked::Ended(Ending::Declined), None));
        let text = metrics.render();
        for line in [
            r#"operation_claims_total{result="won"} 5"#,
            r#"operation_claims_total{result="lost"} 1"#,
            r#"operations_ended_total{type="payments.capture.v1",state="needs_review"} 1"#,
            r#"operations_ended_total{type="payments.capture.v1",state="succeeded"} 1"#,
            "operation_retries_total 1",
            "operation_lease_losses_total 1",
            "operations_abandoned_total 1",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }
}
