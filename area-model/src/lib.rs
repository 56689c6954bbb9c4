//! Area and timing of the exported PlaneZip tops on real standard-cell libraries.
//!
//! [`synthesize`] runs generic `synth` once per top (the top's block-level sub-modules kept as
//! hierarchy so their area is reported apart; cached in the work directory), then for each Liberty library
//! `dfflibmap`, `abc -liberty` (optionally with a delay target: then ABC also buffers and sizes
//! for it and prints its own critical-path delay, see [`abc_delay_script`]), `stat -liberty` and a mapped netlist. [`sta`] runs OpenSTA on a mapped
//! netlist. All areas are in µm², all times in ps (libraries in ns are converted).
//! `cargo run -p area-model -- --rtl DIR --liberty FILE…` (DIR as `rtl-gen` writes it).

pub mod blocks;
pub mod nldm;
pub mod stages;

use anyhow::{Context, Result, bail, ensure};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Folder of the standard-cell libraries the project carries (gzip; licenses and provenance in
/// its `PROVENANCE.md`), so that the flow and its tests need nothing outside the repository.
pub const LIBERTY_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/liberty");

/// File name of the ASAP7 RVT TT library (7 nm predictive; area in µm², time in ps) in [`LIBERTY_DIR`].
pub const ASAP7_RVT_TT: &str = "asap7sc7p5t_RVT_TT.lib.gz";

/// File name of the Nangate45 typical-corner library (45 nm; area in µm², time in ns) in [`LIBERTY_DIR`].
pub const NANGATE45_TYP: &str = "nangate45_typ.lib.gz";

/// A Liberty library, decompressed if it was gzip-compressed.
#[derive(Clone, Debug)]
pub struct Liberty {
    /// Short name (file stem without `.lib`/`.gz`).
    pub name: String,
    /// Path of the uncompressed `.lib`.
    pub path: PathBuf,
    /// The library's time unit in ps (1000 for `1ns`, 1 for `1ps`).
    pub time_unit_ps: f64,
    /// Names of the cells with an `ff` group (flip-flops).
    pub flops: Vec<String>,
    /// The library OpenSTA reads: `path`, or a copy with the missing timing templates defined
    /// (see [`sta_compatible`]).
    pub sta_path: PathBuf,
    /// The X2 buffer (`BUF_X2`, `BUFx2_…`), ABC's model of what drives a mapped module's inputs
    /// (flop outputs, ports) when it maps for a delay target (see [`abc_constraints`]).
    pub buffer_cell: Option<String>,
}

impl Liberty {
    /// Opens `path` (`.lib` or `.lib.gz`; a `.gz` is decompressed into `scratch` with `gunzip`).
    pub fn open(path: &Path, scratch: &Path) -> Result<Liberty> {
        let file = path.file_name().context("liberty path without file name")?.to_string_lossy().to_string();
        let name = file.trim_end_matches(".gz").trim_end_matches(".lib").to_string();
        let path = if file.ends_with(".gz") {
            std::fs::create_dir_all(scratch)?;
            let out = scratch.join(format!("{name}.lib"));
            if !out.exists() {
                let data = Command::new("gunzip").arg("-c").arg(path).output().context("run gunzip")?;
                ensure!(data.status.success(), "gunzip {} failed", path.display());
                write_atomically(&out, &data.stdout)?;
            }
            out
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
        let time_unit_ps = parse_time_unit_ps(&text)?;
        let sta_path = match sta_compatible(&text) {
            Some(fixed) => {
                std::fs::create_dir_all(scratch)?;
                let p = scratch.join(format!("{name}.sta.lib"));
                write_atomically(&p, fixed.as_bytes())?;
                p
            }
            None => path.clone(),
        };
        Ok(Liberty { name, path, time_unit_ps, flops: flop_cells(&text), sta_path, buffer_cell: x2_buffer(&text) })
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that another area-model
/// process sharing the work directory never reads a half-written library or stamp.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    // Unique per process and call: tests open the same library from several threads at once.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_extension(format!("tmp{}-{call}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("rename {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// Names of the `lu_table_template`s a Liberty text defines.
fn defined_templates(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("lu_table_template"))
        .filter_map(|r| r.trim_start().strip_prefix('(')?.split(')').next())
        .map(|n| n.trim().to_string())
        .collect()
}

/// Timing-table groups whose template OpenSTA needs to build delay and check arcs.
const TIMING_TABLES: [&str; 6] = ["cell_rise", "cell_fall", "rise_transition", "fall_transition", "rise_constraint", "fall_constraint"];

/// A copy of a Liberty text in which every timing table's template is defined, or `None` if all
/// are. The ASAP7 library here merges five ASAP7 files under the SIMPLE file's header, whose
/// templates are named `…_x1` (`delay_template_7x7_x1`); the SEQ file's flip-flops use
/// `delay_template_7x7`, which the merged header lacks, so OpenSTA drops every clock-to-Q arc
/// and reports "No paths found". Each missing template `X` is defined as a copy of `X_x1` (same
/// variables; every ASAP7 table carries its own `index_1`/`index_2`, which override the
/// template's), inserted before the first cell.
pub fn sta_compatible(text: &str) -> Option<String> {
    let defined = defined_templates(text);
    let mut missing: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let Some(name) = TIMING_TABLES.iter().find_map(|g| t.strip_prefix(g)).and_then(|r| r.trim_start().strip_prefix('(')) else {
            continue;
        };
        let name = name.split(')').next().unwrap_or("").trim();
        if name != "scalar" && !name.is_empty() && !defined.iter().any(|d| d == name) && !missing.iter().any(|m| m == name) {
            missing.push(name.to_string());
        }
    }
    let mut defs = String::new();
    for name in &missing {
        let head = format!("lu_table_template ({name}_x1)");
        let start = text.find(&head)?;
        let end = start + text[start..].find('}')? + 1;
        defs.push_str(&format!("  {}\n", text[start..end].replacen(&head, &format!("lu_table_template ({name})"), 1)));
    }
    if defs.is_empty() {
        return None;
    }
    let at = text.find("\n  cell (").or_else(|| text.find("\ncell ("))? + 1;
    Some(format!("{}{defs}{}", &text[..at], &text[at..]))
}

/// The `time_unit` of a Liberty text in ps.
pub fn parse_time_unit_ps(text: &str) -> Result<f64> {
    let line = text.lines().find(|l| l.trim_start().starts_with("time_unit")).context("no time_unit")?;
    let unit = line.split('"').nth(1).context("time_unit without quotes")?;
    let (num, scale) = if let Some(n) = unit.strip_suffix("ps") {
        (n, 1.0)
    } else if let Some(n) = unit.strip_suffix("ns") {
        (n, 1000.0)
    } else {
        bail!("unknown time_unit {unit}");
    };
    Ok(num.trim().parse::<f64>()? * scale)
}

/// Cells of a Liberty text that contain an `ff (` group.
pub fn flop_cells(text: &str) -> Vec<String> {
    let mut flops = Vec::new();
    let mut cell: Option<String> = None;
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(name) = cell_name(line) {
            cell = Some(name.to_string());
        } else if (t.starts_with("ff (") || t.starts_with("ff(")) && cell.is_some() {
            let c = cell.take().unwrap();
            if !flops.contains(&c) {
                flops.push(c);
            }
        }
    }
    flops
}

/// The cell name a Liberty line opens (`cell (NAME) {`, `cell("NAME")`), if it opens one.
pub fn cell_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("cell")?.trim_start().strip_prefix('(')?;
    Some(rest.split(')').next().unwrap_or("").trim().trim_matches('"'))
}

