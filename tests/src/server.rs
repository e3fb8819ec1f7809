//! The database server the test command prepared.

/// The server named by `TEST_DATABASE_URL` (set by `scripts/test`).
#[derive(Debug, Clone)]
pub struct TestServer {
    base_url: String,
}

impl TestServer {
    /// # Panics
    /// Loudly, with instructions, when no server is configured: never a silent skip.
    #[must_use]
    pub fn from_env() -> Self {
        let Ok(base_url) = std::env::var("TEST_DATABASE_URL") else {
            panic!(
                "TEST_DATABASE_URL is not set. Run the tests with `scripts/test`, which starts \
                 a private MariaDB (or uses DATABASE_URL=mysql://user:pass@host:port when set)."
            );
        };
        Self { base_url }
    }

    /// The server at `base_url` (no database in the path).
    #[must_use]
    pub fn new(base_url: &str) -> Self {
        Self {
            base_url: base_url.to_owned(),
        }
    }

    /// The server URL with `database` as its path, query options kept.
    #[must_use]
    pub fn url_for(&self, database: &str) -> String {
        let (head, query) = self
            .base_url
            .split_once('?')
            .map_or((self.base_url.as_str(), None), |(h, q)| (h, Some(q)));
        let authority_start = head.find("://").map_or(0, |i| i + 3);
        let host_end = head[authority_start..]
            .find('/')
            .map_or(head.len(), |i| authority_start + i);
        let mut url = format!("{}/{database}", &head[..host_end]);
        if let Some(query) = query {
            url.push('?');
            url.push_str(query);
        }
        url
    }

    /// The database server's `host:port`.
    ///
    /// # Panics
    /// When the URL names no resolvable TCP address.
    #[must_use]
    pub fn socket_addr(&self) -> std::net::SocketAddr {
        use std::net::ToSocketAddrs;
        let (_, authority) = authority_range(&self.base_url);
        let host_port = authority.rsplit('@').next().unwrap_or(authority);
        host_port
            .to_socket_addrs()
            .ok()
            .and_then(|mut addrs| addrs.next())
            .unwrap_or_else(|| panic!("TEST_DATABASE_URL names no host:port"))
    }
}

/// `url` with its `host:port` replaced by `address` (credentials, path and query kept),
/// for a connection that must really go through `address` (a fault proxy): the MySQL
/// driver swaps a loopback TCP address for the server's Unix socket unless told
/// `prefer_socket=false`, so that is added where the URL does not say.
#[must_use]
pub fn url_via(url: &str, address: std::net::SocketAddr) -> String {
    let (start, authority) = authority_range(url);
    let credentials = authority.rsplit_once('@').map(|(c, _)| format!("{c}@"));
    let via = format!(
        "{}{}{address}{}",
        &url[..start],
        credentials.unwrap_or_default(),
        &url[start + authority.len()..]
    );
    if !via.starts_with("mysql://") || via.contains("prefer_socket=") {
        return via;
    }
    let separator = if via.contains('?') { '&' } else { '?' };
    format!("{via}{separator}prefer_socket=false")
}

/// Where the authority starts in `url`, and the authority itself.
fn authority_range(url: &str) -> (usize, &str) {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?'])
        .map_or(url.len(), |i| start + i);
    (start, &url[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_can_be_pointed_at_another_address() {
        let address: std::net::SocketAddr = "127.0.0.1:9".parse().unwrap();
        assert_eq!(
            url_via(
                "mysql://root:pw@127.0.0.1:3306/db?prefer_socket=false",
                address
            ),
            "mysql://root:pw@127.0.0.1:9/db?prefer_socket=false"
        );
        assert_eq!(
            url_via("mysql://h:1/db", address),
            "mysql://127.0.0.1:9/db?prefer_socket=false"
        );
        assert_eq!(
            url_via("mysql://h:1/db?ssl-mode=disabled", address),
            "mysql://127.0.0.1:9/db?ssl-mode=disabled&prefer_socket=false"
        );
    }
}
