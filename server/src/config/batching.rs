//! Batched creates' bounds (`docs/storage.md#batched-operations`).

use application::BatchSettings;

use crate::config::{ConfigError, Lookup, integer};

/// `BATCH_MAX_SIZE` (default 16; `1` turns batching off) and `BATCH_IN_FLIGHT` (2): the
/// most requests one batch takes, and the most batches of one operation in the database at
/// once, per process.
pub(crate) fn batching(lookup: Lookup<'_>) -> Result<Option<BatchSettings>, ConfigError> {
    let defaults = BatchSettings::default();
    let size = integer(
        lookup,
        "BATCH_MAX_SIZE",
        1..=256,
        defaults.max_members as u64,
    )?;
    let in_flight = integer(
        lookup,
        "BATCH_IN_FLIGHT",
        1..=64,
        defaults.max_in_flight as u64,
    )?;
    Ok((size > 1).then(|| BatchSettings {
        max_members: usize::try_from(size).unwrap_or(defaults.max_members),
        max_in_flight: usize::try_from(in_flight).unwrap_or(defaults.max_in_flight),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_vars;

    #[test]
    fn on_by_default_with_the_documented_bounds_and_off_with_a_size_of_one() {
        assert_eq!(
            parse_vars(&[], batching).unwrap(),
            Some(BatchSettings::default())
        );
        assert_eq!(
            parse_vars(&[("BATCH_MAX_SIZE", "1")], batching).unwrap(),
            None
        );
        assert_eq!(
            parse_vars(
                &[("BATCH_MAX_SIZE", "8"), ("BATCH_IN_FLIGHT", "2")],
                batching
            )
            .unwrap(),
            Some(BatchSettings {
                max_members: 8,
                max_in_flight: 2
            })
        );
        assert!(parse_vars(&[("BATCH_MAX_SIZE", "0")], batching).is_err());
        assert!(parse_vars(&[("BATCH_IN_FLIGHT", "65")], batching).is_err());
    }
}
