//! The domain's states as the documents name them: serialized by their API name and
//! described with every name the domain has, taken from its own list, so the API document
//! cannot miss one.

use std::borrow::Cow;

use domain::{AttemptError, OperationState, OrderStatus};
use serde::{Serialize, Serializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

macro_rules! api_name {
    ($(#[$doc:meta])* $name:ident($domain:ty), $schema:literal, $all:expr, $text:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name(pub $domain);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($text(self.0))
            }
        }

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some($all.into_iter().map($text)))
                    .into()
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($schema)
            }
        }

        impl From<$domain> for $name {
            fn from(value: $domain) -> Self {
                Self(value)
            }
        }
    };
}

api_name!(
    /// `active` until the order is cancelled, then `cancelled`.
    OrderStatusName(OrderStatus),
    "OrderStatus",
    OrderStatus::ALL,
    OrderStatus::as_api
);

api_name!(
    /// Where an operation stands (`docs/long-running-operations.md#states`).
    StateName(OperationState),
    "OperationState",
    OperationState::ALL,
    OperationState::as_api
);

api_name!(
    /// Why the last attempt got no definite answer, or why none was made.
    ErrorClassName(AttemptError),
    "LastError",
    AttemptError::ALL,
    AttemptError::as_str
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_serialized_as_the_api_spells_it_and_described_with_every_name() {
        assert_eq!(
            serde_json::to_string(&StateName(OperationState::NeedsReview)).unwrap(),
            r#""needs_review""#
        );
        let schema = serde_json::to_value(ErrorClassName::schema()).unwrap();
        assert_eq!(
            schema["enum"].as_array().unwrap().len(),
            AttemptError::ALL.len()
        );
    }
}
