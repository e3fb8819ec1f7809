//! The alert rules (`deploy/prometheus/alerts.yml`) in a real Prometheus scraping real
//! processes: a capture that ends `needs_review` makes its alert's expression return a
//! series and the alert fire, and every metric a rule names is one the processes export.

use std::collections::BTreeSet;

use tests::{Controls, PrivatePrometheus};

use crate::support::{PATIENCE, Scenario};
use tests::eventually;

/// The rules Prometheus loaded, as (alert name, expression as it parsed it).
fn rules(prometheus: &PrivatePrometheus) -> Vec<(String, String)> {
    let data = prometheus.api("rules", &[]);
    data["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|group| group["rules"].as_array())
        .flatten()
        .map(|rule| {
            (
                rule["name"].as_str().unwrap_or_default().to_owned(),
                rule["query"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The metric names in `promql`: identifiers right before a `{`, a `[` or a `)`, outside
/// label matchers and strings (function names come before a `(`).
fn metric_names(promql: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let (mut word, mut in_braces, mut in_string) = (String::new(), false, false);
    for c in promql.chars() {
        match c {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '{' | '[' | ')' if !in_braces && !word.is_empty() => {
                names.insert(std::mem::take(&mut word));
            }
            _ if (c.is_ascii_alphanumeric() || c == '_' || c == ':') && !in_braces => {
                if !(word.is_empty() && c.is_ascii_digit()) {
                    word.push(c);
                }
            }
            _ => word.clear(),
        }
        match c {
            '{' if !in_string => in_braces = true,
            '}' if !in_string => in_braces = false,
            _ => {}
        }
    }
    names
}

#[test]
fn metric_names_are_found_in_the_rules_expressions() {
    let names = metric_names(
        r#"sum(rate(a_total{status="503",x="}"}[5m])) / max(b) > 0.05 or absent(c_total)"#,
    );
    assert_eq!(
        names,
        BTreeSet::from(["a_total".into(), "b".into(), "c_total".into()])
    );
}

#[tokio::test]
async fn a_capture_that_needs_review_fires_its_alert_in_a_real_prometheus() {
    let scenario = Scenario::new().await;
    scenario.provider.control(&Controls {
        fail_always: true,
        ..Controls::default()
    });
    let worker = scenario.serve_worker(None, &[("OPERATION_MAX_ATTEMPTS", "1")]);
    let prometheus = PrivatePrometheus::start(&[worker.base_url(), scenario.accepting.base_url()]);

    let rules = rules(&prometheus);
    assert_eq!(rules.len(), 6, "every rule loaded: {rules:?}");
    let needs_review = rules
        .iter()
        .find(|(name, _)| name == "OperationNeedsReview")
        .map(|(_, query)| query.clone())
        .expect("the needs_review rule");
    // Scraped, and quiet while nothing needs review.
    eventually(PATIENCE, || async {
        (!prometheus
            .query(r#"operations_in_state{state="needs_review"}"#)
            .is_empty())
        .then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("the gauge was never scraped:\n{}", prometheus.log()));
    assert_eq!(
        prometheus.query(&needs_review),
        Vec::<serde_json::Value>::new()
    );

    let accepted = scenario.accept("REF-1");
    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!(ended.state, "NEEDS_REVIEW");
    let series = eventually(PATIENCE, || async {
        Some(prometheus.query(&needs_review)).filter(|s| !s.is_empty())
    })
    .await
    .expect("the rule's expression returned a series once the capture needed review");
    assert_eq!(series[0]["value"][1], "1", "{series:?}");
    let firing = eventually(PATIENCE, || async {
        let alerts = prometheus.api("alerts", &[]);
        alerts["alerts"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|a| a["labels"]["alertname"] == "OperationNeedsReview" && a["state"] == "firing")
            .then_some(())
    })
    .await;
    assert!(firing.is_some(), "the alert fired");

    // Every metric a rule names exists for real in what the processes export.
    let names: BTreeSet<String> = rules.iter().flat_map(|(_, q)| metric_names(q)).collect();
    assert!(names.len() >= 6, "{names:?} from {rules:?}");
    for name in &names {
        let found = prometheus.query(&format!(r#"count({{__name__="{name}"}})"#));
        assert!(!found.is_empty(), "no process exports {name}");
    }

    drop(prometheus);
    drop(worker);
    scenario.provider.control(&Controls::default());
    scenario.finish().await;
}
