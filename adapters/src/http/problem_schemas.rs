//! The problem schemas of the OpenAPI document: [`Problem`] narrowed to the codes each
//! response can carry, taken from the very constructors the handlers call.

use std::borrow::Cow;

use application::{FailureCause, Outcome, Rejection, UnknownCause};
use domain::KeyError;
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::problem::Problem;

/// The problem of `outcome`, if it is one.
fn of(outcome: &Outcome) -> Option<Problem> {
    Problem::for_outcome(outcome)
}

/// A [`Problem`] whose `status` and `code` are those of `problems` (one status).
fn narrowed(problems: &[Option<Problem>]) -> RefOr<Schema> {
    let problems: Vec<&Problem> = problems.iter().flatten().collect();
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
        Some(Problem::for_key(KeyError::Missing)),
        Some(Problem::for_key(KeyError::Empty)),
        Some(Problem::invalid_body(&[])),
    ]
}
problem_schema! {
    /// `401`: no valid bearer token.
    Unauthorized => [Some(Problem::unauthorized())]
}
problem_schema! {
    /// `403`: the token lacks the permission (also for a replay).
    Forbidden => [Some(Problem::forbidden())]
}
problem_schema! {
    /// `404`: no such order or operation in the caller's tenant.
    NotFound => [Some(Problem::not_found())]
}
problem_schema! {
    /// `409` of a capture: the key is still held by another request, or the order already
    /// has a pending or succeeded capture.
    CaptureConflict => [
        of(&Outcome::InProgress),
        of(&Outcome::Rejected(Rejection::PaymentExists)),
    ]
}
problem_schema! {
    /// `409` of a create: the key is still held by another request, or the
    /// `clientOrderRef` was used with another key.
    CreateConflict => [
        of(&Outcome::InProgress),
        of(&Outcome::Rejected(Rejection::ClientOrderRefConflict)),
    ]
}
problem_schema! {
    /// `413`: the body is over 16 KiB.
    PayloadTooLarge => [Some(Problem::payload_too_large())]
}
problem_schema! {
    /// `415`: the body is not `application/json`.
    UnsupportedMediaType => [Some(Problem::unsupported_media_type())]
}
problem_schema! {
    /// `422`: the key was used with another request.
    KeyReused => [of(&Outcome::KeyReused)]
}
problem_schema! {
    /// `500`: something unexpected; nothing was stored.
    Internal => [of(&Outcome::Failed(FailureCause::Aborted))]
}
problem_schema! {
    /// `503` of an idempotent `POST`: the outcome cannot be told now; retry with the same key.
    IdempotentUnavailable => [of(&Outcome::OutcomeUnknown(UnknownCause::DatabaseUnavailable))]
}
problem_schema! {
    /// `503` of a read: the database cannot be reached now.
    ReadUnavailable => [Some(Problem::unavailable())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_schema_lists_its_codes() {
        let json = serde_json::to_value(CreateConflict::schema()).unwrap();
        let narrowing = &json["allOf"][1]["properties"];
        assert_eq!(narrowing["status"]["enum"], serde_json::json!([409]));
        assert_eq!(
            narrowing["code"]["enum"],
            serde_json::json!(["request_in_progress", "client_order_ref_conflict"])
        );
        let json = serde_json::to_value(IdempotentBadRequest::schema()).unwrap();
        assert_eq!(
            json["allOf"][1]["properties"]["code"]["enum"],
            serde_json::json!([
                "idempotency_key_missing",
                "idempotency_key_invalid",
                "invalid_body"
            ])
        );
    }
}
