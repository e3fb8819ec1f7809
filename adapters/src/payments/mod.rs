//! Payments over HTTP and SQL: the capture's and the refund's acceptance, their rows, their
//! routes. What every leased operation shares (worker SQL, status read) is in
//! `crate::leased`.

mod capture;
mod refund;
