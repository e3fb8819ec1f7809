//! The answers an operation's step stores with its record: their status, content type and
//! `Location`, fixed here once. A refusal's form is the edge's, not this.

use domain::{OrderId, StoredResponse};
use uuid::Uuid;

use super::operation::{Refusal, StepError};

/// The one content type of a stored success.
pub const JSON: &str = "application/json";

/// What the step did, as the stored response says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// `201`: made, and to be found at the location.
    Created(Location),
    /// `202`: accepted, and followed at the location.
    Accepted(Location),
    /// `200`: done; the body says what now is.
    Done,
}

/// Where a resource of this API is read (`docs/http-api.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Order(OrderId),
    Operation(Uuid),
}

impl Location {
    #[must_use]
    pub fn path(self) -> String {
        match self {
            Self::Order(id) => format!("/api/orders/{id}"),
            Self::Operation(id) => format!("/api/operations/{}", id.hyphenated()),
        }
    }
}

/// The stored JSON answer; a part that does not fit its column is `Internal`.
///
/// # Errors
/// [`StepError::Internal`] when the answer cannot be stored.
pub fn answer<R: Refusal>(answer: Answer, body: Vec<u8>) -> Result<StoredResponse, StepError<R>> {
    let (status, location) = match answer {
        Answer::Created(location) => (201, Some(location.path())),
        Answer::Accepted(location) => (202, Some(location.path())),
        Answer::Done => (200, None),
    };
    StoredResponse::new(status, JSON.to_owned(), location, body)
        .map_err(|error| StepError::Internal(error.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_read_under_their_decimal_or_hyphenated_ids() {
        assert_eq!(Location::Order(OrderId::new(42)).path(), "/api/orders/42");
        assert_eq!(
            Location::Operation(Uuid::from_u128(1)).path(),
            "/api/operations/00000000-0000-0000-0000-000000000001"
        );
    }
}
