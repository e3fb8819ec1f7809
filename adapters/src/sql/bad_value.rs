//! The causes of storage failures that are not the driver's: a value that does not fit
//! its column, or a row that breaks the domain's rules. They name the column, never a
//! value.

use application::ports::StoreError;

/// A value out of the range its column holds.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("{0} out of range")]
pub(crate) struct OutOfRange(pub(crate) &'static str);

/// A stored row that breaks the domain's rules: corrupt, and said so rather than used.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("{table} row: bad {column}")]
pub(crate) struct BadRow {
    pub(crate) table: &'static str,
    pub(crate) column: &'static str,
}

impl From<OutOfRange> for StoreError {
    fn from(error: OutOfRange) -> Self {
        Self::Other(Box::new(error))
    }
}

impl From<BadRow> for StoreError {
    fn from(error: BadRow) -> Self {
        Self::Other(Box::new(error))
    }
}

/// The error of a bad `column` of a `table` row.
pub(crate) fn bad_row(table: &'static str, column: &'static str) -> StoreError {
    BadRow { table, column }.into()
}

/// [`bad_row`] for `map_err`, whatever the conversion's own error.
pub(crate) fn bad<E>(table: &'static str, column: &'static str) -> impl FnOnce(E) -> StoreError {
    move |_| bad_row(table, column)
}