/// The library's X2 buffer: the first cell whose name starts with `BUF` and continues `_X2` or
/// `x2` followed by a non-digit (Nangate45 `BUF_X2`, ASAP7 `BUFx2_ASAP7_75t_R`).
pub fn x2_buffer(text: &str) -> Option<String> {
    text.lines()
        .filter_map(cell_name)
        .find(|c| {
            c.strip_prefix("BUF")
                .and_then(|r| r.strip_prefix("_X2").or_else(|| r.strip_prefix("x2")))
                .is_some_and(|r| !r.starts_with(|ch: char| ch.is_ascii_digit()))
        })
        .map(str::to_string)
}

/// ABC's timing constraints (`abc -constr`) for a delay-target mapping on `lib`: every input of
/// the mapped logic (a flop output or a module port) is driven by the library's X2 buffer and
/// every output (a flop input or a port) carries 1 fF (both libraries count capacitance in fF).
/// Without them ABC treats inputs as ideal drivers, sees no cost in fanout and buffers nothing:
/// the lane's `load` enables then drive 3,300 flop-hold multiplexers unbuffered, and OpenSTA
/// times that net at 22 ns.
pub fn abc_constraints(lib: &Liberty) -> Result<String> {
    let buffer = lib.buffer_cell.as_deref().with_context(|| format!("{}: no X2 buffer cell for ABC's input drive", lib.name))?;
    Ok(format!("set_driving_cell {buffer}\nset_load 1.0\n"))
}

