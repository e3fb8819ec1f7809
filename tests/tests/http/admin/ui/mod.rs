//! The on-call page (`docs/admin.md#the-on-call-page`): in headless Chromium, what an
//! operator sees and what a tenant admin does not (`pages`); over plain HTTP, the CSRF and
//! origin checks, the security headers and the switch (`guards`); resolving from the page,
//! behind its confirmation (`resolve`).

mod browser;
mod guards;
mod pages;
mod resolve;
