//! Exports every top's Verilog (and its ANSI wrapper) into OUT_DIR/rtl through `rtl-gen`, so the
//! tests run the Verilog of the current source; generated Verilog is never committed.

fn main() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("rtl");
    rtl_gen::generate(&out).expect("export the tops' Verilog");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../engine/src/hw");
    println!("cargo:rerun-if-changed=../rtl-gen/src");
}
