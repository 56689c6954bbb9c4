//! Plans and the planners that build them.

mod decision;

pub use decision::{Decision, Plan};
