//! The HTTP/1 server: what actix-web's `HttpServer` sets up, with every connection's bytes
//! passing [`HeadGuard`] first and the limits written down here
//! (`docs/http-api.md#connections-and-timeouts`).

use std::net::SocketAddr;
use std::time::Duration;

use actix_http::{HttpService, KeepAlive, Protocol, Request, Response};
use actix_server::Server;
use actix_service::{
    IntoServiceFactory, ServiceFactory, ServiceFactoryExt, fn_service, map_config,
};
use actix_web::body::MessageBody;
use actix_web::dev::AppConfig;
use tokio::net::TcpStream;

use super::edge::head_guard::HeadGuard;

/// Connections one worker serves at once; past it, new ones wait in the listen backlog.
pub const MAX_CONNECTIONS_PER_WORKER: usize = 4_096;

/// Connections waiting to be accepted.
const BACKLOG: u32 = 2_048;

/// How long a client has to send a request's head once it connected (or after the last
/// response on a kept-alive connection); past it, `408` and the connection closes.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// How long an idle connection is kept for the next request.
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// How long a closing connection may take to flush its last response.
const DISCONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// How the server runs.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// HTTP workers (threads), each with its own app instance.
    pub workers: usize,
    /// How long requests in flight may finish after a stop.
    pub shutdown_timeout_secs: u64,
    /// A request whose client closed its side is dropped at once, not run to its end: only
    /// a test build does this, to prove a transaction abandoned midway ends with its
    /// connection (`docs/http-api.md#a-client-that-hangs-up`).
    pub drop_on_hang_up: bool,
}

/// Binds `address` (port 0 picks a free one; the result names it).
///
/// # Errors
/// When the address cannot be bound.
pub fn bind(address: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(BACKLOG)?.into_std()
}

/// A server for the app `factory` makes, on `listener`. Signals are the caller's: stop it
/// through its handle.
///
/// # Errors
/// When the listener cannot be registered.
pub fn http_server<F, I, S, B>(
    factory: F,
    listener: std::net::TcpListener,
    limits: Limits,
) -> std::io::Result<Server>
where
    F: Fn() -> I + Send + Clone + 'static,
    I: IntoServiceFactory<S, Request>,
    S: ServiceFactory<Request, Config = AppConfig> + 'static,
    S::Error: Into<actix_web::Error> + 'static,
    S::InitError: std::fmt::Debug,
    S::Response: Into<Response<B>> + 'static,
    <S::Service as actix_service::Service<Request>>::Future: 'static,
    B: MessageBody + 'static,
{
    let address = listener.local_addr()?;
    let builder = Server::build()
        .workers(limits.workers)
        .max_concurrent_connections(MAX_CONNECTIONS_PER_WORKER)
        .backlog(BACKLOG)
        .disable_signals()
        .shutdown_timeout(limits.shutdown_timeout_secs);
    let shutdown = builder.graceful_shutdown_signal();
    let builder = builder.listen("http", listener, move || {
        let shutdown = shutdown.clone();
        let app = factory()
            .into_factory()
            .map_err(|error| error.into().error_response());
        let http = HttpService::build()
            // Idle kept-alive connections close at once on a stop, as with HttpServer (which
            // calls this same hidden builder method; the lock file pins the version).
            .graceful_shutdown_signal(move || {
                let shutdown = shutdown.clone();
                async move { shutdown.notified().await }
            })
            .keep_alive(KeepAlive::Timeout(KEEP_ALIVE))
            .client_request_timeout(HEAD_TIMEOUT)
            .client_disconnect_timeout(DISCONNECT_TIMEOUT)
            .h1_allow_half_closed(!limits.drop_on_hang_up)
            .local_addr(address)
            .finish(map_config(app, |()| AppConfig::default()));
        fn_service(|io: TcpStream| async move {
            let _ = io.set_nodelay(true);
            let peer = io.peer_addr().ok();
            Ok::<_, actix_http::error::DispatchError>((HeadGuard::new(io), Protocol::Http1, peer))
        })
        .and_then(http)
    })?;
    Ok(builder.run())
}
