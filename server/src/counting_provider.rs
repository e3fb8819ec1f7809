//! Counts the payment provider's calls by answer into the metrics, around any provider,
//! so that the application's worker stays unaware of metrics.

use std::sync::Arc;

use adapters::http::Metrics;
use application::ports::{Charge, PaymentProvider, ProviderAnswer};
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

    async fn lookup(&self, key: &str) -> Result<Option<Charge>, String> {
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

/// The `result` label of a lookup.
fn lookup_result(found: &Result<Option<Charge>, String>) -> &'static str {
    match found {
        Ok(Some(_)) => "found",
        Ok(None) => "not_found",
        Err(_) => "error",
    }
}

#[cfg(test)]
mod tests {
    use domain::{Amount, Currency, OrderId, PaymentCapture};

    use super::*;

    /// Answers every charge with `charge` and every lookup with `lookup`.
    #[derive(Debug)]
    struct Scripted {
        charge: ProviderAnswer,
        lookup: Result<Option<Charge>, String>,
    }

    impl PaymentProvider for Scripted {
        async fn charge(&self, _: &str, _: &PaymentCapture, _: &str) -> ProviderAnswer {
            self.charge.clone()
        }

        async fn lookup(&self, _: &str) -> Result<Option<Charge>, String> {
            self.lookup.clone()
        }
    }

    fn capture() -> PaymentCapture {
        PaymentCapture {
            order: OrderId::new(42),
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        }
    }

    #[tokio::test]
    async fn each_call_is_counted_by_its_answer_and_passed_through() {
        let charge = Charge {
            id: "ch_1".to_owned(),
            succeeded: true,
        };
        let metrics = Arc::new(Metrics::new());
        let provider = CountingProvider::new(
            Scripted {
                charge: ProviderAnswer::Unknown("timeout".to_owned()),
                lookup: Ok(Some(charge.clone())),
            },
            Arc::clone(&metrics),
        );
        let capture = capture();
        assert_eq!(
            provider.charge("k", &capture, "r").await,
            ProviderAnswer::Unknown("timeout".to_owned())
        );
        assert_eq!(
            provider.charge("k", &capture, "r").await,
            ProviderAnswer::Unknown("timeout".to_owned())
        );
        assert_eq!(provider.lookup("k").await, Ok(Some(charge.clone())));

        let definite = CountingProvider::new(
            Scripted {
                charge: ProviderAnswer::Definite(charge),
                lookup: Err("reset".to_owned()),
            },
            Arc::clone(&metrics),
        );
        assert!(matches!(
            definite.charge("k", &capture, "r").await,
            ProviderAnswer::Definite(_)
        ));
        assert_eq!(definite.lookup("k").await, Err("reset".to_owned()));

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
        assert_eq!(lookup_result(&Err(String::new())), "error");
    }
}
