//! Over plain HTTP: a change without its CSRF token or from another origin changes
//! nothing; every `/admin/` response carries the security headers; without `ADMIN_UI=1`
//! there is no `/admin/` at all.

use std::sync::LazyLock;

use tests::{Reply, token};

use super::browser::app_with_ui;
use crate::admin::support::{audit_rows, needs_review, operator_token, pending_capture};
use crate::support::App;

const HEADERS: [(&str, &str); 5] = [
    (
        "content-security-policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
         frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
    ("cache-control", "no-store"),
];

/// Minted once: the CSRF token read from a page is bound to this token's exact text.
static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

fn session_cookie() -> String {
    format!("admin_session={}", *OPERATOR)
}

fn get(app: &App, path: &str) -> Reply {
    get_as(app, path, &OPERATOR)
}

/// `GET path` signed in with `token`.
pub(super) fn get_as(app: &App, path: &str, token: &str) -> Reply {
    let cookie = format!("admin_session={token}");
    app.api
        .send("GET", path, &[("cookie", cookie.as_bytes())], b"")
}

/// The CSRF token of the sign-out form of `/admin/`, signed in with `token`.
pub(super) fn csrf_token(app: &App, token: &str) -> String {
    let page = String::from_utf8(get_as(app, "/admin/", token).body).unwrap();
    let (_, after) = page.split_once("name=\"csrf\" value=\"").unwrap();
    after.split('"').next().unwrap().to_owned()
}

/// A form `POST` to `path` signed in with `token`, from `origin`.
pub(super) fn post_form(app: &App, path: &str, token: &str, origin: &str, body: &str) -> Reply {
    let cookie = format!("admin_session={token}");
    app.api.send(
        "POST",
        path,
        &[
            ("cookie", cookie.as_bytes()),
            ("origin", origin.as_bytes()),
            ("content-type", b"application/x-www-form-urlencoded"),
        ],
        body.as_bytes(),
    )
}

/// How the action tests post a form: as `operator` from this host with its session's CSRF
/// token, and in the four ways the page must refuse.
pub(super) struct Posting {
    operator: String,
    own: String,
    csrf: String,
    reader: String,
    reader_csrf: String,
}

impl Posting {
    /// `operator` holds `admin:write`; beside it, a reader of tenant 1 without it.
    pub(super) fn new(app: &App, operator: &str) -> Self {
        let reader = token(1, 8, "admin:read");
        Self {
            operator: operator.to_owned(),
            own: app.service.base_url().to_owned(),
            csrf: csrf_token(app, operator),
            reader_csrf: csrf_token(app, &reader),
            reader,
        }
    }

    /// The token without `admin:write`.
    pub(super) fn reader(&self) -> &str {
        &self.reader
    }

    /// `form` (without its CSRF member) posted to `path` with every check passing.
    pub(super) fn passing(&self, app: &App, path: &str, form: &str) -> Reply {
        let body = format!("csrf={}&{form}", self.csrf);
        post_form(app, path, &self.operator, &self.own, &body)
    }

    /// `form` posted to `path` without its CSRF token, with another session's, from another
    /// origin, and by the reader: each is refused with `403`.
    pub(super) fn assert_refused(&self, app: &App, path: &str, form: &str, what: &str) {
        let with = |csrf: &str| format!("csrf={csrf}&{form}");
        let refused = [
            post_form(app, path, &self.operator, &self.own, form),
            post_form(
                app,
                path,
                &self.operator,
                &self.own,
                &with(&self.reader_csrf),
            ),
            post_form(
                app,
                path,
                &self.operator,
                "http://evil.example",
                &with(&self.csrf),
            ),
            post_form(app, path, &self.reader, &self.own, &with(&self.reader_csrf)),
        ];
        let statuses = refused.map(|reply| reply.status);
        assert_eq!(statuses, [403; 4], "{what}");
    }
}

fn sign_out(app: &App, origin: &str, csrf: Option<&str>) -> Reply {
    let body = csrf.map(|csrf| format!("csrf={csrf}")).unwrap_or_default();
    post_form(app, "/admin/sign-out", &OPERATOR, origin, &body)
}

#[tokio::test]
async fn a_change_without_its_csrf_token_or_from_another_origin_changes_nothing() {
    let app = app_with_ui().await;
    let own = app.service.base_url().to_owned();
    let csrf = csrf_token(&app, &OPERATOR);
    let refused = [
        sign_out(&app, &own, None),
        sign_out(&app, &own, Some("bm90LXRoZS10b2tlbg")),
        sign_out(&app, "http://evil.example", Some(&csrf)),
        sign_out(&app, "null", Some(&csrf)),
    ];
    for reply in refused {
        assert_eq!(reply.status, 403);
        assert_eq!(reply.header("set-cookie"), None, "the session stays");
    }
    assert_eq!(audit_rows(&app).await, 0);
    let accepted = sign_out(&app, &own, Some(&csrf));
    assert_eq!(
        accepted.status, 303,
        "the same form with both checks passing"
    );
    assert!(accepted.header("set-cookie").unwrap().contains("Max-Age=0"));
    app.finish().await;
}

#[tokio::test]
async fn every_admin_response_carries_the_security_headers() {
    let app = app_with_ui().await;
    let id = pending_capture(&app, "UI-HEADERS");
    needs_review(&app, &id).await;
    let operation = format!("/admin/operations/{id}");
    let retry = format!("/admin/operations/{id}/retry?state=needs_review&generation=3");
    let stale = format!("/admin/operations/{id}/cancel?state=pending&generation=0");
    let signed_out = app.api.send("GET", "/admin/operations", &[], b"");
    assert_eq!(signed_out.status, 303);
    let mut replies = vec![("signed out", signed_out)];
    for path in [
        "/admin/sign-in",
        "/admin/static/admin.css",
        "/admin/",
        "/admin/operations",
        "/admin/operations?state=needs_review&type=&tenant=",
        "/admin/operations?state=bogus",
        &operation,
        "/admin/operations/00000000-0000-4000-8000-000000000000",
        "/admin/audit",
        &retry,
        &stale,
        "/admin/idempotency-keys",
        "/admin/idempotency-keys?tenant=1&actor=1&operation=orders.create.v1&key=none",
        "/admin/idempotency-keys?tenant=x",
        "/admin/no-such-page",
    ] {
        replies.push((path, get(&app, path)));
    }
    replies.push((
        "refused sign-out",
        sign_out(&app, "http://evil.example", None),
    ));
    let own = app.service.base_url().to_owned();
    replies.push((
        "refused retry",
        post_form(
            &app,
            &format!("/admin/operations/{id}/retry"),
            &OPERATOR,
            &own,
            "",
        ),
    ));
    for (what, reply) in &replies {
        for (name, value) in HEADERS {
            assert_eq!(reply.header(name).as_deref(), Some(value), "{what}: {name}");
        }
        let body = String::from_utf8_lossy(&reply.body);
        assert!(
            !body.contains("<script") && !body.contains(" style="),
            "{what}"
        );
    }
    let statuses: Vec<u16> = replies.iter().map(|(_, reply)| reply.status).collect();
    assert_eq!(
        statuses,
        [
            303, 200, 200, 200, 200, 200, 400, 200, 404, 200, 200, 409, 200, 404, 400, 404, 403,
            403
        ]
    );
    app.finish().await;
}

#[tokio::test]
async fn without_admin_ui_there_is_no_admin_page() {
    let app = App::start().await;
    for path in ["/admin/", "/admin/sign-in", "/admin/static/admin.css"] {
        assert_eq!(get(&app, path).status, 404, "{path}");
    }
    let cookie = session_cookie();
    let post = app.api.send(
        "POST",
        "/admin/sign-in",
        &[("cookie", cookie.as_bytes())],
        b"",
    );
    assert_eq!(post.status, 404);
    app.finish().await;
}
