//! What every page but the sign-in form begins with, written once as an extractor: the
//! operator's session (else the way to the sign-in form), the app's state and the CSRF
//! key the page's forms are made with.

use actix_web::dev::Payload;
use actix_web::error::InternalError;
use actix_web::web::Data;
use actix_web::{FromRequest, HttpRequest, HttpResponse};
use application::admin::AdminStore;
use application::ports::{FlowHooks, UnitOfWork};
use futures_util::future::LocalBoxFuture;

use super::csrf::CsrfKey;
use super::session::{Session, session};
use crate::http::routes::state::AppState;

/// A signed-in operator's request.
pub(super) struct Signed<S: UnitOfWork, H> {
    pub(super) session: Session,
    pub(super) state: Data<AppState<S, H>>,
    pub(super) key: Data<CsrfKey>,
}

impl<S: UnitOfWork, H> Signed<S, H> {
    /// What a page draws its frame and forms with.
    pub(super) fn shown(&self) -> (&Session, &CsrfKey) {
        (&self.session, self.key.get_ref())
    }
}

/// The routes register both as app data; missing, it is a wiring bug, answered `500`.
#[derive(Debug, thiserror::Error)]
#[error("the admin page's state is not registered")]
struct NotWired;

impl<S: AdminStore + 'static, H: FlowHooks + 'static> FromRequest for Signed<S, H> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            let state = request.app_data::<Data<AppState<S, H>>>().cloned();
            let key = request.app_data::<Data<CsrfKey>>().cloned();
            let (Some(state), Some(key)) = (state, key) else {
                return Err(actix_web::error::ErrorInternalServerError(NotWired));
            };
            match session(&request, &state.keys).await {
                Ok(session) => Ok(Self {
                    session,
                    state,
                    key,
                }),
                Err(to_sign_in) => Err(signed_out(to_sign_in)),
            }
        })
    }
}

/// The way to the sign-in form, as the extractor's refusal: answered as it is.
fn signed_out(to_sign_in: HttpResponse) -> actix_web::Error {
    InternalError::from_response("not signed in", to_sign_in).into()
}
