//! The project's one reader of exported Verilog text and its one driver of the HDL tools:
//! module headers and bodies ([`module_names`], [`module_bodies`], [`split_modules`]),
//! `verilator --lint-only` ([`lint`]), the Verilator C++ model build ([`build_verilated`],
//! [`build_verilated_with`]) and an Icarus run ([`run_icarus`]).
//!
//! It lives in `engine` because that is the lowest crate every user reaches: the engine's own
//! Verilog tests, `rtl-gen` (which re-exports the parser for `area-model`) and
//! `cocotb-free-tests` all depend on it, and none of them on each other in that direction.
//!
//! The parser reads the Verilog rust-hdl writes (one `module name(...)` header per line, a line
//! starting with `endmodule` closing it); it is not a general Verilog parser.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the HDL tools come from, for error messages.
pub const INSTALL_HINT: &str = "scripts/install-area-tools.sh installs it";

/// What went wrong reading Verilog text or running an HDL tool.
#[derive(Debug, thiserror::Error)]
pub enum VerilogError {
    /// A `module` header inside another module's body.
    #[error("module {inner} opens inside module {outer} (nested module)")]
    Nested {
        /// The module still open.
        outer: String,
        /// The module that opened inside it.
        inner: String,
    },
    /// An `endmodule` with no module open.
    #[error("endmodule without module at line {line}")]
    EndWithoutModule {
        /// 1-based line of the `endmodule`.
        line: usize,
    },
    /// The text ends inside a module.
    #[error("unterminated module {module}")]
    Unterminated {
        /// The module left open.
        module: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A tool could not be started.
    #[error("cannot run {tool} ({INSTALL_HINT}): {source}")]
    Tool {
        /// The program.
        tool: &'static str,
        /// The error.
        source: std::io::Error,
    },
    /// A tool ran and failed.
    #[error("{tool} failed:\n{log}")]
    Failed {
        /// The program.
        tool: &'static str,
        /// Its standard error.
        log: String,
    },
}

/// Result of this module's functions.
pub type Result<T> = std::result::Result<T, VerilogError>;

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> VerilogError + '_ {
    move |source| VerilogError::Io { path: path.to_path_buf(), source }
}

/// The module name a `module name(...)` header line declares, or `None` for any other line.
pub fn module_header(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("module ")?;
    Some(rest.split(['(', ' ', ';']).next().unwrap_or(""))
}

/// Names of the modules declared in `verilog`, in order.
pub fn module_names(verilog: &str) -> Vec<String> {
    verilog.lines().filter_map(module_header).map(str::to_string).collect()
}

/// `(module name, text from the module line to its endmodule line inclusive)` for each module of
/// `verilog`, in order; errors on a nested, unopened or unterminated module.
pub fn module_bodies(verilog: &str) -> Result<Vec<(String, &str)>> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize)> = None;
    let mut offset = 0;
    for (index, line) in verilog.split_inclusive('\n').enumerate() {
        if let Some(name) = module_header(line) {
            if let Some((outer, _)) = open {
                return Err(VerilogError::Nested { outer, inner: name.to_string() });
            }
            open = Some((name.to_string(), offset));
        } else if line.trim_start().starts_with("endmodule") {
            let (name, start) = open.take().ok_or(VerilogError::EndWithoutModule { line: index + 1 })?;
            out.push((name, &verilog[start..offset + line.len()]));
        }
        offset += line.len();
    }
    match open {
        Some((module, _)) => Err(VerilogError::Unterminated { module }),
        None => Ok(out),
    }
}

/// Writes each module of `verilog` to `<dir>/<module>.v` (the layout Verilator's DECLFILENAME
/// rule wants), creating `dir`, and returns the paths in module order.
pub fn split_modules(verilog: &str, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    module_bodies(verilog)?
        .into_iter()
        .map(|(name, text)| {
            let path = dir.join(format!("{name}.v"));
            std::fs::write(&path, text).map_err(io_error(&path))?;
            Ok(path)
        })
        .collect()
}

/// Runs `program` with `args`, mapping a failure to start it to [`VerilogError::Tool`].
fn run(program: &'static str, cmd: &mut Command) -> Result<std::process::Output> {
    cmd.output().map_err(|source| VerilogError::Tool { tool: program, source })
}

/// Files above which [`lint_findings`] hands Verilator a file list rather than arguments.
const MAX_COMMAND_LINE_FILES: usize = 1000;

/// Every warning and error line (`%Warning-…`, `%Error…`) of `verilator --lint-only -Wall` on
/// `files` with top module `top`, `WIDTH` included; errors if Verilator cannot run, or fails
/// without reporting any. [`lint`] and rtl-gen's per-module lint report sort these lines.
pub fn lint_findings(files: &[PathBuf], top: &str) -> Result<Vec<String>> {
    let mut cmd = Command::new("verilator");
    cmd.args(["--lint-only", "-Wall", "-Wno-fatal", "--top-module", top]);
    // A top split into thousands of module files (the engine: over 6,000) exceeds the
    // command-line limit: name them in a file list beside them instead.
    match files.first().and_then(|f| f.parent()) {
        Some(dir) if files.len() > MAX_COMMAND_LINE_FILES => {
            let list = dir.join(format!("{top}.lint.f"));
            let text: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
            std::fs::write(&list, text).map_err(io_error(&list))?;
            cmd.arg("-f").arg(&list);
        }
        _ => {
            cmd.args(files);
        }
    }
    let out = run("verilator", &mut cmd)?;
    let log = String::from_utf8_lossy(&out.stderr);
    let found: Vec<String> =
        log.lines().filter(|l| l.starts_with("%Warning-") || l.starts_with("%Error")).map(str::to_string).collect();
    if !out.status.success() && found.is_empty() {
        return Err(VerilogError::Failed { tool: "verilator", log: log.into_owned() });
    }
    Ok(found)
}

