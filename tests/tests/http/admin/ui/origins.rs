//! Over plain HTTP, the origin check compares the form's `Origin` with the page's public
//! origin, never with the request's own `Host`: a forged `Host` naming the forger's origin
//! is refused while the page's own forms pass; `ADMIN_PUBLIC_ORIGIN` sets that origin
//! (scheme, host and port, case and default port aside).

use std::sync::LazyLock;

use tests::Reply;

use super::browser::app_with_ui;
use super::guards::csrf_token;
use crate::admin::support::operator_token;
use crate::support::App;

static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

/// Sign-out, a change every session may make, with this session's CSRF token, sent with
/// `headers` besides.
fn sign_out(app: &App, csrf: &str, headers: &[(&str, &str)]) -> Reply {
    let cookie = format!("admin_session={}", *OPERATOR);
    let mut sent: Vec<(&str, &[u8])> = vec![
        ("cookie", cookie.as_bytes()),
        ("content-type", b"application/x-www-form-urlencoded"),
    ];
    sent.extend(
        headers
            .iter()
            .map(|(name, value)| (*name, value.as_bytes())),
    );
    let body = format!("csrf={csrf}");
    app.api
        .send("POST", "/admin/sign-out", &sent, body.as_bytes())
}

/// The status, and whether the session's cookie was cleared.
fn answered(reply: &Reply) -> (u16, bool) {
    let cleared = reply
        .header("set-cookie")
        .is_some_and(|cookie| cookie.contains("Max-Age=0"));
    (reply.status, cleared)
}

#[tokio::test]
async fn a_forged_origin_with_a_matching_host_is_refused_and_the_pages_own_forms_pass() {
    let app = app_with_ui().await;
    let csrf = csrf_token(&app, &OPERATOR);
    let own = app.service.base_url().to_owned();
    let forged = [
        [("host", "evil.example"), ("origin", "http://evil.example")],
        [
            ("host", "evil.example:8080"),
            ("origin", "http://evil.example:8080"),
        ],
        [
            ("host", "evil.example"),
            ("referer", "http://evil.example/admin/"),
        ],
    ];
    for headers in &forged {
        assert_eq!(
            answered(&sign_out(&app, &csrf, headers)),
            (403, false),
            "{headers:?}"
        );
    }
    let own_scheme_swapped = own.replacen("http://", "https://", 1);
    let refused = sign_out(&app, &csrf, &[("origin", &own_scheme_swapped)]);
    assert_eq!(answered(&refused), (403, false), "another scheme");
    // The page's own forms, as a browser sends them: from the page's origin.
    let referer = format!("{own}/admin/");
    assert_eq!(
        answered(&sign_out(&app, &csrf, &[("referer", &referer)])),
        (303, true)
    );
    assert_eq!(
        answered(&sign_out(&app, &csrf, &[("origin", &own)])),
        (303, true)
    );
    app.finish().await;
}

#[tokio::test]
async fn the_configured_public_origin_is_the_one_forms_must_come_from() {
    let app = App::start_with(|options| {
        options.env.push(("ADMIN_UI".into(), "1".into()));
        options.env.push((
            "ADMIN_PUBLIC_ORIGIN".into(),
            "https://OnCall.example".into(),
        ));
    })
    .await;
    let csrf = csrf_token(&app, &OPERATOR);
    let own = app.service.base_url().to_owned();
    for origin in [
        own.as_str(),
        "http://oncall.example",
        "https://oncall.example:8443",
    ] {
        let reply = sign_out(&app, &csrf, &[("origin", origin)]);
        assert_eq!(answered(&reply), (403, false), "{origin}");
    }
    // Behind a proxy that serves it at https://oncall.example, whatever address it reaches.
    for origin in ["https://oncall.example:443", "https://oncall.example"] {
        let reply = sign_out(
            &app,
            &csrf,
            &[("origin", origin), ("host", "oncall.example")],
        );
        assert_eq!(answered(&reply), (303, true), "{origin}");
    }
    app.finish().await;
}
