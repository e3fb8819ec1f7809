//! Placeholder until the server lands.
fn main() {}
