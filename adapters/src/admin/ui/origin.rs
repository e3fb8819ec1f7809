//! Whether a state-changing request comes from this server's own pages: its `Origin` (or,
//! without one, its `Referer`) names the page's configured public origin, scheme, host and
//! port. The request's own `Host` counts for nothing: whoever forges the one can forge the
//! other, but a page of another site cannot make a browser name this origin.

use actix_web::http::header::{ORIGIN, REFERER};
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};

use super::layout::refused;
use super::public_origin::PublicOrigin;

/// The `403` page for a form from elsewhere, `None` for one of the page's own: the check
/// every `POST` of the page passes first. It names the setting, since a page opened under
/// another name than the configured one (`localhost` for `127.0.0.1`) is refused too.
pub(super) fn unless_same_origin(request: &HttpRequest) -> Option<HttpResponse> {
    (!is_same_origin(request)).then(|| {
        refused(
            "This form was not sent from this server's page: its Origin is not the page's \
             public origin (ADMIN_PUBLIC_ORIGIN).",
        )
    })
}

/// Also `false` when the routes registered no origin (a wiring bug): refused, not let by.
fn is_same_origin(request: &HttpRequest) -> bool {
    request
        .app_data::<Data<PublicOrigin>>()
        .is_some_and(|public| comes_from(request, public))
}

fn comes_from(request: &HttpRequest, public: &PublicOrigin) -> bool {
    let header = |name| {
        let mut values = request.headers().get_all(name);
        let first = values.next().and_then(|value| value.to_str().ok());
        // Two values could name two origins: which one counts is exactly the question.
        if values.next().is_some() { None } else { first }
    };
    let claimed = if request.headers().contains_key(ORIGIN) {
        header(ORIGIN)
    } else {
        header(REFERER)
    };
    claimed.is_some_and(|claimed| public.is_named_by(claimed))
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn from(public: &str, headers: &[(&'static str, &'static str)]) -> bool {
        let mut request = TestRequest::default();
        for header in headers {
            request = request.append_header(*header);
        }
        let public = PublicOrigin::parse(public).unwrap();
        is_same_origin(&request.app_data(Data::new(public)).to_http_request())
    }

    const OWN: &str = "http://127.0.0.1:8080";

    #[test]
    fn a_forged_host_with_its_own_origin_is_refused() {
        assert!(!from(OWN, &[("host", "evil"), ("origin", "http://evil")]));
        assert!(!from(
            OWN,
            &[("host", "evil.example"), ("origin", "http://evil.example")]
        ));
        assert!(
            from(OWN, &[("host", "evil"), ("origin", OWN)]),
            "Host is not asked"
        );
    }

    #[test]
    fn the_scheme_host_and_port_must_all_be_the_configured_ones() {
        assert!(from(OWN, &[("origin", OWN)]));
        assert!(
            !from(OWN, &[("origin", "https://127.0.0.1:8080")]),
            "scheme"
        );
        assert!(!from(OWN, &[("origin", "http://127.0.0.1:8081")]), "port");
        assert!(
            !from(OWN, &[("origin", "http://127.0.0.1")]),
            "port left off"
        );
        assert!(
            !from(OWN, &[("origin", "http://localhost:8080")]),
            "another name"
        );
        assert!(!from(OWN, &[("origin", "null")]));
        assert!(
            !from(OWN, &[("origin", "http://a@127.0.0.1:8080")]),
            "a user"
        );
        assert!(!from(OWN, &[("origin", "")]));
    }

    #[test]
    fn case_and_a_default_port_make_no_difference() {
        for public in ["https://oncall.example", "https://ONCALL.example:443"] {
            for origin in [
                "https://oncall.example",
                "https://oncall.example:443",
                "HTTPS://OnCall.Example",
            ] {
                assert!(from(public, &[("origin", origin)]), "{public} {origin}");
            }
            assert!(
                !from(public, &[("origin", "http://oncall.example")]),
                "{public}"
            );
            assert!(!from(public, &[("origin", "https://oncall.example:8443")]));
        }
        assert!(from(
            "http://oncall.example",
            &[("origin", "http://oncall.example:80")]
        ));
    }

    #[test]
    fn without_an_origin_the_referer_counts_and_only_then() {
        assert!(from(OWN, &[("referer", "http://127.0.0.1:8080/admin/x?y")]));
        assert!(!from(OWN, &[("referer", "http://evil.example/admin/x")]));
        assert!(!from(OWN, &[("referer", "https://127.0.0.1:8080/admin/")]));
        assert!(
            !from(
                OWN,
                &[
                    ("origin", "http://evil.example"),
                    ("referer", "http://127.0.0.1:8080/admin/")
                ]
            ),
            "the Origin, when there is one, decides"
        );
        assert!(!from(OWN, &[("host", "127.0.0.1:8080")]), "neither header");
    }

    #[test]
    fn two_values_of_either_header_are_refused() {
        assert!(!from(
            OWN,
            &[("origin", OWN), ("origin", "http://evil.example")]
        ));
        assert!(!from(OWN, &[("origin", OWN), ("origin", OWN)]));
        assert!(!from(
            OWN,
            &[
                ("referer", "http://127.0.0.1:8080/admin/"),
                ("referer", "http://evil.example/")
            ]
        ));
    }

    #[test]
    fn without_a_registered_origin_nothing_passes() {
        let request = TestRequest::default().append_header(("origin", OWN));
        assert!(!is_same_origin(&request.to_http_request()));
    }
}
