//! The origin the on-call page is served under (`ADMIN_PUBLIC_ORIGIN`,
//! `docs/admin.md#the-on-call-page`): the scheme, host and port a browser names in the
//! `Origin` of the page's own forms. Compared as the web compares origins (`url`'s tuple
//! origin): scheme and host without regard to case, a default port the same as none.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use url::{Host, Origin, Url};

/// Where the page is served, as a browser names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicOrigin(Origin);

/// Why a configured origin was refused; never quotes it.
#[derive(Debug, thiserror::Error)]
pub enum PublicOriginError {
    #[error("must be http:// or https:// followed by a host and an optional port")]
    Scheme,
    #[error("is not a URL")]
    NotAUrl(#[source] url::ParseError),
    #[error(
        "must be only a scheme, a host and an optional port (no user, path, query, fragment \
         or spaces), as https://admin.example.com"
    )]
    NotBare,
}

impl PublicOrigin {
    /// `http(s)://host[:port]`, an ending `/` allowed, nothing else.
    ///
    /// # Errors
    /// When `text` is anything else.
    pub fn parse(text: &str) -> Result<Self, PublicOriginError> {
        let lower = text.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            return Err(PublicOriginError::Scheme);
        }
        // The URL parser drops spaces, tabs and newlines it meets; a setting holding any
        // is refused rather than read as something it does not say.
        if text
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(PublicOriginError::NotBare);
        }
        let url = Url::parse(text).map_err(PublicOriginError::NotAUrl)?;
        let bare = url.username().is_empty()
            && url.password().is_none()
            && url.path() == "/"
            && url.query().is_none()
            && url.fragment().is_none();
        if !bare {
            return Err(PublicOriginError::NotBare);
        }
        Ok(Self(url.origin()))
    }

    /// `http://` and the address the server listens on; an address on every interface
    /// (`0.0.0.0`, `[::]`) is named by its loopback, the one name it certainly has.
    #[must_use]
    pub fn of_listener(address: SocketAddr) -> Self {
        let host = match address.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => Host::Ipv4(Ipv4Addr::LOCALHOST),
            IpAddr::V4(ip) => Host::Ipv4(ip),
            IpAddr::V6(ip) if ip.is_unspecified() => Host::Ipv6(Ipv6Addr::LOCALHOST),
            IpAddr::V6(ip) => Host::Ipv6(ip),
        };
        Self(Origin::Tuple("http".to_owned(), host, address.port()))
    }

    /// Whether `url` (an `Origin` header, or a `Referer`) names this origin. A URL with a
    /// user in it is never a browser's own, and `null` is no URL.
    pub(super) fn is_named_by(&self, url: &str) -> bool {
        Url::parse(url).is_ok_and(|url| {
            url.username().is_empty() && url.password().is_none() && url.origin() == self.0
        })
    }
}

impl std::fmt::Display for PublicOrigin {
    /// `scheme://host[:port]`, the port left off when it is the scheme's default.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.ascii_serialization())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_http_or_https_origin_is_read_normalized() {
        for (text, read) in [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
            ("HTTPS://OnCall.Example.com", "https://oncall.example.com"),
            (
                "https://oncall.example.com:443",
                "https://oncall.example.com",
            ),
            ("http://localhost:80", "http://localhost"),
            (
                "https://oncall.example.com:8443",
                "https://oncall.example.com:8443",
            ),
            ("http://[::1]:8080", "http://[::1]:8080"),
        ] {
            let origin = PublicOrigin::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(origin.to_string(), read, "{text}");
        }
    }

    #[test]
    fn anything_but_a_bare_origin_is_refused_without_being_quoted() {
        for text in [
            "",
            "127.0.0.1:8080",
            "ftp://oncall.example",
            "http:oncall.example",
            "//oncall.example",
            "http://",
            "http://oncall.example:99999",
            "http://oncall.example/admin/",
            "http://oncall.example?x=1",
            "http://oncall.example#top",
            "http://user@oncall.example",
            "http://user:pw@oncall.example",
            " http://oncall.example",
            "http://oncall.example ",
            "http://oncall\t.example",
            "http://oncall.example\n",
        ] {
            let error = PublicOrigin::parse(text).map(|o| o.to_string());
            let Err(error) = error else {
                panic!("{text:?} accepted as {error:?}");
            };
            let said = error.to_string();
            assert!(text.len() < 8 || !said.contains(text.trim()), "{said}");
        }
    }

    #[test]
    fn the_listeners_default_names_its_address_and_loopback_for_every_interface() {
        let of = |address: &str| PublicOrigin::of_listener(address.parse().unwrap()).to_string();
        assert_eq!(of("127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(of("10.1.2.3:80"), "http://10.1.2.3");
        assert_eq!(of("[::1]:8080"), "http://[::1]:8080");
        assert_eq!(of("0.0.0.0:8080"), "http://127.0.0.1:8080");
        assert_eq!(of("[::]:8080"), "http://[::1]:8080");
        assert_eq!(
            PublicOrigin::of_listener("127.0.0.1:8080".parse().unwrap()),
            PublicOrigin::parse("http://127.0.0.1:8080").unwrap()
        );
    }
}
