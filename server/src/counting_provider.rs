//! Counts the payment provider's calls by answer into the metrics, around any provider,
//! so that the application's worker stays unaware of metrics.

use std::sync::Arc;

use adapters::metrics::Metrics;
use application::ports::{Charge, NoAnswer, PaymentProvider, ProviderAnswer};
use domain::PaymentCapture;

/// `inner`, with every call counted in `payment_provider_calls_total`.
#[derive(Debug, Clone)]
pub(crate) struct CountingProvider<P> {
    inner: P,
    metrics: Arc<Metrics>,
}

impl<P> CountingProvider<P> {
    pub(crate) fn new(inner: P, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }
}

impl<P: PaymentProvider> PaymentProvider for CountingProvider<P> {
    async fn charge(&self, key: &str, input: &PaymentCapture, reference: &str) -> ProviderAnswer {
        let answer = self.inner.charge(key, input, reference).await;
        self.metrics
            .count_provider_call("charge", charge_result(&answer));
        answer
    }

    async fn lookup(&self, key: &str) -> Result<Option<Charge>, NoAnswer> {
        let found = self.inner.lookup(key).await;
        self.metrics
            .count_provider_call("lookup", lookup_result(&found));
        found
    }
}

/// The `result` label of a charge: whether its answer can be trusted.
fn charge_result(answer: &ProviderAnswer) -> &'static str {
    match answer {
        ProviderAnswer::Definite(_) => "definite",
        ProviderAnswer::Unknown(_) => "unknown",
    }
}

fn lookup_result(found: &Result<Option<Charge>, NoAnswer>) -> &'static str {
    match found {
        Ok(Some(_)) => "found",
        Ok(None) => "not_found",
        Err(_) => "error",
    }
}

#[cfg(test)]
mod tests {
    use domain::{Amount, AttemptError, Currency, OrderId, PaymentCapture};

    use super::*;

    /// Answers every charge with what `charge` makes and every lookup with `lookup`'s.
    #[derive(Debug)]
    struct Scripted {
        charge: fn() -> ProviderAnswer,
        lookup: fn() -> Result<Option<Charge>, NoAnswer>,
    }

    impl PaymentProvider for Scripted {
        async fn charge(&self, _: &str, _: &PaymentCapture, _: &str) -> ProviderAnswer {
            (self.charge)()
        }

        async fn lookup(&self, _: &str) -> Result<Option<Charge>, NoAnswer> {
            (self.lookup)()
        }
    }

    fn capture() -> PaymentCapture {
        PaymentCapture {
            order: OrderId::new(42),
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        }
    }

    fn charged() -> Charge {
        Charge {
            id: "ch_1".to_owned(),
            succeeded: true,
        }
    }

    #[tokio::test]
    async fn each_call_is_counted_by_its_answer_and_passed_through() {
        let metrics = Arc::new(Metrics::new());
        let provider = CountingProvider::new(
            Scripted {
                charge: || ProviderAnswer::Unknown(NoAnswer::new(AttemptError::Timeout, "timeout")),
                lookup: || Ok(Some(charged())),
            },
            Arc::clone(&metrics),
        );
        let capture = capture();
        for _ in 0..2 {
            assert!(matches!(
                provider.charge("k", &capture, "r").await,
                ProviderAnswer::Unknown(reason) if reason.cause.to_string() == "timeout"
            ));
        }
        assert!(matches!(provider.lookup("k").await, Ok(Some(found)) if found == charged()));

        let definite = CountingProvider::new(
            Scripted {
                charge: || ProviderAnswer::Definite(charged()),
                lookup: || Err(NoAnswer::new(AttemptError::Transport, "reset")),
            },
            Arc::clone(&metrics),
        );
        assert!(matches!(
            definite.charge("k", &capture, "r").await,
            ProviderAnswer::Definite(_)
        ));
        assert!(matches!(
            definite.lookup("k").await,
            Err(reason) if reason.cause.to_string() == "reset"
        ));

        let text = metrics.render();
        for line in [
            r#"payment_provider_calls_total{call="charge",result="unknown"} 2"#,
            r#"payment_provider_calls_total{call="charge",result="definite"} 1"#,
            r#"payment_provider_calls_total{call="lookup",result="found"} 1"#,
            r#"payment_provider_calls_total{call="lookup",result="error"} 1"#,
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
        assert!(!text.contains(r#"result="not_found""#), "{text}");
    }

    #[test]
    fn a_definite_none_is_told_apart_from_an_error() {
        assert_eq!(lookup_result(&Ok(None)), "not_found");
        assert_eq!(
            lookup_result(&Err(NoAnswer::new(AttemptError::Transport, "reset"))),
            "error"
        );
    }
}