/// Where [`synthesize`] writes [`abc_constraints`] for `lib`.
fn abc_constraints_path(work: &Path, lib: &Liberty) -> PathBuf {
    work.join(format!("abc-{}.constr", lib.name))
}

/// Area and cell counts of one module after mapping (`stat -liberty`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ModuleArea {
    /// Module name.
    pub module: String,
    /// Cell area of the module's own cells (sub-module instances excluded), µm².
    pub area_um2: f64,
    /// Library cells (sub-module instances excluded).
    pub cells: u64,
    /// Library flip-flops among them.
    pub flops: u64,
}

/// Result of one top on one library.
#[derive(Clone, Debug, Serialize)]
pub struct TopArea {
    /// Top module name.
    pub top: String,
    /// Library name.
    pub library: String,
    /// Per module (the top's own logic first, then the kept sub-modules, each counted once per
    /// instance in the totals).
    pub modules: Vec<ModuleArea>,
    /// Total area of the top with its hierarchy (Yosys's "top module" figure), µm².
    pub total_um2: f64,
    /// Total library cells.
    pub cells: u64,
    /// Total flip-flops.
    pub flops: u64,
    /// ABC's critical-path delay per mapped module (ps) when a delay target was given: the
    /// combinational delay between that module's flops and ports, as ABC's `stime` reports it.
    pub abc_delay_ps: Vec<(String, f64)>,
    /// Mapped netlist (Verilog) for OpenSTA.
    pub netlist: PathBuf,
}

/// Yosys flow settings.
#[derive(Clone, Debug)]
pub struct Flow {
    /// ABC delay target in ps (`abc -D`), or none for ABC's default liberty script.
    pub abc_delay_target_ps: Option<f64>,
    /// Flatten everything (no per-module breakdown).
    pub flatten_all: bool,
    /// Run Yosys's SAT-based resource sharing (`synth` without `-noshare`). On the compressor
    /// lane it had analysed 58 of its 76 candidate shifters after 5.3 CPU-minutes (20 minutes
    /// wall clock on the shared 2-core machine) and was stopped, so the documented flow leaves
    /// it off.
    pub share: bool,
}

/// Block-level sub-modules of `top` to keep as hierarchy: direct children `top$x` (rust-hdl's
/// naming) that have sub-modules of their own (rust-hdl makes every flop a module of its own;
/// those are flattened into their parent).
pub fn block_modules(modules: &[String], top: &str) -> Vec<String> {
    let prefix = format!("{top}$");
    modules
        .iter()
        .filter(|m| m.strip_prefix(&prefix).is_some_and(|r| !r.contains('$')))
        .filter(|m| {
            let child = format!("{m}$");
            modules.iter().any(|o| o.starts_with(&child))
        })
        .cloned()
        .collect()
}

