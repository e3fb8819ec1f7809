//! Whether a state-changing request comes from this server's own pages: its `Origin` (or,
//! without one, its `Referer`) names the host the request was sent to. A browser sets
//! both; a page of another site cannot make them name this one.

use actix_web::HttpRequest;
use actix_web::http::header::{HOST, ORIGIN, REFERER};

pub(super) fn is_same_origin(request: &HttpRequest) -> bool {
    let header = |name| {
        let mut values = request.headers().get_all(name);
        let first = values.next().and_then(|value| value.to_str().ok());
        // Two values could name two origins: which one counts is exactly the question.
        if values.next().is_some() { None } else { first }
    };
    let Some(host) = header(HOST) else {
        return false;
    };
    let claimed = match header(ORIGIN) {
        Some(origin) => origin,
        None => match header(REFERER) {
            Some(referer) => referer,
            None => return false,
        },
    };
    authority(claimed).is_some_and(|named| named.eq_ignore_ascii_case(host))
}

/// `host[:port]` of an `http(s)://` URL or origin; `None` for `null` and anything else.
fn authority(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    (!authority.is_empty() && !authority.contains('@')).then_some(authority)
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn same(headers: &[(&'static str, &'static str)]) -> bool {
        let mut request = TestRequest::default();
        for header in headers {
            request = request.append_header(*header);
        }
        is_same_origin(&request.to_http_request())
    }

    #[test]
    fn only_this_hosts_origin_or_referer_passes() {
        let host = ("host", "127.0.0.1:8080");
        assert!(same(&[host, ("origin", "http://127.0.0.1:8080")]));
        assert!(same(&[
            host,
            ("referer", "http://127.0.0.1:8080/admin/x?y")
        ]));
        assert!(!same(&[host, ("origin", "http://evil.example")]));
        assert!(!same(&[host, ("origin", "null")]));
        assert!(!same(&[host, ("origin", "http://127.0.0.1:8081")]));
        assert!(!same(&[host, ("origin", "http://a@127.0.0.1:8080")]));
        assert!(!same(&[host]), "neither header");
        assert!(!same(&[("origin", "http://127.0.0.1:8080")]), "no host");
        assert!(!same(&[
            host,
            ("origin", "http://127.0.0.1:8080"),
            ("origin", "http://evil.example"),
        ]));
    }
}
