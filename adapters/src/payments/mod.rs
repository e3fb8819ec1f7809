//! Payments over HTTP and SQL: the capture's acceptance, its payment row, its route. What
//! every leased operation shares (worker SQL, status read) is in `crate::leased`.

mod capture;
