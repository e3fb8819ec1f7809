//! One figure over several processes: what a scenario asserts about a whole fleet.

use crate::Api;

/// The labelled series `name{labels}` (as [`Api::labelled_metric`] reads it) summed over
/// the processes at `base_urls`; a process without the series counts nothing.
#[must_use]
pub fn summed_metric<'a>(
    base_urls: impl IntoIterator<Item = &'a str>,
    name: &str,
    labels: &str,
) -> f64 {
    base_urls
        .into_iter()
        .filter_map(|base_url| Api::new(base_url).labelled_metric(name, labels))
        .sum()
}
