//! Creates with a share of conflicting members: what one refused member costs the others
//! of its batch (`docs/storage.md#batched-operations`).

use std::collections::HashSet;

use crate::ceiling::Work;
use crate::load::Request;
use crate::report::{self, Scenario};
use crate::scenarios::Bench;

/// One request in this many reuses the reference its client's previous order took.
const ONE_IN: usize = 10;
const CONCURRENCY: usize = 32;

impl Bench {
    /// Creates at 32 clients where one request in ten names a reference its client's
    /// previous order took, under a new key: that one is refused `409
    /// client_order_ref_conflict`, and the batch it arrives in should answer every other
    /// member as if it were not there. Set against the create ceiling: its figure counts
    /// the orders made, so the refused tenth bounds it below the create scenario's.
    pub(crate) fn conflicting(&self) -> Scenario {
        let (run, cost) = self.load(CONCURRENCY, self.duration, |w, i| {
            let key = format!("conflicting-{w}-{i}");
            if i % ONE_IN == ONE_IN - 1 {
                Request::create_taken(key, &format!("conflicting-{w}-{}", i - 1))
            } else {
                Request::create(key)
            }
        });
        let made = self.orders("conflicting-");
        let keys = run
            .samples
            .iter()
            .filter(|s| s.status == 201)
            .map(|s| s.key.as_str())
            .collect::<HashSet<_>>()
            .len();
        let roof = self.ceiling("ceil-conflicting", Work::Create, CONCURRENCY, Vec::new());
        report::scenario(
            "conflicting",
            CONCURRENCY,
            &run,
            keys,
            made,
            cost,
            Some(roof),
        )
    }
}
