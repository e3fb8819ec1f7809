//! The on-call page (`docs/admin.md#the-on-call-page`): server-rendered HTML under
//! `/admin/` over the very use cases, scoping and token checks of the admin API, served
//! only when the server is started with `ADMIN_UI=1`. No JavaScript: every page is a plain
//! document, every change a form checked for its CSRF token and its origin (the page's
//! configured public origin), behind a page that says what it will do.

mod act;
mod act_form;
mod audit;
mod change;
mod csrf;
mod evict;
mod filter_query;
mod headers;
mod home;
mod keys;
mod layout;
mod operation;
mod operations;
mod origin;
mod public_origin;
mod routes;
mod session;
mod sign_in;
mod signed;

pub use csrf::CsrfKey;
pub use public_origin::{PublicOrigin, PublicOriginError};
pub use routes::routes;
