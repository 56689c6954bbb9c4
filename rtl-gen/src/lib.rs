//! RTL generation for PlaneZip: every synthesizable top of `engine::hw` as a Verilog file whose
//! modules all carry the top's name as prefix (so several tops load into one Yosys or Verilator
//! run), an ANSI wrapper per top with packed ports (rust-hdl emits non-ANSI ports named like
//! `beat_data$0`, which marlin and most C++ harnesses cannot bind), and a JSON manifest of ports
//! and widths. `cargo run -p rtl-gen -- --out DIR` writes them and lints each with Verilator.
//!
//! A new top (packer, decompressor lane, engine top) joins the flow by adding one entry to
//! [`TOPS`].

use anyhow::{Context, Result, bail, ensure};
use serde::Serialize;
use std::path::Path;

/// One exported top: its module name and the `engine` function that returns its Verilog.
pub struct TopSpec {
    /// Top module name; every module of the top's Verilog starts with it.
    pub name: &'static str,
    /// What the top is, for the manifest.
    pub description: &'static str,
    /// The export function in `engine`.
    pub verilog: fn() -> String,
}

/// Every top that exists. Add one entry per new top.
pub const TOPS: &[TopSpec] = &[
    TopSpec {
        name: engine::hw::LANE_MODULE,
        description: "compressor lane: 32-byte beats in, one encoded 128-byte block out every 4 cycles; symbol width (16/32 bit) per transfer",
        verilog: engine::hw::compressor_lane_verilog,
    },
    TopSpec {
        name: engine::hw::D2H_MODULE,
        description: "device-to-host unit: a descriptor and 32-byte beats per transfer in, its FORMAT.md chunk stream out as addressed 32-byte writes, done with its wire bytes",
        verilog: engine::hw::d2h_lane_verilog,
    },
    TopSpec {
        name: engine::hw::H2D_MODULE,
        description: "host-to-device lane: FORMAT.md chunk stream in as 32-byte beats, the original bytes out as addressed 32-byte writes; every FORMAT.md §9 condition on the error output",
        verilog: engine::hw::h2d_lane_verilog,
    },
    TopSpec {
        name: engine::hw::ENGINE_MODULE,
        description: "engine top: two device-to-host lanes (descriptor, two 32-byte beat ports, the FORMAT.md stream written to host memory by two addressed write ports, done with the wire bytes) beside two host-to-device lanes (the stream in as 64-byte beats, the original bytes out by two write ports, FORMAT.md §9 errors)",
        verilog: engine::hw::engine_verilog,
    },
];

/// Direction of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    /// Input port.
    Input,
    /// Output port.
    Output,
}

/// A port of the wrapper: rust-hdl's array ports `name$0 … name$(n-1)` (each `elem_bits` wide)
/// are packed into one vector of `n · elem_bits` bits, element `k` in bits
/// `[k·elem_bits + elem_bits − 1 : k·elem_bits]`; scalar ports have `elems` = 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Port {
    /// Port name (without rust-hdl's `$k` suffix).
    pub name: String,
    /// Direction.
    pub dir: Dir,
    /// Width of one element in bits.
    pub elem_bits: u32,
    /// Number of elements (1 for a scalar port).
    pub elems: u32,
    /// Total width in bits (`elem_bits · elems`), the width of the wrapper's packed port.
    pub bits: u32,
    /// Whether the top declares it as an array (`name$0 …`), even of one element.
    pub array: bool,
}

/// Manifest entry of one top.
#[derive(Clone, Debug, Serialize)]
pub struct TopManifest {
    /// Top module name (the module in `file`).
    pub top: String,
    /// ANSI wrapper module name (the module in `wrapper_file`).
    pub wrapper: String,
    /// What the top is.
    pub description: String,
    /// Verilog file of the top (relative to the output directory).
    pub file: String,
    /// Verilog file of the wrapper (relative to the output directory).
    pub wrapper_file: String,
    /// Number of modules in `file`.
    pub modules: usize,
    /// The wrapper's ports, in declaration order.
    pub ports: Vec<Port>,
}

/// Name of the file list [`generate`] writes for `top` (its Verilog, then its wrapper, one path
/// per line, relative to the output directory).
pub fn file_list_name(top: &str) -> String {
    format!("{top}.f")
}

/// Name of the ANSI wrapper of `top`.
pub fn wrapper_name(top: &str) -> String {
    format!("{top}_ansi")
}

/// The project's one Verilog module reader (see [`engine::hw::verilog`] for why it lives there),
/// re-exported for `area-model` and this crate's users.
pub use engine::hw::verilog::{module_bodies, module_names, split_modules};

/// Checks that every module in `verilog` is `top` or starts with `top$`, and that `top` exists.
pub fn check_prefixed(verilog: &str, top: &str) -> Result<usize> {
    let names = module_names(verilog);
    ensure!(names.iter().any(|n| n == top), "no module named {top}");
    let prefix = format!("{top}$");
    if let Some(bad) = names.iter().find(|n| *n != top && !n.starts_with(&prefix)) {
        bail!("module {bad} is not prefixed with {top}");
    }
    Ok(names.len())
}

