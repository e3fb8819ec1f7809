//! A server verifying with an identity provider's keys, and what the tests ask of it.

use std::time::Duration;

use tests::{
    Api, IdentityProvider, Reply, Service, ServiceOptions, TestDb, order_json, wait_until,
};

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
        app.wait_until_ready().await;
        app
    }

    pub(crate) async fn wait_until_ready(&self) {
        wait_until(
            Duration::from_secs(30),
            "readiness",
            || async { self.api.get("/readyz", None).status },
            |status| *status == 200,
        )
        .await;
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
