//! Synthesizable hardware of the engine, written in `rust-hdl` 0.46 beside the golden codec it
//! must match bit for bit.
//!
//! * [`compressor_lane::CompressorLane`]: 32-byte beats in, one encoded 128-byte block out every
//!   4 cycles (ZVC, DBX, BX, ZBX sized in parallel, smallest or raw chosen, bits emitted).
//! * [`gather_stage::GatherStage`] (beats into the stage-1 register, compaction shifts counted
//!   per beat), [`symbol_stage::SymbolStage`] (compaction network, BX values, DBX deltas,
//!   registered) and [`plane_stats::PlaneStats`]: the per-code plane classifier/size counter;
//!   [`zero_runs::ZeroRuns`] its zero-run lengths.
//! * The lane's later stages, one module each: [`size_choice::SizeChoice`] (code sizes and the
//!   choice, registered), [`choice_stage::ChoiceStage`] (the plane-queue load), [`plane_coder::PlaneCoder`] (codes and their bit offsets by
//!   prefix) and [`piece_placer::PiecePlacer`] (codes funnel-shifted and placed by word index).
//! * [`lane_driver::LaneSim`]: cycle-by-cycle driver of the rust-hdl simulation (beats in,
//!   encodings out, cycle counts, optional VCD trace).
//! * [`packer::ChunkPacker`]: coded blocks → FORMAT.md §7 chunks as addressed 32-byte writes.
//! * [`d2h_lane::D2hLane`]: the device-to-host unit (descriptor, beats, lane, packer, writes);
//!   [`d2h_driver::D2hSim`] drives its rust-hdl simulation and builds the host-memory image.
//! * [`compressor_lane_verilog`]: the lane as Verilog with the top module named
//!   [`LANE_MODULE`], for `rtl-gen`, lint and simulator cross-checks.
//!
//! * [`decompressor_lane::DecompressorLane`] (`pz_h2d_lane`): the host-to-device direction,
//!   FORMAT.md chunk stream in as 32-byte beats, the original bytes out as addressed writes,
//!   every FORMAT.md §9 condition on its error output. Its splitter hands the chunks in turn to
//!   [`decompressor_lane::CONTEXTS`] decoding contexts ([`chunk_decoder::ChunkDecoder`], each
//!   behind a [`chunk_fifo::ChunkFifo`]); [`block_rebuild::BlockRebuild`] is a context's
//!   rebuild stage and [`h2d_driver::H2dSim`] drives its simulation, with the latency models
//!   [`h2d_driver::h2d_lane_latency_cycles`] (the lane) and [`h2d_driver::h2d_latency_cycles`]
//!   (one context).
//!
//! * [`engine_top::Engine`] (`pz_engine`): the engine top, [`engine_d2h::EngineD2h`] (two
//!   device-to-host lanes, chunks by parity, each lane's writes held in a
//!   [`write_fifo::WriteFifo`] until the chunk's place in host memory is known) beside
//!   [`engine_h2d::EngineH2d`] (a 64-byte chunk splitter and two host-to-device lanes);
//!   [`engine_driver::EngineSim`] drives its simulation; [`engine_latency`] holds the latency
//!   models per direction.
//!
//! * [`beats`]: the one beat packer and `$readmemh` beat layout; [`verilog`]: the one reader of
//!   exported Verilog (module headers and bodies) and driver of Verilator and Icarus;
//!   [`malformed`]: crafted malformed chunk streams of every FORMAT.md §9 class, shared by the
//!   lane, engine and Verilator tests.
//!
//! Microarchitecture, latency and cost drivers: `docs/HARDWARE.md`.

#[macro_use]
mod hdl_util;
pub mod beats;
pub mod block_rebuild;
pub mod choice_stage;
pub mod chunk_decoder;
pub mod chunk_fifo;
pub mod compressor_lane;
pub mod d2h_driver;
pub mod d2h_lane;
pub mod decompressor_lane;
pub mod engine_d2h;
pub mod engine_driver;
pub mod engine_h2d;
pub mod engine_latency;
pub mod engine_top;
pub mod gather_stage;
pub mod h2d_driver;
pub mod h2d_latency;
pub mod lane_driver;
pub mod malformed;
pub mod packer;
pub mod piece_placer;
pub mod plane_coder;
pub mod plane_stats;
pub mod size_choice;
pub mod symbol_stage;
pub mod verilog;
pub mod write_fifo;
pub mod zero_runs;

pub use compressor_lane::CompressorLane;
pub use decompressor_lane::DecompressorLane;
pub use h2d_driver::{H2dSim, h2d_lane_latency_cycles, h2d_latency_cycles};
pub use lane_driver::{LaneBlock, LaneSim};

/// The shared field builders, for blocks that import them as `super::{arr, constants, d}`.
use hdl_util::{arr, constants, d};

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

/// Name of the exported device-to-host unit's top module.
pub const D2H_MODULE: &str = "pz_d2h_lane";

/// The device-to-host unit ([`d2h_lane::D2hLane`]) as Verilog, top module [`D2H_MODULE`].
pub fn d2h_lane_verilog() -> String {
    let mut top = d2h_lane::D2hLane::default();
    top.connect_all();
    rename_top(&generate_verilog(&top), D2H_MODULE)
}

/// Name of the exported engine top's module.
pub const ENGINE_MODULE: &str = "pz_engine";

/// The engine top ([`engine_top::Engine`]) as Verilog, top module [`ENGINE_MODULE`].
pub fn engine_verilog() -> String {
    // Built on a thread of its own: four lanes' worth of fields overflow a main thread's 8 MiB
    // stack (a build script's, a binary's) while `Default` builds them in place.
    std::thread::Builder::new()
        .stack_size(ENGINE_BUILD_STACK_BYTES)
        .spawn(|| {
            let mut top = Box::new(engine_top::Engine::default());
            top.connect_all();
            rename_top(&generate_verilog(top.as_ref()), ENGINE_MODULE)
        })
        .expect("spawn the engine builder")
        .join()
        .expect("export the engine's Verilog")
}

/// Stack of a thread that builds `pz_engine`'s rust-hdl model (export and simulation).
pub(crate) const ENGINE_BUILD_STACK_BYTES: usize = 512 << 20;

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
