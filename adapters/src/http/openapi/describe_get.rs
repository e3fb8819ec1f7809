//! How the document describes a read: the shared refusals written once, around its [`GetDoc`].

use utoipa::IntoResponses;
use utoipa::openapi::Ref;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::SecurityRequirement;
use utoipa::{PartialSchema, ToSchema};

use super::describe_post::{path_parameter, schema_of};
use super::responses::{AuthRefusals, ReadRefusals};
use super::{BEARER, Described};
use crate::http::route::GetRoute;

pub(crate) fn describe_get<R: GetRoute>() -> Described {
    let doc = R::describe();
    let mut schemas = Vec::new();
    schema_of::<R::Answer>(&mut schemas);
    let mut answer = ResponseBuilder::new().description(doc.answer).content(
        crate::http::edge::respond::JSON,
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(R::Answer::name())))
            .build(),
    );
    if let Some(when) = doc.poll_again {
        answer = answer.header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(u32::schema())
                .description(Some(when))
                .build(),
        );
    }
    let mut operation = OperationBuilder::new()
        .tag(doc.tag)
        .operation_id(Some(doc.operation_id))
        .summary(Some(doc.summary))
        .description(Some(format!(
            "Any actor of the tenant whose token grants `{}`. {}",
            R::PERMISSION,
            doc.description
        )))
        .security(SecurityRequirement::new(BEARER, [R::PERMISSION]))
        .parameter(path_parameter(doc.id))
        .response("200", answer.build());
    for (status, response) in AuthRefusals::responses()
        .into_iter()
        .chain(ReadRefusals::responses())
    {
        operation = operation.response(status, response);
    }
    Described {
        path: doc.path,
        item: PathItem::new(HttpMethod::Get, operation.build()),
        schemas,
    }
}
