//! The workers' metrics (`docs/http-api.md#metrics`), for operations of every kind.

use application::leased::CallObserver;
use domain::OperationState;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::Metrics;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EndedLabels {
    r#type: &'static str,
    state: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClaimLabels {
    result: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProviderCallLabels {
    call: &'static str,
    result: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

#[derive(Debug, Default)]
pub(super) struct OperationMetrics {
    in_state: Family<StateLabels, Gauge>,
    polls: Counter,
    ended: Family<EndedLabels, Counter>,
    claims: Family<ClaimLabels, Counter>,
    lease_losses: Counter,
    abandoned: Counter,
    provider_calls: Family<ProviderCallLabels, Counter>,
    retries: Counter,
}

impl OperationMetrics {
    pub(super) fn register(&self, registry: &mut Registry) {
        registry.register(
            "operations_in_state",
            "Operations in each state (pending, succeeded, declined, needs_review, \
             cancelled), every state shown, read from the database by the workers' \
             process",
            self.in_state.clone(),
        );
        registry.register(
            "operation_worker_polls",
            "Passes of the workers over the due operations, whatever they found: \
             a rate of zero means no worker is looking",
            self.polls.clone(),
        );
        registry.register(
            "operations_ended",
            "Long-running operations a worker ended, by type and end state \
             (succeeded, declined, needs_review)",
            self.ended.clone(),
        );
        registry.register(
            "operation_claims",
            "Claims of due operations: won, or lost to another worker (result)",
            self.claims.clone(),
        );
        registry.register(
            "operation_lease_losses",
            "Operations a worker gave up after winning them because another worker took \
             the lease over (it wrote nothing more)",
            self.lease_losses.clone(),
        );
        registry.register(
            "operations_abandoned",
            "Operations a worker gave up after winning them because a database write \
             failed (it wrote nothing more; the lease runs out for the next owner)",
            self.abandoned.clone(),
        );
        registry.register(
            "payment_provider_calls",
            "Calls to the payment provider by call (each kind's call and result query: charge \
             and lookup for a capture) and result (a call: definite, unknown; a result query: \
             found, not_found, error)",
            self.provider_calls.clone(),
        );
        registry.register(
            "operation_retries",
            "Attempts that got no definite answer and were put off for a later retry",
            self.retries.clone(),
        );
    }
}

/// The workers count each call to the other service here.
impl CallObserver for Metrics {
    fn called(&self, call: &'static str, result: &'static str) {
        self.count_provider_call(call, result);
    }
}

impl Metrics {
    /// Sets the gauge of every state from `counts`; a state not in it has none.
    pub fn set_operations_in_state(&self, counts: &[(OperationState, u64)]) {
        for state in OperationState::ALL {
            let count = counts
                .iter()
                .find(|(counted, _)| *counted == state)
                .map_or(0, |(_, n)| *n);
            self.operations
                .in_state
                .get_or_create(&StateLabels {
                    state: state.as_api(),
                })
                .set(i64::try_from(count).unwrap_or(i64::MAX));
        }
    }

    pub fn count_worker_poll(&self) {
        self.operations.polls.inc();
    }

    pub fn count_operation_ended(&self, operation_type: &'static str, state: OperationState) {
        self.operations
            .ended
            .get_or_create(&EndedLabels {
                r#type: operation_type,
                state: state.as_api(),
            })
            .inc();
    }

    pub fn count_operation_claim(&self, won: bool) {
        self.operations
            .claims
            .get_or_create(&ClaimLabels {
                result: if won { "won" } else { "lost" },
            })
            .inc();
    }

    pub fn count_operation_lease_loss(&self) {
        self.operations.lease_losses.inc();
    }

    pub fn count_operation_abandoned(&self) {
        self.operations.abandoned.inc();
    }

    pub fn count_operation_retry(&self) {
        self.operations.retries.inc();
    }

    /// Counts one provider call: `call` is `charge` or `lookup`; `result` is `definite`
    /// or `unknown` for a charge, `found`, `not_found` or `error` for a lookup.
    pub fn count_provider_call(&self, call: &'static str, result: &'static str) {
        self.operations
            .provider_calls
            .get_or_create(&ProviderCallLabels { call, result })
            .inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capture_workers_figures_appear_in_the_text() {
        let metrics = Metrics::new();
        metrics.count_operation_ended("payments.capture.v1", OperationState::NeedsReview);
        metrics.count_operation_claim(true);
        metrics.count_operation_claim(false);
        metrics.count_operation_claim(false);
        metrics.count_operation_lease_loss();
        metrics.count_operation_abandoned();
        metrics.count_operation_retry();
        metrics.count_provider_call("lookup", "not_found");
        let text = metrics.render();
        for line in [
            r#"operations_ended_total{type="payments.capture.v1",state="needs_review"} 1"#,
            r#"operation_claims_total{result="won"} 1"#,
            r#"operation_claims_total{result="lost"} 2"#,
            "operation_lease_losses_total 1",
            "operations_abandoned_total 1",
            "operation_retries_total 1",
            r#"payment_provider_calls_total{call="lookup",result="not_found"} 1"#,
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }

    #[test]
    fn every_state_is_shown_with_zero_for_the_ones_no_operation_is_in() {
        let metrics = Metrics::new();
        metrics.set_operations_in_state(&[(OperationState::NeedsReview, 2)]);
        metrics.set_operations_in_state(&[(OperationState::Pending, 3)]);
        metrics.count_worker_poll();
        let text = metrics.render();
        for line in [
            r#"operations_in_state{state="pending"} 3"#,
            r#"operations_in_state{state="succeeded"} 0"#,
            r#"operations_in_state{state="declined"} 0"#,
            r#"operations_in_state{state="needs_review"} 0"#,
            r#"operations_in_state{state="cancelled"} 0"#,
            "operation_worker_polls_total 1",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }
}
