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
    /// Inspect and change operations and idempotency records directly in the database, for
    /// when the HTTP side is down. Prints the same JSON as /api/admin; every change is
    /// written to the audit trail under --operator.
    Admin(AdminArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct AdminArgs {
    /// Who you are (e.g. an e-mail address): named in the audit row of every change.
    /// Required; it may come before or after the subcommand.
    #[arg(long, global = true)]
    pub(crate) operator: Option<String>,
    #[command(subcommand)]
    pub(crate) command: AdminCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum AdminCommand {
    /// Long-running operations (payment captures).
    Operations {
        #[command(subcommand)]
        command: OperationsCommand,
    },
    /// Idempotency records.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// The audit trail, newest first.
    Audit(PageArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct PageArgs {
    /// The nextCursor of the page before.
    #[arg(long)]
    pub(crate) cursor: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    #[arg(long)]
    pub(crate) limit: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum OperationsCommand {
    /// List operations, newest first.
    List {
        /// pending, succeeded, declined, needs_review or cancelled.
        #[arg(long)]
        state: Option<String>,
        /// The operation type, e.g. payments.capture.v1.
        #[arg(long = "type")]
        operation_type: Option<String>,
        #[arg(long)]
        tenant: Option<String>,
        /// Accepted strictly before this RFC 3339 date-time.
        #[arg(long)]
        accepted_before: Option<String>,
        /// Accepted at or after this RFC 3339 date-time.
        #[arg(long)]
        accepted_after: Option<String>,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show one operation.
    Show { id: String },
    /// Resolve an operation needing review, after checking the provider.
    Resolve {
        id: String,
        /// The provider charged: record the payment with --charge.
        #[arg(long, requires = "charge", conflicts_with = "declined")]
        succeeded: bool,
        /// The provider did not charge: the order may be captured again.
        #[arg(long, required_unless_present = "succeeded")]
        declined: bool,
        /// The provider's charge id, with --succeeded.
        #[arg(long)]
        charge: Option<String>,
    },
    /// Run an operation needing review again, under the same downstream key.
    Retry { id: String },
    /// Cancel a pending operation that no worker holds.
    Cancel { id: String },
}

#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Show an idempotency record's metadata (never its stored body).
    Show(KeyArgs),
    /// Evict a completed record before it expires: the client may use the key again.
    Evict(KeyArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct KeyArgs {
    #[arg(long)]
    pub(crate) tenant: String,
    #[arg(long)]
    pub(crate) actor: String,
    /// e.g. orders.create.v1.
    #[arg(long)]
    pub(crate) operation: String,
    /// The Idempotency-Key.
    #[arg(long)]
    pub(crate) key: String,
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
