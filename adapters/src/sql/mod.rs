//! The SQL both stores run, written once: the tables, the rows read back, every shared
//! query, and the ports both stores implement alike (through [`both_stores`]).
//!
//! A query is an async function generic over the connection `C`. Its `where` clause names
//! the statement it runs, `Statement: QueryFragment<C::Backend>`, and for a read also the
//! rows it loads (`C::Backend: QueryMetadata<Sql>`, `Row: FromSqlRow<Sql, C::Backend>`);
//! each store's call proves them for its backend. Never `LoadQuery` there: its `'query`
//! lifetime ties the bound to the statement's borrows, and the compiler then cannot prove
//! the port's future `Send` (rust-lang/rust#100013). Statements on the request path keep
//! static query ids, so MySQL prepares each once per connection.
//!
//! What differs stays in the store: how an insert learns its id
//! ([`connection::SqlConnection`]), which texts mean which error ([`classify::Classify`]),
//! transactions, deadlines, purge, pools and migrations. An operation's own SQL is beside
//! its route (`crate::orders`, `crate::payments`).

pub(crate) mod bad_value;
pub(crate) mod both_stores;
pub(crate) mod classify;
mod complete_record;
pub(crate) mod connection;
pub(crate) mod due_operations;
pub(crate) mod inbox;
mod operation_store;
pub(crate) mod operations;
pub(crate) mod outbox;
mod readiness;
pub(crate) mod records;
pub(crate) mod returning_id;
pub(crate) mod rows;
pub(crate) mod schema;
pub(crate) mod tx_connection;
