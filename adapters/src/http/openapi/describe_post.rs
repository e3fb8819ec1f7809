//! How the document describes an idempotent `POST`: what all share (the checks, the key,
//! the shared refusals, the replay) written once, around its [`PostDoc`] and refusals.

use std::collections::BTreeMap;

use application::{IdempotentOperation, Refusal};
use utoipa::IntoResponses;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{ObjectBuilder, Ref, Required, Type};
use utoipa::{PartialSchema, ToSchema};

use super::problem_schemas::narrowed;
use super::responses::{AuthRefusals, IdempotentRefusals};
use super::schemas::Replayed;
use super::{BEARER, Described};
use crate::http::edge::problem::{PROBLEM_JSON, Problem};
use crate::http::edge::refusal_form::ProblemForm;
use crate::http::route::{PathParameter, PostRoute};

pub(crate) fn describe_post<Op: PostRoute>() -> Described {
    let doc = Op::describe();
    let mut schemas = Vec::new();
    schema_of::<Op::Request>(&mut schemas);
    schema_of::<Op::Answer>(&mut schemas);
    schema_of::<Replayed>(&mut schemas);
    let mut operation = OperationBuilder::new()
        .tag(doc.tag)
        .operation_id(Some(doc.operation_id))
        .summary(Some(doc.summary))
        .description(Some(description::<Op>(doc.path_parameter, doc.description)))
        .security(SecurityRequirement::new(BEARER, [Op::PERMISSION]))
        .request_body(Some(
            RequestBodyBuilder::new()
                .description(Some(
                    "`application/json` (a `charset=utf-8` parameter is allowed; anything \
                     else, or any `Content-Encoding` but `identity`, is `415`), at most \
                     16 KiB (`413`), arriving within the body deadline (`408`). Exactly these \
                     members; each violation is listed in the `400 invalid_body` problem's \
                     `errors`.",
                ))
                .required(Some(Required::True))
                .content(
                    crate::http::edge::respond::JSON,
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name(Op::Request::name())))
                        .example(Some(doc.request_example.clone()))
                        .build(),
                )
                .build(),
        ));
    if let Some(parameter) = doc.path_parameter {
        operation = operation.parameter(path_parameter(parameter));
    }
    operation = operation.parameter(idempotency_key());
    for (status, response) in AuthRefusals::responses()
        .into_iter()
        .chain(IdempotentRefusals::responses())
    {
        operation = operation.response(status, response);
    }
    let mut success = ResponseBuilder::new()
        .description(format!(
            "{}; or, with `Idempotent-Replayed: true`, the stored answer of the first \
             request with this key, byte for byte.",
            doc.answer
        ))
        .content(
            crate::http::edge::respond::JSON,
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(Op::Answer::name())))
                .example(doc.answer_example.clone())
                .build(),
        );
    if let Some(location) = doc.location {
        success = success.header(
            "Location",
            HeaderBuilder::new()
                .schema(ObjectBuilder::new().schema_type(Type::String))
                .description(Some(location))
                .build(),
        );
    }
    success = success.header(
        "Idempotent-Replayed",
        HeaderBuilder::new()
            .schema(Ref::from_schema_name(Replayed::name()))
            .description(Some("`true` on a replay; absent on the first answer."))
            .build(),
    );
    operation = operation.response(doc.status.to_string(), success.build());
    for (status, problems) in own_problems::<Op>(doc.path_parameter.is_some()) {
        let name = format!("{}{status}", pascal(doc.operation_id));
        schemas.push((name.clone(), narrowed(&problems)));
        operation = operation.response(status.to_string(), problem_response(&name, &problems));
    }
    Described {
        path: doc.path,
        item: PathItem::new(HttpMethod::Post, operation.build()),
        schemas,
    }
}

fn description<Op: PostRoute>(parameter: Option<PathParameter>, own: &str) -> String {
    let path_check = parameter.map_or(String::new(), |p| {
        format!(", the path's `{}` (404)", p.name)
    });
    format!(
        "Checks run in this order, and a refused request stores nothing: authentication \
         (401), permission `{permission}` (403), `Idempotency-Key` (400), media type (415), \
         size (413), the body's arrival (408), body (400 `invalid_body`){path_check}, then the idempotent execution. \
         {own} The key is scoped to the token's tenant and actor and to this operation \
         (`{name}`). A retry with the same key and the same values (member order and \
         whitespace do not matter) gets the stored answer again, byte for byte, with \
         `Idempotent-Replayed: true`, provided the token grants `{permission}` now.",
        permission = Op::PERMISSION,
        name = Op::NAME,
    )
}

/// Besides the shared problems: a key still held (`409`), its own refusals, and `404` for a
/// path id that names nothing.
fn own_problems<Op: IdempotentOperation<Refusal: ProblemForm>>(
    has_path_id: bool,
) -> BTreeMap<u16, Vec<Problem>> {
    let mut by_status: BTreeMap<u16, Vec<Problem>> = BTreeMap::new();
    let refusals = Op::Refusal::ALL.iter().map(ProblemForm::problem);
    let not_found = has_path_id.then(Problem::not_found);
    for problem in std::iter::once(Problem::in_progress())
        .chain(refusals)
        .chain(not_found)
    {
        let same = by_status.entry(problem.status).or_default();
        if !same.iter().any(|known| known.code == problem.code) {
            same.push(problem);
        }
    }
    by_status
}

fn problem_response(schema: &str, problems: &[Problem]) -> utoipa::openapi::Response {
    let description = problems
        .iter()
        .map(|problem| format!("`{}`: {}", problem.code, problem.detail))
        .collect::<Vec<_>>()
        .join(" ");
    let mut response = ResponseBuilder::new().description(description).content(
        PROBLEM_JSON,
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(schema)))
            .build(),
    );
    if problems.iter().any(|problem| problem.retry_after.is_some()) {
        response = response.header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(u32::schema())
                .description(Some(
                    "Seconds to wait; sent with `request_in_progress` only.",
                ))
                .build(),
        );
    }
    response.build()
}

fn idempotency_key() -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name("Idempotency-Key")
        .parameter_in(ParameterIn::Header)
        .required(Required::True)
        .description(Some(
            "Exactly one header field: 1 to 128 characters of `A-Z a-z 0-9 - _`, or the same \
             value as an RFC 8941 string (`\"order-42\"`), which names the same key. Nothing \
             is trimmed (beyond HTTP's own whitespace), lower-cased or truncated. Missing: \
             `400 idempotency_key_missing`; empty, too long, other characters, two fields or \
             a list: `400 idempotency_key_invalid`.",
        ))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some("^(?:[A-Za-z0-9_-]{1,128}|\"[A-Za-z0-9_-]{1,128}\")$")),
        ))
        .example(Some("order-42".into()))
        .build()
}

pub(super) fn path_parameter(parameter: PathParameter) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(parameter.name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(parameter.description))
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .example(Some(parameter.example.into()))
        .build()
}

pub(crate) fn schema_of<T: ToSchema>(
    schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::Schema>)>,
) {
    schemas.push((T::name().into_owned(), T::schema()));
    T::schemas(schemas);
}

/// `createOrder` as `CreateOrder`.
fn pascal(operation_id: &str) -> String {
    let mut chars = operation_id.chars();
    chars.next().map_or(String::new(), |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}
