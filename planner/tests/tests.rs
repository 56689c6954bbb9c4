//! The planner's integration tests, one module per concern.

mod common;
mod schedules;
mod trace_load;
