//! The command line. The doc comments of commands and arguments are the `--help` text.

use clap::{Parser, Subcommand};

/// The idempotent order service. Configuration comes from the environment (see README).
#[derive(Debug, Parser)]
#[command(version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Migrate the database, then serve HTTP until SIGTERM or Ctrl-C (the default).
    Serve,
    /// Apply pending migrations and exit.
    Migrate,
    /// Delete expired completed idempotency records and events published before the
    /// retention once, in bounded batches, and exit.
    Purge,
    /// Migrate, then relay pending events from the outbox to NATS JetStream (NATS_URL)
    /// until SIGTERM or Ctrl-C. Every `serve` process also relays when NATS_URL is set.
    Relay,
    /// Migrate, then run one of the shipped event consumers until SIGTERM or Ctrl-C.
    Consume {
        /// Which consumer.
        #[arg(value_enum)]
        consumer: ConsumerName,
    },
    /// Migrate, then carry out accepted payment captures with the provider at
    /// PAYMENT_PROVIDER_URL (required) until SIGTERM or Ctrl-C. Every `serve` process also
    /// runs these workers when PAYMENT_PROVIDER_URL is set.
    Worker,
    /// Print a bearer token signed with AUTH_JWT_SECRET (for local use and tests).
    Token(TokenArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ConsumerName {
    /// One `REQUESTED` shipment per created order (table `shipments`).
    Shipments,
}

#[derive(Debug, clap::Args)]
pub(crate) struct TokenArgs {
    /// The tenant id (`tid`), a positive integer.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=i64::MAX.unsigned_abs()))]
    pub(crate) tenant: u64,
    /// The actor id (`sub`), a positive integer.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=i64::MAX.unsigned_abs()))]
    pub(crate) actor: u64,
    /// Space-separated permissions, e.g. "orders:create orders:read".
    #[arg(long)]
    pub(crate) scope: String,
    /// Seconds until the token expires.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub(crate) ttl: u64,
}