/// Quotes a name for a Yosys command line (`$` and other specials inside a plain name).
fn ys(name: &str) -> String {
    format!("\\{name}")
}

/// The Yosys script of the library-independent part: read `files`, keep the `keep` blocks as
/// hierarchy, generic `synth`, and save the result as RTLIL at `il`.
pub fn generic_script(files: &[PathBuf], top: &str, keep: &[String], flow: &Flow, il: &Path) -> String {
    let mut s = String::new();
    for f in files {
        s.push_str(&format!("read_verilog -noautowire {}\n", f.display()));
    }
    s.push_str(&format!("hierarchy -check -top {}\n", ys(top)));
    if !flow.flatten_all && !keep.is_empty() {
        let names: Vec<String> = keep.iter().map(|k| ys(k)).collect();
        s.push_str(&format!("setattr -mod -set keep_hierarchy 1 {}\n", names.join(" ")));
    }
    s.push_str(&format!("synth -top {} -flatten{}\n", ys(top), if flow.share { "" } else { " -noshare" }));
    s.push_str(&format!("write_rtlil {}\n", il.display()));
    s
}

/// The Yosys script that maps the generic design `il` on each of `libs` and writes the netlists
/// named by [`netlist_path`].
pub fn mapping_script(il: &Path, top: &str, libs: &[Liberty], flow: &Flow, work: &Path) -> String {
    let mut s = format!("read_rtlil {}\ndesign -save generic\n", il.display());
    for lib in libs {
        let l = lib.path.display();
        s.push_str(&format!("design -load generic\nlog PZ-LIBRARY {}\n", lib.name));
        s.push_str(&format!("dfflibmap -liberty {l}\n"));
        match flow.abc_delay_target_ps {
            Some(d) => s.push_str(&format!(
                "abc -script {} -constr {} -liberty {l}\n",
                abc_delay_script_path(work, d).display(),
                abc_constraints_path(work, lib).display()
            )),
            None => s.push_str(&format!("abc -liberty {l}\n")),
        }
        s.push_str("opt_clean -purge\n");
        s.push_str(&format!("log PZ-STAT {}\nstat -liberty {l}\n", lib.name));
        // OpenSTA 2.0.17's Verilog reader rejects the `{…}` concatenations Yosys writes on
        // sub-module ports and multi-bit `assign`s: write the STA netlist flat, one bit per net.
        s.push_str("flatten\nsplitnets -ports\nsetundef -zero\nopt_clean -purge\n");
        s.push_str(&format!("write_verilog -noattr -noexpr {}\n", netlist_path(work, top, &lib.name, flow).display()));
    }
    s
}

/// ABC's script for a delay target of `target_ps`: Yosys 0.23's own `abc -D` script for
/// Liberty mapping (`&nf -D`), followed by what that script leaves out and a timing figure
/// needs: `buffer -p` (fanout trees of at most 10, flop outputs included: without them the
/// unplaced netlist has nets with thousands of sinks and NLDM tables extrapolated to µs),
/// `upsize`/`dnsize` towards the target (each stopped after about 10 min), and `stime -p`,
/// which prints the mapped module's critical-path delay (`Delay = … ps`, read by [`parse_log`]).
pub fn abc_delay_script(target_ps: f64) -> String {
    let d = target_ps;
    format!(
        "strash; &get -n; &fraig -x; &put; scorr; dc2; strash; &get -n; &dch -f; &nf -D {d}; &put; \
         topo; stime -p; buffer -p; topo; upsize -D {d} -T 600; dnsize -D {d} -T 600; stime -p\n"
    )
}

