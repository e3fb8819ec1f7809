//! `server serve`: migrate, then serve HTTP until a signal, purging on a timer, relaying
//! events when a broker is configured and working payment captures when a provider is.

use std::sync::Arc;

use actix_web::App;
use actix_web::middleware::from_fn;
use adapters::SystemClock;
use adapters::api::{
    CsrfKey, PublicOrigin, admin_ui_routes, batched_operations, leased_kinds, routes,
};
use adapters::http::listener::{Limits, bind, http_server};
use adapters::http::{AppState, JwksVerifier, ProblemForms, TokenVerifier, request_context};
use adapters::metrics::Metrics;
use anyhow::Context;
use application::{
    BatchObserver, Batching, Coordinator, CoordinatorSettings, InFlight, ReplayCache,
};
use tokio::sync::watch;

use crate::commands::try_it::log_try_it;
use crate::config::auth::AuthConfig;
use crate::config::secret::Secret;
use crate::config::{DatabaseConfig, ServeConfig};
use crate::hooks::Hooks;
use crate::provider::{Provider, provider};
use crate::signals::shutdown_signal;
use crate::store::{AnyStore, WorkerStore, open_and_migrate};
use crate::tasks::purge::purge_every;
use crate::tasks::relay::relay_until;
use crate::tasks::workers::run_workers;

/// Runs the service. Returns after a graceful shutdown: SIGTERM or Ctrl-C stops accepting
/// connections, lets in-flight requests finish (up to `SHUTDOWN_TIMEOUT_SECS`), then
/// stops the purge timer, the relay and the capture workers.
pub(crate) async fn serve(config: ServeConfig) -> anyhow::Result<()> {
    let provider = provider(&config.payments)?;
    if provider.is_none() {
        tracing::info!(
            "PAYMENT_PROVIDER_URL is unset: payment captures are accepted and stay pending; \
             no capture worker runs"
        );
    }
    match (open_and_migrate(&config.database).await?, &config.database) {
        (AnyStore::Mysql(store), DatabaseConfig::Mysql(database)) => {
            let database = database.clone();
            serve_with(store, database, config, provider).await
        }
        (AnyStore::Sqlite(store), DatabaseConfig::Sqlite(database)) => {
            let database = database.clone();
            serve_with(store, database, config, provider).await
        }
        _ => anyhow::bail!("DATABASE_URL: the store opened is not the one configured"),
    }
}

