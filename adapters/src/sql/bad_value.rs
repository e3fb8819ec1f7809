//! Storage failures that are not the driver's: a value that does not fit its column, or
//! a row that breaks the domain's rules. They name the column, never a value.

use application::ports::StoreError;

#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("{0} out of range")]
pub(crate) struct OutOfRange(pub(crate) &'static str);

/// Corrupt: reported rather than used.
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

pub(crate) fn bad_row(table: &'static str, column: &'static str) -> StoreError {
    BadRow { table, column }.into()
}

/// Drops the conversion's own error, which may quote the value.
pub(crate) fn bad<E>(table: &'static str, column: &'static str) -> impl FnOnce(E) -> StoreError {
    move |_| bad_row(table, column)
}
