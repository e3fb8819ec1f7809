//! [`served!`]: turns the one list of what the service serves (`crate::api`) into what is
//! derived from it, so nothing can be served undocumented, documented unserved, or served
//! by a store that lacks a port:
//! - the store bounds: [`ServiceTx`] (every operation's step, every leased kind's record)
//!   and [`ServiceStore`] (every read, the admin's store, readiness), each port named once,
//!   where its operation implements its step;
//! - `routes`, registering every route with actix, and `openapi_document`;
//! - `OPERATIONS` and `LEASED_KINDS`, the label values of the metrics, and `leased_kinds` /
//!   `worker_kinds`, the kinds' steps by name for the admin and the worker.

/// `operations`: idempotent `POST`s ([`crate::http::route::PostRoute`]); `reads`: tenant
/// `GET`s ([`crate::http::route::GetRoute`]); `leased`: operations a worker carries out
/// ([`application::leased::LeasedOperation`]); `routes`: every other route, as
/// `method "actix pattern" => handler`, each handler generic over the store and the hooks
/// and described by `#[utoipa::path]`.
macro_rules! served {
    (
        operations: [$($operation:ty),+ $(,)?],
        reads: [$($read:ty),+ $(,)?],
        leased: [$($kind:ty),+ $(,)?],
        routes: [$($method:ident $path:literal => $($handler:ident)::+),+ $(,)?] $(,)?
    ) => {
        /// The transaction every served operation and leased kind writes through.
        pub trait ServiceTx:
            application::ports::RecordTx + Send + 'static
            $(+ application::Steps<$operation>)+
            $(+ application::leased::Records<$kind>)+
        {
        }

        impl<T> ServiceTx for T where
            T: application::ports::RecordTx + Send + 'static
                $(+ application::Steps<$operation>)+
                $(+ application::leased::Records<$kind>)+
        {
        }

        /// What a store must offer to be served: implemented for every store with the
        /// ports, so a new store needs no code here.
        pub trait ServiceStore:
            application::ports::UnitOfWork<Tx: ServiceTx>
            + application::ports::RecordReader
            + application::admin::AdminStore
            + application::ports::Readiness
            $(+ application::Reads<$read>)+
            + Clone
            + 'static
        {
        }

        impl<T> ServiceStore for T where
            T: application::ports::UnitOfWork<Tx: ServiceTx>
                + application::ports::RecordReader
                + application::admin::AdminStore
                + application::ports::Readiness
                $(+ application::Reads<$read>)+
                + Clone
                + 'static
        {
        }

        /// The services the leased kinds call.
        pub trait ServiceProvider: Send + Sync + 'static $(+ application::leased::Calls<$kind>)+ {}

        impl<T> ServiceProvider for T where T: Send + Sync + 'static $(+ application::leased::Calls<$kind>)+ {}

        /// The stream's subjects: one per event type some operation declares it writes.
        #[must_use]
        pub fn event_subjects() -> Vec<String> {
            let mut subjects = Vec::new();
            for declared in [$(<$operation as application::IdempotentOperation>::EVENTS),+] {
                for subject in declared.iter().map(application::events::EventType::subjects) {
                    if !subjects.contains(&subject) {
                        subjects.push(subject);
                    }
                }
            }
            subjects
        }

        /// The stream of the events, with the subjects of every declared type.
        #[must_use]
        pub fn event_stream(duplicate_window: std::time::Duration) -> $crate::nats::StreamSpec {
            $crate::nats::StreamSpec::orders(event_subjects(), duplicate_window)
        }

        /// How many operations run batched on the store `S`: each has its own batches in
        /// flight (`BATCH_IN_FLIGHT`), so the store keeps connections for all of them.
        #[must_use]
        pub fn batched_operations<S: ServiceStore>() -> usize {
            [$(<<S as application::ports::UnitOfWork>::Tx as application::Steps<$operation>>::BATCHED),+]
                .into_iter()
                .filter(|batched| *batched)
                .count()
        }

        /// Every idempotent operation's name: the `operation` label of the outcomes.
        pub const OPERATIONS: &[&str] =
            &[$(<$operation as application::IdempotentOperation>::NAME),+];

        /// Every leased kind's name and its calls' names: the `type` label of the ended
        /// operations, the `call` label of the provider's calls.
        pub const LEASED_KINDS: &[(&str, application::leased::CallNames)] = &[$((
            <$kind as application::IdempotentOperation>::NAME,
            <$kind as application::leased::LeasedOperation>::CALL_NAMES,
        )),+];

        /// Each worker's `AppState<S, H>` comes from the app's data (`App::data_factory`,
        /// one store per worker). Wrap the app in `request_context` for ids, logs, latency.
        pub fn routes<S: ServiceStore, H: application::ports::FlowHooks + 'static>(
            shared_metrics: std::sync::Arc<$crate::metrics::Metrics>,
        ) -> impl FnOnce(&mut actix_web::web::ServiceConfig) {
            move |config| {
                config.app_data(actix_web::web::Data::new(shared_metrics));
                config.app_data(actix_web::web::Data::new(
                    $crate::http::routes::ApiDocument(&DOCUMENT),
                ));
                config.app_data(actix_web::web::Data::new(&*PROBLEM_TYPES));
                $(config.route(
                    <$operation as $crate::http::route::PostRoute>::PATH,
                    actix_web::web::post().to($crate::http::routes::idempotent_post::<S, H, $operation>),
                );)+
                $(config.route(
                    <$read as $crate::http::route::GetRoute>::PATH,
                    actix_web::web::get().to($crate::http::routes::read_one::<S, H, $read>),
                );)+
                $(config.route($path, actix_web::web::$method().to($($handler)::+::<S, H>));)+
            }
        }

        /// The routes that describe themselves with `#[utoipa::path]`.
        #[derive(utoipa::OpenApi)]
        #[openapi(paths($($($handler)::+),+))]
        struct SelfDescribed;

        /// The whole API document: every route of the list.
        #[must_use]
        pub fn openapi_document() -> serde_json::Value {
            use utoipa::OpenApi as _;
            let mut results = Vec::new();
            $($crate::http::openapi::schema_of::<
                <$kind as application::leased::LeasedOperation>::Result,
            >(&mut results);)+
            $crate::http::openapi::document(
                SelfDescribed::openapi(),
                vec![
                    $($crate::http::openapi::describe_post::<$operation>(),)+
                    $($crate::http::openapi::describe_get::<$read>(),)+
                ],
                results,
            )
        }

        /// Rendered once, for `GET /openapi.json`.
        static DOCUMENT: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
            serde_json::to_vec(&openapi_document()).unwrap_or_default()
        });

        /// Every problem the document lists, by code, for `GET /problems/{code}`.
        static PROBLEM_TYPES: std::sync::LazyLock<$crate::http::routes::ProblemTypes> =
            std::sync::LazyLock::new(|| {
                use $crate::http::edge::refusal_form::ProblemForm as _;
                let mut problems = $crate::http::openapi::problem_schemas::shared_problems();
                problems.push($crate::http::edge::problem::Problem::in_progress());
                $(problems.extend(
                    <<$operation as application::IdempotentOperation>::Refusal as application::Refusal>::ALL
                        .iter()
                        .map(|refusal| refusal.problem()),
                );)+
                $crate::http::routes::ProblemTypes::gathered(problems)
            });

        /// The leased kinds' record steps by name, for the admin's resolve.
        #[must_use]
        pub fn leased_kinds<Tx: ServiceTx>() -> application::leased::LeasedKinds<Tx> {
            application::leased::LeasedKinds::default()$(.with::<$kind>())+
        }

        /// The leased kinds' work by name, for the workers.
        #[must_use]
        pub fn worker_kinds<S, P, H>() -> application::leased::WorkerKinds<S, P, H>
        where
            S: application::ports::OperationStore<Tx: ServiceTx> + 'static,
            P: ServiceProvider,
            H: application::ports::FlowHooks + 'static,
        {
            application::leased::WorkerKinds::default()$(.with::<$kind>())+
        }
    };
}

pub(crate) use served;
