//! The admin surface over HTTP and from the command line (`docs/admin.md`): permissions,
//! tenants, the actions and their refusals, keys, the audit trail. No provider runs here,
//! so a capture stays `pending` until an operator acts; the worker's side is proven in
//! the `payments` suite.

mod actions;
mod cli;
mod keys;
mod order_rules;
mod refunds;
mod refusals;
mod support;
mod ui;
