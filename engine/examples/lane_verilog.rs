//! Writes the compressor lane's Verilog (top module `pz_compressor_lane`) to a file or stdout:
//! `cargo run --release -p engine --example lane_verilog -- out/pz_compressor_lane.v`.
//! Generated Verilog is a build output; it is not committed.

fn main() -> std::io::Result<()> {
    let verilog = engine::hw::compressor_lane_verilog();
    match std::env::args().nth(1) {
        Some(path) => {
            if let Some(dir) = std::path::Path::new(&path).parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, &verilog)?;
            eprintln!("wrote {} lines of Verilog to {path}", verilog.lines().count());
        }
        None => print!("{verilog}"),
    }
    Ok(())
}