/// Parses the port declarations (`input wire [h:l] name;`, `output reg name;`) of module `top`
/// and groups rust-hdl's array ports `name$k` into packed [`Port`]s, in declaration order.
pub fn parse_ports(verilog: &str, top: &str) -> Result<Vec<Port>> {
    let head = format!("module {top}(");
    let start = verilog.find(&head).with_context(|| format!("module {top} not found"))?;
    let body = &verilog[start..];
    let body = &body[..body.find("endmodule").context("module without endmodule")?];
    let mut ports: Vec<Port> = Vec::new();
    for line in body.lines() {
        let t = line.trim();
        let (dir, rest) = if let Some(r) = t.strip_prefix("input ") {
            (Dir::Input, r)
        } else if let Some(r) = t.strip_prefix("output ") {
            (Dir::Output, r)
        } else {
            continue;
        };
        let rest = rest.trim_start_matches("wire").trim_start_matches("reg").trim().trim_end_matches(';').trim();
        let (bits, name) = match rest.strip_prefix('[') {
            Some(r) => {
                let (range, name) = r.split_once(']').context("unterminated range")?;
                let (hi, lo) = range.split_once(':').context("range without ':'")?;
                let (hi, lo): (u32, u32) = (hi.trim().parse()?, lo.trim().parse()?);
                ensure!(lo == 0, "port range [{hi}:{lo}] does not end at 0");
                (hi + 1, name.trim())
            }
            None => (1, rest),
        };
        let (base, index) = match name.split_once('$') {
            Some((b, k)) => (b, Some(k.parse::<u32>().with_context(|| format!("port {name}"))?)),
            None => (name, None),
        };
        match (index, ports.last_mut()) {
            (Some(k), Some(p)) if k > 0 && p.name == base => {
                ensure!(k == p.elems && p.dir == dir && p.elem_bits == bits, "array port {name} out of order or ragged");
                p.elems += 1;
                p.bits += bits;
            }
            (Some(k), _) if k > 0 => bail!("array port {name} without element 0"),
            _ => ports.push(Port { name: base.to_string(), dir, elem_bits: bits, elems: 1, bits, array: index.is_some() }),
        }
    }
    ensure!(!ports.is_empty(), "module {top} has no ports");
    Ok(ports)
}

fn range(bits: u32) -> String {
    if bits == 1 { String::new() } else { format!("[{}:0] ", bits - 1) }
}

/// The ANSI wrapper of `top`: module [`wrapper_name`] with the packed `ports`, instantiating `top`
/// and wiring element `k` of each array port to `name$k` (`$` is legal inside a Verilog name).
pub fn ansi_wrapper(top: &str, ports: &[Port]) -> String {
    let mut v = format!("// ANSI wrapper of {top} with packed ports (generated by rtl-gen)\nmodule {}(\n", wrapper_name(top));
    let decls: Vec<String> = ports
        .iter()
        .map(|p| format!("    {} wire {}{}", if p.dir == Dir::Input { "input" } else { "output" }, range(p.bits), p.name))
        .collect();
    v.push_str(&decls.join(",\n"));
    v.push_str("\n);\n");
    let mut conns = Vec::new();
    for p in ports {
        if !p.array {
            conns.push(format!("        .{n}({n})", n = p.name));
        } else {
            for k in 0..p.elems {
                let lo = k * p.elem_bits;
                conns.push(format!("        .{}${}({}[{}:{}])", p.name, k, p.name, lo + p.elem_bits - 1, lo));
            }
        }
    }
    v.push_str(&format!("    {top} u_{top} (\n{}\n    );\nendmodule\n", conns.join(",\n")));
    v
}

/// Writes `<top>.v` and `<top>_ansi.v` for every top of [`TOPS`] and `manifest.json` into `out`;
/// returns the manifest.
pub fn generate(out: &Path) -> Result<Vec<TopManifest>> {
    std::fs::create_dir_all(out).with_context(|| format!("create {}", out.display()))?;
    let mut manifest = Vec::new();
    for spec in TOPS {
        let verilog = (spec.verilog)();
        let modules = check_prefixed(&verilog, spec.name)?;
        let glitches = multiply_written_ports(&verilog)?;
        ensure!(
            glitches.is_empty(),
            "{}: ports written more than once per combinational evaluation (Icarus would not settle; write a local, then the port once):\n{}",
            spec.name,
            glitches.join("\n")
        );
        let ports = parse_ports(&verilog, spec.name)?;
        let file = format!("{}.v", spec.name);
        let wrapper_file = format!("{}.v", wrapper_name(spec.name));
        std::fs::write(out.join(&file), &verilog)?;
        std::fs::write(out.join(&wrapper_file), ansi_wrapper(spec.name, &ports))?;
        // The file list a user's flow reads (`verilator -f`, most simulators and synthesis tools).
        std::fs::write(out.join(file_list_name(spec.name)), format!("{file}\n{wrapper_file}\n"))?;
        manifest.push(TopManifest {
            top: spec.name.to_string(),
            wrapper: wrapper_name(spec.name),
            description: spec.description.to_string(),
            file,
            wrapper_file,
            modules,
            ports,
        });
    }
    std::fs::write(out.join("manifest.json"), serde_json::to_string_pretty(&manifest)? + "\n")?;
    Ok(manifest)
}

