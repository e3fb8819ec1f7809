//! The commands that do more than read the configuration: `serve`, `worker`, `token`, `admin`.

pub(crate) mod admin;
pub(crate) mod serve;
pub(crate) mod token;
pub(crate) mod try_it;
pub(crate) mod worker;
