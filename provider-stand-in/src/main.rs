//! A payment provider for the tests: one charge or refund per idempotency key, and faults a test
//! turns on over `/control` (`docs/long-running-operations.md#the-payment-provider`).
//! Prints one line, `listening on http://ADDR`, to stdout once bound, so a test can use port 0.

mod controls;
mod ledger;
mod routes;
mod state;

use std::io::{IsTerminal as _, Write as _};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Parser;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::ledger::Ledger;
use crate::state::State;

#[derive(Debug, Parser)]
#[command(version, about = "A payment provider stand-in for tests")]
struct Args {
    /// Where to listen; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Keep the charges and refunds in this JSON file too (loaded at start), so a restarted stand-in
    /// still knows them, as a real provider would.
    #[arg(long)]
    state_file: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let args = Args::parse();
    let ledger = Ledger::open(args.state_file).await?;
    let state = Arc::new(State::new(ledger));
    let listener = TcpListener::bind(args.listen).await?;
    let address = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{address}")?;
        stdout.flush()?;
    }
    tracing::info!(%address, "provider stand-in listening");
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors and the like: the next accept may work.
                tracing::warn!(error = %e, "accept failed");
                continue;
            }
        };
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let service = service_fn(move |request| routes::handle(Arc::clone(&state), request));
            // An error here is also how a charge "drops the connection": the handler
            // returned `Err`, so hyper closed the connection without an answer.
            if let Err(e) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!(%peer, error = %e, "connection closed");
            }
        });
    }
}
