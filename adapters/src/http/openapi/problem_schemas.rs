//! The problem schemas of the OpenAPI document: [`Problem`] narrowed to the codes each
//! response can carry, taken from the very constructors the handlers call.

use std::borrow::Cow;

use application::admin::{AdminRefusal, KeyState};
use domain::{KeyError, OperationState};
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use crate::http::edge::problem::Problem;
use crate::http::edge::refusal_form::ProblemForm;

/// A [`Problem`] whose `status` and `code` are those of `problems` (one status).
pub(crate) fn narrowed(problems: &[Problem]) -> RefOr<Schema> {
    let mut statuses: Vec<u16> = problems.iter().map(|p| p.status).collect();
    statuses.dedup();
    let mut codes: Vec<&str> = problems.iter().map(|p| p.code).collect();
    codes.dedup();
    let mut types: Vec<&str> = problems.iter().map(|p| p.type_uri.as_str()).collect();
    types.dedup();
    let narrowing = ObjectBuilder::new()
        .property(
            "type",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(
                    "The page describing the problem type: `GET` it (`/problems/{code}`).",
                ))
                .enum_values(Some(types)),
        )
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

macro_rules! problem_schemas {
    ($($(#[$doc:meta])* $name:ident => [$($problem:expr),+ $(,)?])+) => {
        $(
            $(#[$doc])*
            #[derive(Debug)]
            pub(crate) struct $name;

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
        )+

        /// Every problem of these schemas: the routes' shared ones, for the problem types'
        /// pages.
        pub(crate) fn shared_problems() -> Vec<Problem> {
            vec![$($($problem),+),+]
        }
    };
}

problem_schemas! {
    IdempotentBadRequest => [
        Problem::for_key(KeyError::Missing),
        Problem::for_key(KeyError::Empty),
        Problem::invalid_body(&[]),
    ]
    Unauthorized => [Problem::unauthorized()]
    Forbidden => [Problem::forbidden()]
    NotFound => [Problem::not_found()]
    RequestTimeout => [Problem::request_timeout()]
    PayloadTooLarge => [Problem::payload_too_large()]
    UnsupportedMediaType => [Problem::unsupported_media_type()]
    KeyReused => [Problem::key_reused()]
    Internal => [Problem::internal()]
    IdempotentUnavailable => [Problem::outcome_unknown()]
    ReadUnavailable => [Problem::unavailable()]
    AdminBadQuery => [Problem::invalid_query(&[])]
    AdminBadBody => [Problem::invalid_body(&[])]
    AdminConflict => [
        AdminRefusal::OperationState(OperationState::NeedsReview).problem(),
        AdminRefusal::KeyRetentionPassed.problem(),
        AdminRefusal::Busy { retry_after_secs: 1 }.problem(),
        AdminRefusal::OrderNotActive.problem(),
        AdminRefusal::OperationConflict.problem(),
        AdminRefusal::UnknownKind.problem(),
    ]
    KeyConflict => [
        AdminRefusal::KeyState(KeyState::Processing).problem(),
        AdminRefusal::OperationUnfinished {
            operation: uuid::Uuid::nil(),
            state: OperationState::NeedsReview,
        }
        .problem(),
    ]
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
