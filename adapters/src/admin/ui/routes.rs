//! The on-call page's routes under `/admin` and what wraps them all: the security headers
//! on every response, a `404` page for anything unknown, the CSRF key and the public
//! origin the page's forms are checked against.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::middleware::from_fn;
use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};
use application::admin::AdminStore;
use application::ports::FlowHooks;

use super::csrf::CsrfKey;
use super::layout::not_found;
use super::public_origin::PublicOrigin;
use super::session::see_other;
use super::{act, audit, evict, headers, home, keys, operation, operations, sign_in};

/// The stylesheet, in the binary: the page needs no file beside it.
const STYLESHEET: &str = include_str!("admin.css");

/// Every route of the on-call page; the server adds them only with `ADMIN_UI=1`. Its
/// changes are accepted only from pages of `origin`.
pub fn routes<S: AdminStore + 'static, H: FlowHooks + 'static>(
    key: CsrfKey,
    origin: PublicOrigin,
) -> impl FnOnce(&mut ServiceConfig) {
    move |config| {
        config.service(
            web::scope("/admin")
                .app_data(Data::new(key))
                .app_data(Data::new(origin))
                .wrap(from_fn(headers::secure))
                .route("", web::get().to(|| async { see_other("/admin/") }))
                .route("/", web::get().to(home::page::<S, H>))
                .route("/static/admin.css", web::get().to(stylesheet))
                .route("/sign-in", web::get().to(sign_in::form))
                .route("/sign-in", web::post().to(sign_in::submit::<S, H>))
                .route("/sign-out", web::post().to(sign_in::sign_out::<S, H>))
                .route("/operations", web::get().to(operations::page::<S, H>))
                .route(
                    "/operations/{operation_id}",
                    web::get().to(operation::page::<S, H>),
                )
                .route(
                    "/operations/{operation_id}/{action}",
                    web::get().to(act::confirm::<S, H>),
                )
                .route(
                    "/operations/{operation_id}/{action}",
                    web::post().to(act::submit::<S, H>),
                )
                .route("/idempotency-keys", web::get().to(keys::page::<S, H>))
                .route(
                    "/idempotency-keys/evict",
                    web::get().to(evict::confirm::<S, H>),
                )
                .route(
                    "/idempotency-keys/evict",
                    web::post().to(evict::submit::<S, H>),
                )
                .route("/audit", web::get().to(audit::page::<S, H>))
                .default_service(web::to(unknown)),
        );
    }
}

async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/css; charset=utf-8"))
        .body(STYLESHEET)
}

async fn unknown(_request: HttpRequest) -> HttpResponse {
    not_found(None)
}
