//! The session: the operator's own bearer token in a cookie only this server's `/admin`
//! pages receive (`Secure; HttpOnly; SameSite=Strict; Path=/admin`), verified on every
//! request exactly as the admin API verifies its `Authorization` header. No session is
//! stored: signing out, or the token expiring, ends it.

use actix_web::http::header::{COOKIE, LOCATION, SET_COOKIE};
use actix_web::{HttpRequest, HttpResponse};
use application::Caller;
use application::admin::{ADMIN_READ, AdminScope};

use crate::http::edge::auth::TokenVerifier;

const COOKIE_NAME: &str = "admin_session";
const ATTRIBUTES: &str = "Path=/admin; Secure; HttpOnly; SameSite=Strict";
pub(super) const SIGN_IN: &str = "/admin/sign-in";

/// A signed-in operator: the token's caller, and the token (the CSRF tokens' input).
#[derive(Debug)]
pub(super) struct Session {
    pub(super) caller: Caller,
    pub(super) token: String,
}

impl Session {
    pub(super) fn scope(&self) -> AdminScope {
        AdminScope::of(&self.caller)
    }
}

/// The session of a request, or the way to the sign-in form (clearing a stale cookie).
pub(super) async fn session(
    request: &HttpRequest,
    keys: &TokenVerifier,
) -> Result<Session, HttpResponse> {
    let Some(token) = cookie(request) else {
        return Err(see_other(SIGN_IN));
    };
    match keys.verify_token(&token).await {
        Ok((caller, _)) if caller.has_permission(ADMIN_READ) => Ok(Session { caller, token }),
        _ => Err(signed_out(SIGN_IN)),
    }
}

/// The session cookie's value: the one `admin_session` of the one `Cookie` header.
fn cookie(request: &HttpRequest) -> Option<String> {
    let mut found = None;
    for header in request.headers().get_all(COOKIE) {
        let text = header.to_str().ok()?;
        for pair in text.split(';') {
            if let Some((name, value)) = pair.trim().split_once('=')
                && name == COOKIE_NAME
            {
                if found.is_some() {
                    // Two cookies could name two operators: neither counts.
                    return None;
                }
                found = Some(value.to_owned());
            }
        }
    }
    found.filter(|value| !value.is_empty())
}

/// Whether a token can be carried in a cookie as it is (a JWT always can).
pub(super) fn fits_a_cookie(token: &str) -> bool {
    !token.is_empty()
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.~+/=".contains(&b))
}

/// `303 See Other` to `location`.
pub(super) fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, location.to_owned()))
        .finish()
}

/// Signed in: the cookie lives `max_age_secs` at most (the token's remaining life).
pub(super) fn signed_in(token: &str, max_age_secs: u64) -> HttpResponse {
    let mut response = see_other("/admin/");
    let cookie = format!("{COOKIE_NAME}={token}; Max-Age={max_age_secs}; {ATTRIBUTES}");
    if let Ok(value) = cookie.try_into() {
        response.headers_mut().insert(SET_COOKIE, value);
    }
    response
}

/// Signed out: the cookie is cleared.
pub(super) fn signed_out(location: &str) -> HttpResponse {
    let mut response = see_other(location);
    let cookie = format!("{COOKIE_NAME}=; Max-Age=0; {ATTRIBUTES}");
    if let Ok(value) = cookie.try_into() {
        response.headers_mut().insert(SET_COOKIE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn cookie_of(headers: &[&'static str]) -> Option<String> {
        let mut request = TestRequest::default();
        for header in headers {
            request = request.append_header(("cookie", *header));
        }
        cookie(&request.to_http_request())
    }

    #[test]
    fn the_one_session_cookie_is_read_and_two_are_none() {
        assert_eq!(
            cookie_of(&["a=1; admin_session=x.y.z"]),
            Some("x.y.z".into())
        );
        assert_eq!(cookie_of(&["admin_session=x; admin_session=y"]), None);
        assert_eq!(cookie_of(&["admin_session=x", "admin_session=y"]), None);
        assert_eq!(cookie_of(&["admin_session="]), None);
        assert_eq!(cookie_of(&[]), None);
    }

    #[test]
    fn the_cookie_is_secure_http_only_strict_and_bounded() {
        let response = signed_in("x.y.z", 60);
        let set = response.headers().get(SET_COOKIE).map(|v| v.to_str().ok());
        assert_eq!(
            set,
            Some(Some(
                "admin_session=x.y.z; Max-Age=60; Path=/admin; Secure; HttpOnly; SameSite=Strict"
            ))
        );
        assert!(fits_a_cookie("eyJ.eyJ.sig-_"));
        assert!(!fits_a_cookie("a;b") && !fits_a_cookie("a b") && !fits_a_cookie(""));
    }
}
