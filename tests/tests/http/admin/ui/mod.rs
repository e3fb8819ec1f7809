//! The on-call page (`docs/admin.md#the-on-call-page`): in headless Chromium, what an
//! operator sees and what a tenant admin does not (`pages`); over plain HTTP, the CSRF and
//! origin checks, the security headers and the switch (`guards`), the origin against the
//! configured public origin (`origins`); resolving (`resolve`), retrying and cancelling
//! (`retry_cancel`, and over plain HTTP `action_guards`) behind their confirmation;
//! looking up and evicting an idempotency key (`keys`); every confirmation refused to a
//! token without `admin:write` (`write_only`).

mod action_guards;
mod browser;
mod guards;
mod keys;
mod origins;
mod pages;
mod resolve;
mod retry_cancel;
mod write_only;
