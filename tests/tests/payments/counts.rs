//! What every scenario ends with: the counts, each on its own, and the check of one
//! charge and at most one payment per operation.

use std::time::Duration;

use diesel::QueryableByName;
use diesel::sql_types::{Nullable, Text};
use tests::Counters;

use crate::support::Scenario;

/// What a scenario ends with, each counted on its own: rows in the database, calls and
/// charges at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Rows in `operations`.
    pub(crate) operations: i64,
    /// Of those, `SUCCEEDED`.
    pub(crate) succeeded: i64,
    /// Of those, `NEEDS_REVIEW`.
    pub(crate) needs_review: i64,
    /// Rows in `payments`.
    pub(crate) payments: i64,
    /// `POST /v1/charges` the provider received.
    pub(crate) charge_calls: u64,
    /// Distinct charges the provider made.
    pub(crate) charges: u64,
}

impl Counts {
    /// One operation, succeeded with one charge and one payment after `charge_calls`
    /// calls under its key.
    pub(crate) fn one_success(charge_calls: u64) -> Self {
        Self {
            operations: 1,
            succeeded: 1,
            needs_review: 0,
            payments: 1,
            charge_calls,
            charges: 1,
        }
    }
}

/// An operation's key and, once it succeeded, its payment's charge.
#[derive(Debug, QueryableByName)]
struct KeyAndCharge {
    #[diesel(sql_type = Text)]
    state: String,
    #[diesel(sql_type = Text)]
    downstream_key: String,
    #[diesel(sql_type = Nullable<Text>)]
    provider_charge_id: Option<String>,
}

impl Scenario {
    /// The counts now, each on its own.
    pub(crate) async fn counts(&self) -> Counts {
        let db = &self.db;
        let Counters {
            charge_calls,
            charges,
            ..
        } = self.provider.counters();
        Counts {
            operations: db.count("SELECT COUNT(*) AS n FROM operations").await,
            succeeded: db
                .count("SELECT COUNT(*) AS n FROM operations WHERE state = 'SUCCEEDED'")
                .await,
            needs_review: db
                .count("SELECT COUNT(*) AS n FROM operations WHERE state = 'NEEDS_REVIEW'")
                .await,
            payments: db.count("SELECT COUNT(*) AS n FROM payments").await,
            charge_calls,
            charges,
        }
    }

    /// The end of every scenario: the counts are `expected`, and whatever the counts, one
    /// charge and at most one payment per operation. That is: no operation has two
    /// payments, a payment exists exactly for each succeeded operation and names a charge
    /// no other payment names, and the provider holds one charge per operation that got
    /// a definite answer, under that operation's own key, the very charge its payment
    /// names; no charge under any other key. (The look-ups this makes come after the
    /// counts were taken.)
    pub(crate) async fn assert_counts(&self, expected: Counts) {
        let counts = self.counts().await;
        eprintln!("counts: {counts:?}");
        assert_eq!(counts, expected, "the counts ({})", self.db.context());
        let db = &self.db;
        let twice = db
            .count(
                "SELECT COUNT(*) AS n FROM (SELECT operation_id FROM payments \
                 GROUP BY operation_id HAVING COUNT(*) > 1) AS twice",
            )
            .await;
        assert_eq!(twice, 0, "operations with two payments");
        let unpaid = db
            .count(
                "SELECT COUNT(*) AS n FROM operations o LEFT JOIN payments p \
                 ON p.operation_id = o.id WHERE o.state = 'SUCCEEDED' AND p.id IS NULL",
            )
            .await;
        assert_eq!(unpaid, 0, "succeeded operations without their payment");
        let stray = db
            .count(
                "SELECT COUNT(*) AS n FROM payments p LEFT JOIN operations o \
                 ON o.id = p.operation_id WHERE o.state IS NULL OR o.state <> 'SUCCEEDED'",
            )
            .await;
        assert_eq!(stray, 0, "payments of operations that did not succeed");
        let shared = db
            .count("SELECT COUNT(*) - COUNT(DISTINCT provider_charge_id) AS n FROM payments")
            .await;
        assert_eq!(shared, 0, "payments naming a charge another payment names");

        // Every operation's key, asked of the provider.
        let operations: Vec<KeyAndCharge> = db
            .rows(
                "SELECT o.state, CAST(o.downstream_key AS CHAR) AS downstream_key, \
                 CAST(p.provider_charge_id AS CHAR) AS provider_charge_id \
                 FROM operations o LEFT JOIN payments p ON p.operation_id = o.id",
            )
            .await;
        let mut charged = 0;
        for operation in &operations {
            let found = lookup(self.provider.url(), &operation.downstream_key);
            if let Some(paid) = &operation.provider_charge_id {
                assert_eq!(
                    found.as_ref(),
                    Some(paid),
                    "the payment names the charge under the operation's key"
                );
            }
            if operation.state == "SUCCEEDED" || operation.state == "DECLINED" {
                assert!(found.is_some(), "an answered operation has its charge");
            }
            charged += u64::from(found.is_some());
        }
        assert_eq!(
            charged, counts.charges,
            "every charge at the provider is under an operation's key, one per key"
        );
    }
}

/// The id of the charge the provider holds under `key`, asked with its result query.
pub(crate) fn lookup(provider: &str, key: &str) -> Option<String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let mut response = agent
        .get(format!("{provider}/v1/charges?idempotency_key={key}"))
        .call()
        .unwrap();
    match response.status().as_u16() {
        404 => None,
        200 => {
            let body = response.body_mut().read_to_vec().unwrap();
            let charge: serde_json::Value = serde_json::from_slice(&body).unwrap();
            Some(charge["id"].as_str().unwrap().to_owned())
        }
        status => panic!("the provider's result query answered {status}"),
    }
}
