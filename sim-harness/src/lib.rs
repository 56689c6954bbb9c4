//! Library side of the `sim-harness` program: everything `main.rs` dispatches to, kept in a
//! library so integration tests can call it directly.

pub mod dump;
