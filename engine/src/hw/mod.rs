//! Synthesizable hardware of the engine, written in `rust-hdl` 0.46 beside the golden codec it
//! must match bit for bit.
//!
//! * [`compressor_lane::CompressorLane`]: 32-byte beats in, one encoded 128-byte block out every
//!   4 cycles (ZVC, DBX, BX, ZBX sized in parallel, smallest or raw chosen, bits emitted).
//! * [`compactor::Compactor`] and [`plane_stats::PlaneStats`]: its compaction network and the
//!   per-code plane classifier/size counter.
//! * [`lane_driver::LaneSim`]: cycle-by-cycle driver of the rust-hdl simulation (beats in,
//!   encodings out, cycle counts, optional VCD trace).
//! * [`compressor_lane_verilog`]: the lane as Verilog with the top module named
//!   [`LANE_MODULE`], for `rtl-gen`, lint and simulator cross-checks.
//!
//! * [`decompressor_lane::DecompressorLane`] (`pz_h2d_lane`): the host-to-device direction,
//!   FORMAT.md chunk stream in as 32-byte beats, the original bytes out as addressed writes,
//!   every FORMAT.md §9 condition on its error output; [`block_rebuild::BlockRebuild`] is its
//!   rebuild stage and [`h2d_driver::H2dSim`] drives its simulation, with the latency model
//!   [`h2d_driver::h2d_latency_cycles`].
//!
//! Microarchitecture, latency and cost drivers: `docs/HARDWARE.md`.

/// Declares a logic block and a `Default` that builds every field with the given expression.
macro_rules! hw_block {
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $( $(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty = $init:expr ),* $(,)?
    }) => {
        $(#[$m])* $vis struct $name { $( $(#[$fm])* $fvis $field : $ty ),* }
        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $init ),* }
            }
        }
    };
}

pub mod block_rebuild;
pub mod compactor;
pub mod compressor_lane;
pub mod decompressor_lane;
pub mod h2d_driver;
pub mod lane_driver;
pub mod plane_stats;

pub use compressor_lane::CompressorLane;
pub use decompressor_lane::DecompressorLane;
pub use h2d_driver::{H2dSim, h2d_latency_cycles};
pub use lane_driver::{LaneBlock, LaneSim};

/// A default value (shorthand in the `hw_block!` field lists).
fn d<T: Default>() -> T {
    T::default()
}

/// An array of default values.
fn arr<T: Default, const N: usize>() -> [T; N] {
    std::array::from_fn(|_| T::default())
}

/// Constants `0, step, 2·step, …` (index comparisons must be against signals in `hdl_gen`).
fn constants<const W: usize, const N: usize>(step: u64) -> [rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<W>>; N] {
    std::array::from_fn(|k| rust_hdl::prelude::Constant::new((k as u64 * step).into()))
}

/// Name of the exported host-to-device lane's top module.
pub const H2D_MODULE: &str = "pz_h2d_lane";

/// The host-to-device lane as Verilog, top module [`H2D_MODULE`], sub-modules prefixed with it.
pub fn h2d_lane_verilog() -> String {
    let mut lane = DecompressorLane::default();
    lane.connect_all();
    rename_top(&generate_verilog(&lane), H2D_MODULE)
}

use rust_hdl::prelude::{Block, generate_verilog};

/// Name of the exported lane's top module (rust-hdl names every top `top`; all of the lane's
/// modules get this prefix instead, so several exported blocks can share one netlist).
pub const LANE_MODULE: &str = "pz_compressor_lane";

/// The compressor lane as Verilog, top module [`LANE_MODULE`], sub-modules prefixed with it.
pub fn compressor_lane_verilog() -> String {
    let mut lane = CompressorLane::default();
    lane.connect_all();
    rename_top(&generate_verilog(&lane), LANE_MODULE)
}

/// Replaces rust-hdl's `top` module-name prefix with `name` in every module declaration and
/// instantiation (rust-hdl names sub-modules `top$…`).
fn rename_top(verilog: &str, name: &str) -> String {
    verilog
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let indent = &line[..line.len() - trimmed.len()];
            if let Some(rest) = trimmed.strip_prefix("module top") {
                format!("{indent}module {name}{rest}")
            } else if let Some(rest) = trimmed.strip_prefix("top$") {
                format!("{indent}{name}${rest}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_renames_every_rust_hdl_top_module() {
        let v = compressor_lane_verilog();
        assert!(v.contains(&format!("module {LANE_MODULE}(")), "top module not renamed");
        assert!(!v.contains("module top"), "a module kept rust-hdl's `top` name");
    }
}