/// Where [`synthesize`] writes [`abc_delay_script`] for `target_ps`.
fn abc_delay_script_path(work: &Path, target_ps: f64) -> PathBuf {
    work.join(format!("abc-D{target_ps}.script"))
}

/// The mapped netlist of `top` on library `lib` under `flow`: `<work>/<top>.<lib>.v`, or
/// `<work>/<top>.<lib>.D<ps>.v` when mapped with an ABC delay target, so that area-oriented and
/// delay-oriented mappings can share one work directory (and its cached generic synthesis).
pub fn netlist_path(work: &Path, top: &str, lib: &str, flow: &Flow) -> PathBuf {
    match flow.abc_delay_target_ps {
        Some(d) => work.join(format!("{top}.{lib}.D{d}.v")),
        None => work.join(format!("{top}.{lib}.v")),
    }
}

/// What the cached generic synthesis of a top depends on: the Yosys version, the generic
/// script (files, kept blocks, flow switches) and each input file's length and content hash.
/// The cache is reused only when this text is equal to the stamp saved beside it.
fn generic_stamp(files: &[PathBuf], script: &str) -> Result<String> {
    use std::hash::{Hash, Hasher};
    let version = Command::new("yosys").arg("-V").output().context("run yosys -V (scripts/install-area-tools.sh installs it)")?;
    let mut stamp = format!("{}{script}", String::from_utf8_lossy(&version.stdout));
    for f in files {
        let bytes = std::fs::read(f).with_context(|| format!("read {}", f.display()))?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        stamp.push_str(&format!("{} {} bytes hash {:016x}\n", f.display(), bytes.len(), h.finish()));
    }
    Ok(stamp)
}

/// Whether the stamp file at `path` holds exactly `stamp` (a cached result is then reusable).
fn up_to_date(path: &Path, stamp: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|saved| saved == stamp)
}

