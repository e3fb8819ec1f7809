//! The admin routes under `/api/admin`, listed with every route in `crate::api`.

mod answer;
mod body;
pub(crate) mod checks;
pub(crate) mod operation_routes;
mod params;
mod problems;
mod query;
pub(crate) mod record_routes;
mod schemas;
mod strict_query;

pub use query::{OperationsQuery, audit_query, key_query, operations_query};
pub use strict_query::BadParameters;
