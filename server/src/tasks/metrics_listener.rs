//! `/metrics` alone, for a process that serves no API (`server consume`), on
//! `METRICS_ADDR`; the scrape target of its counters.

use std::net::SocketAddr;
use std::sync::Arc;

use actix_web::dev::ServerHandle;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::{App, HttpResponse, HttpServer, web};
use adapters::metrics::{METRICS_CONTENT_TYPE, Metrics};
use anyhow::Context;

/// Serves until the handle stops it; the listener is bound before this returns.
pub(crate) fn serve_metrics(
    address: SocketAddr,
    metrics: Arc<Metrics>,
) -> anyhow::Result<ServerHandle> {
    let server = HttpServer::new(move || {
        let metrics = Arc::clone(&metrics);
        App::new().route(
            "/metrics",
            web::get().to(move || {
                let text = metrics.render();
                async move {
                    HttpResponse::Ok()
                        .insert_header((CONTENT_TYPE, METRICS_CONTENT_TYPE))
                        .body(text)
                }
            }),
        )
    })
    .workers(1)
    .disable_signals()
    .bind(address)
    .with_context(|| format!("METRICS_ADDR: cannot listen on {address}"))?
    .run();
    let handle = server.handle();
    tokio::spawn(server);
    tracing::info!(%address, "serving /metrics");
    Ok(handle)
}