/// Runs `yosys` on `script` (saved as `<work>/<name>.ys`, log `<work>/<name>.log`); returns the log.
pub fn run_yosys(script: &str, work: &Path, name: &str) -> Result<String> {
    std::fs::create_dir_all(work)?;
    let ys_path = work.join(format!("{name}.ys"));
    let log_path = work.join(format!("{name}.log"));
    std::fs::write(&ys_path, script)?;
    let out = Command::new("yosys")
        .arg("-q")
        .arg("-l")
        .arg(&log_path)
        .arg("-s")
        .arg(&ys_path)
        .output()
        .context("run yosys (scripts/install-area-tools.sh installs it)")?;
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    ensure!(out.status.success(), "yosys failed:\n{}\n{}", String::from_utf8_lossy(&out.stderr), tail(&log, 40));
    Ok(log)
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Parses the `stat -liberty` sections that follow `PZ-STAT <lib>` in a Yosys log:
/// per-module area, cells and flops (flop cells named in `flops`), the top's total, and ABC's
/// `Delay =` figures (ABC prints ps whatever the library unit; the last per module) from the mapping before it.
pub fn parse_log(log: &str, top: &str, lib: &Liberty, netlist: PathBuf) -> Result<TopArea> {
    let start = log.find(&format!("PZ-LIBRARY {}", lib.name)).context("library section missing in the Yosys log")?;
    let section = &log[start..];
    let end = section[1..].find("PZ-LIBRARY ").map(|e| e + 1).unwrap_or(section.len());
    let section = &section[..end];
    let stat_at = section.find(&format!("PZ-STAT {}", lib.name)).context("stat section missing")?;
    let (mapping, stat) = section.split_at(stat_at);

    let mut abc_delay_ps = Vec::new();
    let mut abc_module = String::new();
    for line in mapping.lines() {
        if let Some(m) = line.split("Extracting gate netlist of module `").nth(1) {
            abc_module = m.split('\'').next().unwrap_or("").trim_start_matches('\\').to_string();
        }
        if let Some(d) = line.split("Delay =").nth(1) {
            let v: f64 = d.split_whitespace().next().context("Delay without value")?.parse()?;
            // `stime` runs before and after sizing: keep each module's last (final) figure.
            match abc_delay_ps.last_mut() {
                Some((m, d)) if *m == abc_module => *d = v,
                _ => abc_delay_ps.push((abc_module.clone(), v)),
            }
        }
    }

    let mut modules = Vec::new();
    let mut current: Option<ModuleArea> = None;
    let mut in_design_hierarchy = false;
    let mut total_um2 = None;
    let (mut cells, mut flops) = (0u64, 0u64);
    for line in stat.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("=== ").and_then(|r| r.strip_suffix(" ===")) {
            if let Some(m) = current.take() {
                modules.push(m);
            }
            in_design_hierarchy = name == "design hierarchy";
            if !in_design_hierarchy {
                current = Some(ModuleArea { module: name.trim_start_matches('\\').to_string(), area_um2: 0.0, cells: 0, flops: 0 });
            }
            continue;
        }
        if let Some(r) = t.strip_prefix("Chip area for top module") {
            total_um2 = Some(r.split(':').nth(1).context("area")?.trim().parse::<f64>()?);
            continue;
        }
        if let Some(r) = t.strip_prefix("Chip area for module") {
            if let Some(m) = current.as_mut() {
                m.area_um2 = r.split(':').nth(1).context("area")?.trim().parse()?;
            }
            continue;
        }
        let mut words = t.split_whitespace();
        if let (Some(cell), Some(n), None) = (words.next(), words.next(), words.next()) {
            if let Ok(n) = n.parse::<u64>() {
                if in_design_hierarchy {
                    continue;
                }
                if let Some(m) = current.as_mut() {
                    if lib.flops.iter().any(|f| f == cell) {
                        m.flops += n;
                    }
                    if !cell.starts_with('\\') && !cell.starts_with('$') && lib_cell(cell) {
                        m.cells += n;
                    }
                }
            }
        }
    }
    if let Some(m) = current.take() {
        modules.push(m);
    }
    ensure!(!modules.is_empty(), "no stat output for {top} on {}", lib.name);
    // Instances of kept sub-modules in the top: count each module once per instance (rust-hdl
    // gives every instance its own module, so each appears once).
    let top_pos = modules.iter().position(|m| m.module == top).context("top missing in stat")?;
    let top_mod = modules.remove(top_pos);
    modules.insert(0, top_mod);
    for m in &modules {
        cells += m.cells;
        flops += m.flops;
    }
    let total_um2 = match total_um2 {
        Some(t) => t,
        None => modules.iter().map(|m| m.area_um2).sum(),
    };
    Ok(TopArea { top: top.to_string(), library: lib.name.clone(), modules, total_um2, cells, flops, abc_delay_ps, netlist })
}

