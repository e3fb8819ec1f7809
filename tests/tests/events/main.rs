//! `docs/events.md` end to end: real MariaDB, a real nats-server, the real `server`
//! processes (`serve` relaying, `relay`, `consume shipments`), killed by PID where a
//! scenario says so. Every scenario counts separately outbox rows, publish attempts,
//! messages in the stream and shipments, and ends with: orders = events, every event
//! published, shipments = orders, never two shipments for one order.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod cancel_storm;
mod cluster;
mod crashes;
mod ignored;
mod normal;
mod ordering;
mod outage;
mod payments;
mod support;
