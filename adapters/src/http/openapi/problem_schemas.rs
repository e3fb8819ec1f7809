//! The problem schemas of the OpenAPI document: [`Problem`] narrowed to the codes each
//! response can carry, taken from the very constructors the handlers call.

use std::borrow::Cow;

use domain::KeyError;
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use crate::http::edge::problem::Problem;

/// A [`Problem`] whose `status` and `code` are those of `problems` (one status).
pub(crate) fn narrowed(problems: &[Problem]) -> RefOr<Schema> {
    let mut statuses: Vec<u16> = problems.iter().map(|p| p.status).collect();
    statuses.dedup();
    let mut codes: Vec<&str> = problems.iter().map(|p| p.code).collect();
    codes.dedup();
    let narrowing = ObjectBuilder::new()
        .property(
            "status",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .enum_values(Some(statuses)),
        )
        .property(
            "code",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(codes)),
        );
    AllOfBuilder::new()
        .item(Ref::from_schema_name(Problem::name()))
        .item(narrowing)
        .into()
}

/// One response's problem schema: [`Problem`] with the codes that response can carry.
macro_rules! problem_schema {
    ($(#[$doc:meta])* $name:ident => [$($problem:expr),+ $(,)?]) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub(super) struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                narrowed(&[$($problem),+])
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }

            fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                schemas.push((Problem::name().into_owned(), Problem::schema()));
                <Problem as ToSchema>::schemas(schemas);
            }
        }
    };
}

problem_schema! {
    /// `400` of an idempotent `POST`: the key is missing or invalid, or the body is (see
    /// `errors`).
    IdempotentBadRequest => [
        Problem::for_key(KeyError::Missing),
        Problem::for_key(KeyError::Empty),
        Problem::invalid_body(&[]),
    ]
}
problem_schema! {
    /// `401`: no valid bearer token.
    Unauthorized => [Problem::unauthorized()]
}
problem_schema! {
    /// `403`: the token lacks the permission (also for a replay).
    Forbidden => [Problem::forbidden()]
}
problem_schema! {
    /// `404`: nothing by that id in the caller's tenant.
    NotFound => [Problem::not_found()]
}
problem_schema! {
    /// `413`: the body is over 16 KiB.
    PayloadTooLarge => [Problem::payload_too_large()]
}
problem_schema! {
    /// `415`: the body is not `application/json`.
    UnsupportedMediaType => [Problem::unsupported_media_type()]
}
problem_schema! {
    /// `422`: the key was used with another request.
    KeyReused => [Problem::key_reused()]
}
problem_schema! {
    /// `500`: something unexpected; nothing was stored.
    Internal => [Problem::internal()]
}
problem_schema! {
    /// `503` of an idempotent `POST`: the outcome cannot be told now; retry with the same key.
    IdempotentUnavailable => [Problem::outcome_unknown()]
}
problem_schema! {
    /// `503` of a read: the database cannot be reached now.
    ReadUnavailable => [Problem::unavailable()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_schema_lists_its_codes() {
        let json = serde_json::to_value(IdempotentBadRequest::schema()).unwrap();
        let narrowing = &json["allOf"][1]["properties"];
        assert_eq!(narrowing["status"]["enum"], serde_json::json!([400]));
        assert_eq!(
            narrowing["code"]["enum"],
            serde_json::json!([
                "idempotency_key_missing",
                "idempotency_key_invalid",
                "invalid_body"
            ])
        );
    }
}
