//! What every page but the sign-in form begins with, written once as extractors: the
//! operator's session (else the way to the sign-in form), the app's state and the CSRF
//! key the page's forms are made with; for a confirmation page, also `admin:write`; for a
//! change's `POST`, also every check it passes and its form body.

use actix_web::dev::Payload;
use actix_web::error::InternalError;
use actix_web::web::{self, Bytes, Data};
use actix_web::{FromRequest, HttpRequest, HttpResponse};
use application::admin::AdminStore;
use application::ports::{FlowHooks, UnitOfWork};
use futures_util::future::LocalBoxFuture;

use super::change::{checked, unless_writer};
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

/// The state or the CSRF key not registered as app data.
#[derive(Debug, thiserror::Error)]
#[error("the admin page's state is not registered")]
struct NotWired;

impl<S: AdminStore + 'static, H: FlowHooks + 'static> FromRequest for Signed<S, H> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            let (state, key) = wired::<S, H>(&request)?;
            match session(&request, &state.keys).await {
                Ok(session) => Ok(Self {
                    session,
                    state,
                    key,
                }),
                Err(to_sign_in) => Err(answered_as_is(to_sign_in)),
            }
        })
    }
}

/// A signed-in operator whose token carries `admin:write`: what every confirmation page
/// takes, so a reader gets the `403` page before anything is read or drawn.
pub(super) struct Writer<S: UnitOfWork, H>(pub(super) Signed<S, H>);

impl<S: AdminStore + 'static, H: FlowHooks + 'static> FromRequest for Writer<S, H> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let signed = Signed::<S, H>::from_request(request, payload);
        Box::pin(async move {
            let signed = signed.await?;
            match unless_writer(&signed.session) {
                Some(reader) => Err(answered_as_is(reader)),
                None => Ok(Self(signed)),
            }
        })
    }
}

/// A change's `POST` that passed every check the page's changes share (origin, session,
/// CSRF token, `admin:write`), with its form body; else the refusal, answered as it is.
pub(super) struct SignedChange<S: UnitOfWork, H> {
    pub(super) signed: Signed<S, H>,
    pub(super) body: Bytes,
}

impl<S: AdminStore + 'static, H: FlowHooks + 'static> FromRequest for SignedChange<S, H> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        let payload = web::Payload::from_request(&request, payload);
        Box::pin(async move {
            let (state, key) = wired::<S, H>(&request)?;
            let payload = payload.await?;
            match checked(&request, payload, &state.keys, state.body_timeout, &key).await {
                Ok((session, body)) => Ok(Self {
                    signed: Signed {
                        session,
                        state,
                        key,
                    },
                    body,
                }),
                Err(refused) => Err(answered_as_is(refused)),
            }
        })
    }
}

/// What the routes register as app data for the page.
type Wired<S, H> = (Data<AppState<S, H>>, Data<CsrfKey>);

/// The routes register both as app data; missing, it is a wiring bug, answered `500`.
fn wired<S: UnitOfWork + 'static, H: 'static>(
    request: &HttpRequest,
) -> Result<Wired<S, H>, actix_web::Error> {
    let state = request.app_data::<Data<AppState<S, H>>>().cloned();
    let key = request.app_data::<Data<CsrfKey>>().cloned();
    match (state, key) {
        (Some(state), Some(key)) => Ok((state, key)),
        _ => Err(actix_web::error::ErrorInternalServerError(NotWired)),
    }
}

/// The way to the sign-in form, or a change's refusal, as the extractor's error: answered
/// as it is.
fn answered_as_is(response: HttpResponse) -> actix_web::Error {
    InternalError::from_response("refused by the page's checks", response).into()
}