/// Whether a `stat` row name is a library cell (not a `Number of …` row or a sub-module).
fn lib_cell(name: &str) -> bool {
    !name.ends_with(':') && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Synthesizes `top` from `files` and maps it on every library of `libs`.
///
/// Two Yosys runs: the generic synthesis (`<work>/<top>.generic.il`, the slow step on the lane,
/// 10–30 minutes here) is skipped when an earlier run left it with an equal stamp (see
/// [`generic_stamp`]); the mapping run reads it and maps on each library, and is itself skipped
/// when its log, netlists and stamp (generic stamp plus mapping script) are there. Several area-model
/// processes (other libraries, other ABC delay targets) can therefore share one work directory
/// and one generic synthesis. Logs: `<work>/<top>.generic.log`, `<work>/<top>.<libs>[.D<ps>].log`.
pub fn synthesize(files: &[PathBuf], top: &str, libs: &[Liberty], flow: &Flow, work: &Path) -> Result<Vec<TopArea>> {
    let mut modules = Vec::new();
    for f in files {
        modules.extend(rtl_gen::module_names(&std::fs::read_to_string(f).with_context(|| format!("read {}", f.display()))?));
    }
    let keep = block_modules(&modules, top);
    std::fs::create_dir_all(work)?;
    let il = work.join(format!("{top}.generic.il"));
    let stamp_path = work.join(format!("{top}.generic.stamp"));
    let generic = generic_script(files, top, &keep, flow, &il);
    let stamp = generic_stamp(files, &generic)?;
    if up_to_date(&stamp_path, &stamp) && il.exists() {
        eprintln!("{top}: reusing the generic synthesis {} (inputs unchanged)", il.display());
    } else {
        let _ = std::fs::remove_file(&stamp_path);
        run_yosys(&generic, work, &format!("{top}.generic"))?;
        write_atomically(&stamp_path, stamp.as_bytes())?;
    }
    let lib_names: Vec<&str> = libs.iter().map(|l| l.name.as_str()).collect();
    let run_name = match flow.abc_delay_target_ps {
        Some(d) => format!("{top}.{}.D{d}", lib_names.join("+")),
        None => format!("{top}.{}", lib_names.join("+")),
    };
    let mut abc_inputs = String::new();
    if let Some(d) = flow.abc_delay_target_ps {
        let script = abc_delay_script(d);
        write_atomically(&abc_delay_script_path(work, d), script.as_bytes())?;
        abc_inputs.push_str(&script);
        for lib in libs {
            let constr = abc_constraints(lib)?;
            write_atomically(&abc_constraints_path(work, lib), constr.as_bytes())?;
            abc_inputs.push_str(&constr);
        }
    }
    // The mapping is cached too (same generic design, same script, same libraries: same log
    // and netlists), so that a rerun for timing alone does not repeat ABC.
    let mapping = mapping_script(&il, top, libs, flow, work);
    let map_stamp = format!("{stamp}{mapping}{abc_inputs}");
    let map_stamp_path = work.join(format!("{run_name}.stamp"));
    let log_path = work.join(format!("{run_name}.log"));
    let netlists_exist = libs.iter().all(|lib| netlist_path(work, top, &lib.name, flow).exists());
    let log = match std::fs::read_to_string(&log_path) {
        Ok(log) if netlists_exist && up_to_date(&map_stamp_path, &map_stamp) => {
            eprintln!("{top}: reusing the mapping {} (inputs unchanged)", log_path.display());
            log
        }
        _ => {
            let _ = std::fs::remove_file(&map_stamp_path);
            let log = run_yosys(&mapping, work, &run_name)?;
            write_atomically(&map_stamp_path, map_stamp.as_bytes())?;
            log
        }
    };
    libs.iter().map(|lib| parse_log(&log, top, lib, netlist_path(work, top, &lib.name, flow))).collect()
}

/// OpenSTA's worst setup path of a mapped netlist under one clock.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// Top module name.
    pub top: String,
    /// Library name.
    pub library: String,
    /// Clock period the check ran at, ps.
    pub period_ps: f64,
    /// Worst setup slack at that period, ps (negative: violated).
    pub slack_ps: f64,
    /// Shortest clock period the worst path allows (`period − slack`), ps.
    pub min_period_ps: f64,
    /// Highest clock frequency (`10⁶ / min_period_ps`), MHz.
    pub fmax_mhz: f64,
    /// Start point of the worst path.
    pub startpoint: String,
    /// End point of the worst path.
    pub endpoint: String,
    /// Number of cells on the worst path's data part (flop clock-to-output included).
    pub path_stages: usize,
    /// Every cell arc of the worst path re-derived from the Liberty tables at OpenSTA's slew and
    /// load ([`nldm::check_arcs`]): the hand cross-check, done on every reported path.
    pub arc_checks: Vec<nldm::ArcCheck>,
    /// Largest |OpenSTA − table| over `arc_checks`, ps.
    pub arc_max_deviation_ps: f64,
    /// The full `report_checks` text.
    pub report: String,
}

