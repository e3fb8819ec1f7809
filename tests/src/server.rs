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
}