/// `store` purges and relays; each HTTP worker opens its own store from `database` with
/// its share of the connections, and the capture workers theirs, one connection each.
async fn serve_with<S: WorkerStore>(
    store: S,
    database: S::Config,
    config: ServeConfig,
    provider: Option<Provider>,
) -> anyhow::Result<()> {
    config.events.warn_if_test_hooks();
    let hooks = config.events.hooks();
    let settings = CoordinatorSettings {
        retention: config.retention,
        same_key_wait: config.database.lock_wait(),
        ..CoordinatorSettings::default()
    };
    let metrics = Arc::new(Metrics::new());
    // One of each per process: same-key requests and retries may reach any worker.
    let replay_cache = ReplayCache::new(config.replay_cache)
        .map(|cache| Arc::new(cache.with_hit_counter(metrics.replay_cache_hits())));
    let in_flight = Arc::new(InFlight::new().with_wait_counter(metrics.same_key_waits()));
    // Each HTTP worker's store keeps as many transaction connections for batches as the
    // process may have in flight, since any worker may drive them all: `max_in_flight` for
    // each batched operation.
    let batch_connections = config.batching.as_ref().map_or(1, |settings| {
        settings.max_in_flight * batched_operations::<S>().max(1)
    });
    let batching = config.batching.map(|settings| {
        let observer: Arc<dyn BatchObserver> = metrics.clone();
        Arc::new(Batching::new(settings).with_observer(observer))
    });
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let worker_database = S::with_connections(&database, S::connection_budget(&database) / workers);
    let (keys, key_set) = verifier(&config.auth, &metrics);
    let body_timeout = config.body_timeout;
    let key_retention = config.payments.key_retention();
    let relay_metrics = Arc::clone(&metrics);
    let capture_metrics = Arc::clone(&metrics);
    let capture = match provider {
        Some(provider) => Some((
            S::open_for(&database, config.payments.concurrency).await?,
            provider,
        )),
        None => None,
    };

    let listener = bind(config.bind_addr)
        .with_context(|| format!("BIND_ADDR: cannot listen on {}", config.bind_addr))?;
    let address = listener.local_addr()?;
    // One key for every worker: a form drawn by one is checked by another.
    let admin_ui = config.admin_ui.then(|| {
        (
            CsrfKey::random(),
            page_origin(config.admin_public_origin, address),
        )
    });
    let limits = Limits {
        workers,
        shutdown_timeout_secs: config.shutdown_timeout_secs,
        drop_on_hang_up: config.events.test_drop_on_hang_up,
    };
    let app = move || {
        let (database, keys, hooks) = (worker_database.clone(), keys.clone(), hooks.clone());
        let (replay_cache, in_flight) = (replay_cache.clone(), Arc::clone(&in_flight));
        let batching = batching.clone();
        let shared_metrics = Arc::clone(&metrics);
        let admin_ui = admin_ui.clone();
        App::new()
            .wrap(from_fn(request_context))
            .data_factory(move || {
                let (database, keys, hooks) = (database.clone(), keys.clone(), hooks.clone());
                let (replay_cache, in_flight) = (replay_cache.clone(), Arc::clone(&in_flight));
                let batching = batching.clone();
                let metrics = Arc::clone(&shared_metrics);
                async move {
                    let store = S::open_worker(&database)
                        .await?
                        .with_batch_connections(batch_connections);
                    let mut coordinator = Coordinator::new(
                        store.clone(),
                        store.clone(),
                        Arc::new(SystemClock),
                        settings,
                    )
                    .with_deadlock_counter(metrics.transaction_retries())
                    .with_in_flight(in_flight);
                    if let Some(cache) = replay_cache {
                        coordinator = coordinator.with_replay_cache(cache);
                    }
                    if let Some(batching) = batching {
                        coordinator = coordinator.with_batching(batching);
                    }
                    let coordinator = coordinator
                        .with_hooks(hooks)
                        .with_refusal_forms(ProblemForms);
                    anyhow::Ok(AppState::new(
                        coordinator,
                        store,
                        Arc::new(leased_kinds()),
                        keys,
                        metrics,
                        body_timeout,
                        key_retention,
                    ))
                }
            })
            .configure(routes::<S, Hooks>(Arc::clone(&metrics)))
            .configure(move |config| {
                if let Some((key, origin)) = admin_ui {
                    admin_ui_routes::<S, Hooks>(key, origin)(config);
                }
            })
    };
    let server = http_server(app, listener, limits).context("HTTP server cannot start")?;
    tracing::info!(%address, "listening");
    if let AuthConfig::Secret(Secret::Development(keys)) = &config.auth {
        log_try_it(keys, address);
    }

    let (stop_purge, stopped) = watch::channel(false);
    let key_refresh = key_set.map(|key_set| tokio::spawn(key_set.keep_fresh(stopped.clone())));
    let purge = config.purge_interval.map(|interval| {
        tokio::spawn(purge_every(
            store.clone(),
            interval,
            config.retention,
            stopped.clone(),
        ))
    });
    let relay = config.events.nats_url.clone().map(|url| {
        let (store, events, metrics) = (store.clone(), config.events.clone(), relay_metrics);
        let stopped = stopped.clone();
        tokio::spawn(async move {
            if let Err(error) = relay_until(store, &url, &events, Some(metrics), stopped).await {
                tracing::error!(error = %format!("{error:#}"), "relay ended; events wait in the outbox");
            }
        })
    });
    let capture = capture.map(|(capture_store, provider)| {
        let (hooks, payments) = (config.events.hooks(), config.payments.clone());
        let stopped = stopped.clone();
        tokio::spawn(async move {
            if let Err(error) = run_workers(
                capture_store,
                provider,
                hooks,
                &payments,
                Some(capture_metrics),
                stopped,
            )
            .await
            {
                tracing::error!(error = %format!("{error:#}"), "capture workers ended; captures stay pending");
            }
        })
    });

    tokio::spawn(stop_on_signal(server.handle()));
    let result = server.await.context("HTTP server failed");
    let _ = stop_purge.send(true);
    for task in [purge, relay, capture, key_refresh].into_iter().flatten() {
        let _ = task.await;
    }
    tracing::info!("shut down");
    result
}

/// Where the on-call page's forms must come from: the configured origin, else `http://`
/// and the address listened on (its loopback for every interface), logged either way.
fn page_origin(configured: Option<PublicOrigin>, address: std::net::SocketAddr) -> PublicOrigin {
    let origin = configured.unwrap_or_else(|| {
        if address.ip().is_unspecified() {
            tracing::warn!(
                "ADMIN_UI=1 on every interface without ADMIN_PUBLIC_ORIGIN: the page's forms \
                 are accepted only from a page opened at the loopback address"
            );
        }
        PublicOrigin::of_listener(address)
    });
    tracing::info!(%origin, "ADMIN_UI=1: the on-call page is served under /admin/");
    origin
}

/// Waits for SIGTERM or Ctrl-C, then stops accepting and lets in-flight requests finish.
async fn stop_on_signal(server: actix_web::dev::ServerHandle) {
    shutdown_signal().await;
    tracing::info!("shutdown signal received; finishing in-flight requests");
    server.stop(true).await;
}

/// What verifies tokens, and the key set to keep fresh when there is one. The set's
/// refresh failures are counted in `metrics`.
fn verifier(auth: &AuthConfig, metrics: &Metrics) -> (TokenVerifier, Option<Arc<JwksVerifier>>) {
    match auth {
        AuthConfig::Secret(Secret::Configured(keys) | Secret::Development(keys)) => {
            (TokenVerifier::from(keys.clone()), None)
        }
        AuthConfig::KeySet { source, settings } => {
            let key_set = Arc::new(
                JwksVerifier::new(source.clone(), settings.clone())
                    .with_failure_counter(metrics.jwks_refresh_failures()),
            );
            (TokenVerifier::from(Arc::clone(&key_set)), Some(key_set))
        }
    }
}