/// Signals that cross a module boundary and are written more than once in the text of a
/// combinational (`always @(*)`) block: the module's own output ports, and the input ports of
/// child instances that have a combinational block themselves (flop modules, clocked only, are
/// exempt). Returned as `module: signal written N times`; errors on malformed module nesting.
///
/// Why: rust-hdl's default-then-override style (`x = 0; if c { x = 1 }`) makes such a signal
/// glitch within one evaluation. Verilator schedules statically and does not care, but an
/// event-driven simulator wakes every reader on each glitch; when a parent and a child both
/// glitch on the ports between them, Icarus re-evaluates the two blocks forever at one time step
/// (the lane stalled there until every such port was written once, from a local). The check is
/// textual and so conservative: an `if`/`else` writing the port once per branch also counts twice.
pub fn multiply_written_ports(verilog: &str) -> Result<Vec<String>> {
    let modules = module_bodies(verilog)?;
    let comb: std::collections::HashSet<&str> =
        modules.iter().filter(|(_, body)| body.contains("always @(*)")).map(|(n, _)| n.as_str()).collect();
    let mut found = Vec::new();
    for (name, body) in &modules {
        let Some(at) = body.find("always @(*)") else { continue };
        let mut writes = std::collections::HashMap::<&str, usize>::new();
        for line in body[at..].lines() {
            if let Some((lhs, _)) = line.trim_start().split_once(" = ") {
                if !lhs.is_empty() && lhs.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                    *writes.entry(lhs).or_default() += 1;
                }
            }
        }
        let mut boundary: Vec<&str> = body
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("output reg"))
            .filter_map(|r| r.trim().trim_end_matches(';').split_whitespace().last())
            .collect();
        let mut in_comb_child = false;
        for line in body[..at].lines() {
            let t = line.trim_start();
            if let Some(child) = t.strip_suffix('(').and_then(|h| h.split_whitespace().next()) {
                in_comb_child = comb.contains(child);
            } else if t.starts_with(");") {
                in_comb_child = false;
            } else if in_comb_child && let Some(sig) = t.split_once('(').and_then(|(_, r)| r.split(')').next()) {
                boundary.push(sig);
            }
        }
        for sig in boundary {
            if let Some(&n) = writes.get(sig).filter(|&&n| n > 1) {
                found.push(format!("{name}: {sig} written {n} times"));
            }
        }
    }
    Ok(found)
}

/// Lints the top `top` of `dir` (its `<top>.v` and wrapper `<top>_ansi.v`, as [`generate`] wrote
/// them) with `verilator --lint-only -Wall`, the wrapper as top module, every module in its own
/// file under `scratch`. Returns the warnings that are not `WIDTH` (rust-hdl's literal style gives
/// many WIDTH warnings and nothing else on correct code); errors if Verilator cannot run.
pub fn lint(dir: &Path, top: &str, scratch: &Path) -> Result<Vec<String>> {
    Ok(lint_report(dir, top, scratch)?.not_width)
}

/// Verilator `-Wall` findings of one top, sorted by where they lie.
#[derive(Clone, Debug, Default)]
pub struct LintReport {
    /// Every warning or error in the ANSI wrapper, `WIDTH` included (what a user's design sees).
    pub wrapper: Vec<String>,
    /// `WIDTH` warnings inside the top's own modules, counted per module (name, count), in
    /// descending count.
    pub internal_width: Vec<(String, usize)>,
    /// Every warning or error that is not `WIDTH`, wherever it lies.
    pub not_width: Vec<String>,
}

/// [`lint`]'s run, with the findings sorted into a [`LintReport`].
pub fn lint_report(dir: &Path, top: &str, scratch: &Path) -> Result<LintReport> {
    let _ = std::fs::remove_dir_all(scratch);
    let mut files = Vec::new();
    for file in [format!("{top}.v"), format!("{}.v", wrapper_name(top))] {
        let text = std::fs::read_to_string(dir.join(&file)).with_context(|| format!("read {file}"))?;
        files.extend(split_modules(&text, scratch)?);
    }
    let wrapper_file = format!("/{}.v:", wrapper_name(top));
    let mut report = LintReport::default();
    let mut per_module = std::collections::BTreeMap::<String, usize>::new();
    for line in engine::hw::verilog::lint_findings(&files, &wrapper_name(top))? {
        if line.contains(&wrapper_file) {
            report.wrapper.push(line.clone());
        }
        if !line.starts_with("%Warning-WIDTH") {
            report.not_width.push(line);
        } else if !line.contains(&wrapper_file) {
            // `%Warning-WIDTH: <scratch>/<module>.v:line:col: …`: one file per module.
            let module = line.split(".v:").next().and_then(|p| p.rsplit('/').next()).unwrap_or("?");
            *per_module.entry(module.to_string()).or_default() += 1;
        }
    }
    report.internal_width = per_module.into_iter().collect();
    report.internal_width.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(report)
}
