//! What the OpenAPI document says beyond the routes' descriptions: the bearer security
//! scheme, and the `x-request-id` header on every response.

use utoipa::Modify;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ObjectBuilder, SchemaFormat, Type};

use super::BEARER;
use crate::http::edge::request_context::REQUEST_ID;

#[derive(Debug)]
pub(super) struct Additions;

impl Modify for Additions {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "A JWT signed HS256 with the server's `AUTH_JWT_SECRET`, or RS256, PS256, \
                         ES256 or EdDSA by the identity provider whose key set the server is \
                         given (then also `iss` and `aud`, and the tenant claim it names). Claims: `sub` \
                         the actor id (decimal string of a positive 64-bit integer), `tid` the \
                         tenant id (positive JSON number), `scope` space-separated permissions \
                         (each route names the one it needs under `security`), `exp` required \
                         (30 s of leeway). \
                         Tenant and actor come only from the verified token.",
                    ))
                    .build(),
            ),
        );
        let request_id = HeaderBuilder::new()
            .schema(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::Custom("uuid".to_owned()))),
            )
            .description(Some(
                "Names this request in the service's logs; quote it in a support request.",
            ))
            .build();
        for item in openapi.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.options,
                &mut item.head,
                &mut item.patch,
                &mut item.trace,
            ];
            for operation in operations.into_iter().flatten() {
                for response in operation.responses.responses.values_mut() {
                    if let utoipa::openapi::RefOr::T(response) = response {
                        response
                            .headers
                            .insert(REQUEST_ID.to_owned(), request_id.clone());
                    }
                }
            }
        }
    }
}