/// The OpenSTA Tcl script: clock `clock` port at `period` (library time units), input and output
/// delays 0 against it, worst setup path.
pub fn sta_script(lib: &Path, netlist: &Path, top: &str, clock_port: &str, period_lib_units: f64) -> String {
    format!(
        "read_liberty {lib}\nread_verilog {net}\nlink_design {top}\n\
         create_clock -name clk -period {period_lib_units} [get_ports {clock_port}]\n\
         set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports {clock_port}]]\n\
         set_output_delay 0 -clock clk [all_outputs]\n\
         report_checks -path_delay max -digits 4 -fields {{slew cap input_pins}}\nexit\n",
        lib = lib.display(),
        net = netlist.display(),
    )
}

/// Runs OpenSTA (`sta`) on `netlist` with `lib` (its [`Liberty::sta_path`]) at `period_ps` and
/// parses the worst path.
pub fn sta(lib: &Liberty, netlist: &Path, top: &str, clock_port: &str, period_ps: f64, work: &Path) -> Result<Timing> {
    std::fs::create_dir_all(work)?;
    // Named after the netlist (`<top>.<lib>[.D<ps>]`), so area and delay mappings keep their own.
    let stem = netlist.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| format!("{top}.{}", lib.name));
    let script = work.join(format!("{stem}.sta.tcl"));
    std::fs::write(&script, sta_script(&lib.sta_path, netlist, top, clock_port, period_ps / lib.time_unit_ps))?;
    let out = Command::new("sta").arg("-no_init").arg("-exit").arg(&script).output().context("run sta (OpenSTA; scripts/install-area-tools.sh installs it)")?;
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    std::fs::write(work.join(format!("{stem}.sta.log")), &report)?;
    ensure!(out.status.success(), "sta failed:\n{}", tail(&report, 40));
    let mut timing = parse_sta(&report, top, &lib.name, period_ps, lib.time_unit_ps)?;
    let liberty = std::fs::read_to_string(&lib.sta_path).with_context(|| format!("read {}", lib.sta_path.display()))?;
    timing.arc_checks = nldm::check_arcs(&nldm::path_rows(&report), &liberty).context("re-derive the worst path from the Liberty tables")?;
    timing.arc_max_deviation_ps =
        timing.arc_checks.iter().map(|a| (a.sta - a.table).abs() * lib.time_unit_ps).fold(0.0, f64::max);
    Ok(timing)
}

/// Parses OpenSTA's `report_checks` output (times in library units, `unit_ps` ps each).
pub fn parse_sta(report: &str, top: &str, library: &str, period_ps: f64, unit_ps: f64) -> Result<Timing> {
    ensure!(!report.contains("No paths found"), "OpenSTA found no timing paths:\n{}", tail(report, 30));
    let field = |key: &str| -> Option<String> {
        report.lines().find_map(|l| l.trim().strip_prefix(key).map(|r| r.trim().to_string()))
    };
    let slack_line = report.lines().find(|l| l.contains("slack (")).context("no slack in the OpenSTA report")?;
    let slack: f64 = slack_line.split_whitespace().next().context("slack value")?.parse()?;
    let slack_ps = slack * unit_ps;
    let min_period_ps = period_ps - slack_ps;
    ensure!(min_period_ps > 0.0, "non-positive path delay");
    let path_stages = nldm::path_rows(report).iter().filter(|r| r.cap.is_some()).count();
    Ok(Timing {
        top: top.to_string(),
        library: library.to_string(),
        period_ps,
        slack_ps,
        min_period_ps,
        fmax_mhz: 1e6 / min_period_ps,
        startpoint: field("Startpoint:").unwrap_or_default(),
        endpoint: field("Endpoint:").unwrap_or_default(),
        path_stages,
        arc_checks: Vec::new(),
        arc_max_deviation_ps: 0.0,
        report: report.to_string(),
    })
}