/// `verilator --lint-only -Wall` of `files` with top module `top`. Returns the warnings and
/// errors that are not `WIDTH` (rust-hdl's literal style gives many WIDTH warnings and nothing
/// else on correct code); errors as [`lint_findings`] does.
pub fn lint(files: &[PathBuf], top: &str) -> Result<Vec<String>> {
    Ok(lint_findings(files, top)?.into_iter().filter(|l| !l.starts_with("%Warning-WIDTH")).collect())
}

/// Builds the Verilator C++ model of top module `top` from `sources` (Verilog files and the C++
/// driver with its `main`) into `work/obj/<exe>` with `verilator --cc --exe --build`;
/// `includes` are the files the driver `#include`s from its own directory (not given to
/// Verilator, but part of the build). Reuses an earlier build there when every source and include
/// is unchanged (a stamp of their file names, lengths and hashes: not their directories, so that
/// the same Verilog exported into another profile's build folder reuses the model). Returns the
/// executable and the build's wall-clock seconds (0 when reused). The generated C++ is compiled
/// with Verilator's own flags (`-Os`); [`build_verilated_with`] takes others.
pub fn build_verilated(work: &Path, sources: &[PathBuf], includes: &[PathBuf], top: &str, exe: &str) -> Result<(PathBuf, f64)> {
    build_verilated_with(work, sources, includes, top, exe, &[])
}

/// [`build_verilated`] with more Verilator arguments `extra_args`, e.g. `--output-split 100000`
/// or `-MAKEFLAGS OPT_FAST=-O1` (a variable for the make of the generated C++): a model of
/// millions of lines builds in about half the CPU time and simulates faster with both
/// (docs/HARDWARE.md, "The engine top under Verilator"). They are part of the build stamp.
pub fn build_verilated_with(work: &Path, sources: &[PathBuf], includes: &[PathBuf], top: &str, exe: &str, extra_args: &[&str]) -> Result<(PathBuf, f64)> {
    let mut stamp = String::new();
    for s in sources.iter().chain(includes) {
        let text = std::fs::read(s).map_err(io_error(s))?;
        let name = s.file_name().unwrap_or(s.as_os_str()).to_string_lossy();
        stamp.push_str(&format!("{name} {} {:016x}\n", text.len(), fnv1a(&text)));
    }
    if !extra_args.is_empty() {
        stamp.push_str(&format!("args {}\n", extra_args.join(" ")));
    }
    let exe_path = work.join("obj").join(exe);
    let stamp_path = work.join("stamp");
    if exe_path.exists() && std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return Ok((exe_path, 0.0));
    }
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work).map_err(io_error(work))?;
    let t = std::time::Instant::now();
    let mut cmd = Command::new("verilator");
    cmd.args(["--cc", "--exe", "--build", "-O1", "-j", "2", "-Wno-fatal", "-Wno-lint", "-Wno-style"]);
    cmd.args(extra_args);
    cmd.args(["--top-module", top, "-o", exe, "--Mdir"]).arg(work.join("obj")).args(sources);
    let out = run("verilator", &mut cmd)?;
    if !out.status.success() {
        return Err(VerilogError::Failed { tool: "verilator", log: String::from_utf8_lossy(&out.stderr).into_owned() });
    }
    std::fs::write(&stamp_path, stamp).map_err(io_error(&stamp_path))?;
    Ok((exe_path, t.elapsed().as_secs_f64()))
}

/// FNV-1a, 64-bit: the build stamp's content hash (no cryptographic claim needed).
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Compiles `sources` (a testbench first, then the design) with `iverilog -g2005` into
/// `dir/sim` and runs it with `vvp -n` in `dir` (where its `$readmemh` files lie); returns its
/// standard output.
pub fn run_icarus(dir: &Path, sources: &[PathBuf]) -> Result<String> {
    let sim = dir.join("sim");
    let build = run("iverilog", Command::new("iverilog").args(["-g2005", "-o"]).arg(&sim).args(sources))?;
    if !build.status.success() {
        return Err(VerilogError::Failed { tool: "iverilog", log: String::from_utf8_lossy(&build.stderr).into_owned() });
    }
    let out = run("vvp", Command::new("vvp").arg("-n").arg(&sim).current_dir(dir))?;
    if !out.status.success() {
        return Err(VerilogError::Failed { tool: "vvp", log: String::from_utf8_lossy(&out.stderr).into_owned() });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_split_at_headers_and_endmodules() {
        let v = "// x\nmodule a(p);\n  wire q;\nendmodule // a\nmodule a$b (r);\nendmodule\n";
        let bodies = module_bodies(v).unwrap();
        assert_eq!(bodies, vec![
            ("a".to_string(), "module a(p);\n  wire q;\nendmodule // a\n"),
            ("a$b".to_string(), "module a$b (r);\nendmodule\n"),
        ]);
        assert_eq!(module_names(v), ["a", "a$b"]);
    }

    #[test]
    fn malformed_nesting_is_an_error() {
        assert!(matches!(module_bodies("module a;\nmodule b;\nendmodule\n"), Err(VerilogError::Nested { .. })));
        assert!(matches!(module_bodies("wire x;\nendmodule\n"), Err(VerilogError::EndWithoutModule { line: 2 })));
        let e = module_bodies("module a(x);\n").unwrap_err();
        assert_eq!(e.to_string(), "unterminated module a");
    }
}
