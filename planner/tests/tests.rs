//! The planner's integration tests, one module per concern.

mod common;
mod faults;
mod plans;
mod schedules;
mod properties;
mod trace_load;
