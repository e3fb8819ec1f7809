//! A kind's stored JSON objects, checked as a row is read.

use application::leased::Members;
use application::ports::StoreError;

use crate::sql::bad_value::bad_row;

/// `column` of an `operations` row, which must hold a JSON object.
pub(crate) fn stored_members(bytes: &[u8], column: &'static str) -> Result<Members, StoreError> {
    Members::parse(bytes).map_err(|_| bad_row("operations", column))
}
