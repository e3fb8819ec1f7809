//! A server verifying with an identity provider's keys, and what the tests ask of it.

use std::time::{Duration, Instant};

use tests::{Api, IdentityProvider, Reply, Service, ServiceOptions, TestDb, order_json};

pub(crate) struct App {
    pub(crate) db: TestDb,
    pub(crate) idp: IdentityProvider,
    pub(crate) service: Service,
    pub(crate) api: Api,
}

impl App {
    /// A provider and a server using its keys, with `env` on top; not waited for.
    pub(crate) async fn start_with(idp: IdentityProvider, env: &[(&str, &str)]) -> Self {
        let db = TestDb::create().await;
        let mut options = ServiceOptions::new(db.url());
        options.auth_secret = None;
        options.env = idp.env();
        options
            .env
            .extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        let service = Service::start(&options);
        let api = Api::new(service.base_url());
        Self {
            db,
            idp,
            service,
            api,
        }
    }

    /// [`App::start_with`], once its keys are loaded.
    pub(crate) async fn start(env: &[(&str, &str)]) -> Self {
        let app = Self::start_with(IdentityProvider::start(), env).await;
        app.wait_until_ready();
        app
    }

    pub(crate) fn wait_until_ready(&self) {
        until(Duration::from_secs(30), "readiness", || {
            self.api.get("/readyz", None).status == 200
        });
    }

    /// `POST /api/orders` with `token`: 201 when the token is accepted.
    pub(crate) fn create(&self, token: &str, reference: &str) -> Reply {
        self.api
            .create(token, reference, &order_json(reference, "SKU-1", 1))
    }

    pub(crate) async fn finish(self) {
        drop(self.service);
        self.db.drop_database().await;
    }
}

/// Polls `done` every 50 ms until it holds.
///
/// # Panics
/// After `patience`, naming `what`.
pub(crate) fn until(patience: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + patience;
    while !done() {
        assert!(Instant::now() < deadline, "{what} never happened");
        std::thread::sleep(Duration::from_millis(50));
    }
}
