//! [`served!`]: turns the one list of routes into the function that registers them and
//! the one that documents them, so a route can be neither served undocumented nor
//! documented unserved.

/// `post Op` for a [`super::PostRoute`], `get R` for a [`super::GetRoute`].
macro_rules! served {
    ($($method:ident $route:ty),+ $(,)?) => {
        /// Each worker's `AppState<S, H>` comes from the app's data (`App::data_factory`,
        /// one store per worker). Wrap the app in `request_context` for ids, logs, latency.
        pub fn routes<S: ServiceStore, H: application::ports::FlowHooks + 'static>(
            shared_metrics: std::sync::Arc<crate::metrics::Metrics>,
        ) -> impl FnOnce(&mut actix_web::web::ServiceConfig) {
            move |config| {
                config.app_data(actix_web::web::Data::new(shared_metrics));
                $(served!(@register $method $route, S, H, config);)+
                crate::admin::http::register::<S, H>(config);
                config
                    .route("/healthz", actix_web::web::get().to(healthz))
                    .route("/readyz", actix_web::web::get().to(readyz::<S, H>))
                    .route("/metrics", actix_web::web::get().to(metrics::<S, H>))
                    .route(
                        "/openapi.json",
                        actix_web::web::get().to(document::openapi_json),
                    );
            }
        }

        pub(crate) fn documented() -> Vec<crate::http::openapi::Described> {
            vec![$(served!(@describe $method $route)),+]
        }
    };
    (@register post $route:ty, $s:ident, $h:ident, $config:ident) => {
        $config.route(
            <$route as crate::http::route::PostRoute>::PATH,
            actix_web::web::post().to(idempotent_post::idempotent_post::<$s, $h, $route>),
        );
    };
    (@register get $route:ty, $s:ident, $h:ident, $config:ident) => {
        $config.route(
            <$route as crate::http::route::GetRoute>::PATH,
            actix_web::web::get().to(read_one::read_one::<$s, $h, $route>),
        );
    };
    (@describe post $route:ty) => {
        crate::http::openapi::describe_post::<$route>()
    };
    (@describe get $route:ty) => {
        crate::http::openapi::describe_get::<$route>()
    };
}

pub(crate) use served;
