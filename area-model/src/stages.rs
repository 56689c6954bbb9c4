//! Per-stage timing guard: each pipeline-stage module of a top mapped on its own on a Liberty
//! library with the flow's delay-target ABC script and constraints ([`crate::abc_delay_script`],
//! [`crate::abc_constraints`]), its ABC critical delay checked against the clock period minus the
//! flip-flop's clock-to-output and setup times read from the library's tables
//! ([`crate::nldm::flop_arcs`]), and its outputs checked to be flop outputs.
//!
//! With registered stage outputs every register-to-register path lies inside one stage module
//! (a stage's inputs are the previous stage's flops), so per-stage checks cover the design: that
//! is why the output check is part of the guard. A stage is mapped in seconds to minutes instead
//! of the half-hour flat flow, and each result is cached under a hash of the stage's Verilog
//! (its own module name normalised, so identical instances map once), the scripts, the library
//! and the Yosys version: a changed stage re-maps alone.

use crate::{Liberty, abc_constraints, abc_delay_script, nldm, parse_log, run_yosys, write_atomically};
use anyhow::{Context, Result, ensure};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::Command;

/// Clock slew at the flops for the guard's clock-to-output and setup look-ups, ps: the ideal
/// clock of the STA flow (`create_clock` without a transition).
pub const CLOCK_SLEW_PS: f64 = 0.0;
/// Data-pin transition for the setup look-up, ps: a gate output with a few fanouts on ASAP7
/// (the ASAP7 tables' third index, 20 ps, doubled for margin).
pub const DATA_SLEW_PS: f64 = 40.0;
/// Load on a flop output for the clock-to-output look-up, fF: the output load of ABC's
/// constraints ([`crate::abc_constraints`]); ABC's delay already includes the input drive.
pub const FLOP_LOAD_FF: f64 = 1.0;
/// Name every stage module is renamed to before mapping, so that identical instances (rust-hdl
/// gives each instance its own module name) share one cache entry.
const CANONICAL: &str = "pz_stage";

/// The guard's verdict on one stage module.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StageTiming {
    /// Stage module name.
    pub module: String,
    /// ABC's critical delay of the mapped stage (`stime -p` after sizing), ps.
    pub abc_delay_ps: f64,
    /// What a stage may spend: period − clock-to-output − setup, ps.
    pub budget_ps: f64,
    /// Mapped area of the stage (flops included), µm².
    pub area_um2: f64,
    /// Library cells of the mapped stage.
    pub cells: u64,
    /// Library flip-flops among them.
    pub flops: u64,
    /// The flip-flop cells the mapping used; the budget is the tightest over them (over the
    /// library's flops when it used none).
    pub flop_cells: Vec<String>,
    /// Clock-to-output plus setup of the tightest of them, ps.
    pub flop_overhead_ps: f64,
    /// Cells that drive an output port and are not flip-flops (empty: outputs registered).
    pub unregistered_outputs: Vec<String>,
    /// Reused from the cache instead of mapped now.
    pub cached: bool,
}

impl StageTiming {
    /// The stage fits the budget, has flops and its outputs are registered.
    pub fn passes(&self) -> bool {
        self.abc_delay_ps <= self.budget_ps && self.unregistered_outputs.is_empty() && !self.flop_cells.is_empty()
    }
}

/// The Verilog of stage module `stage` of `verilog` with every module below it (rust-hdl names
/// children `stage$…`), split with [`rtl_gen::module_bodies`].
pub fn stage_source(verilog: &str, stage: &str) -> Result<String> {
    let child = format!("{stage}$");
    let mut out = String::new();
    let mut found = false;
    for (name, body) in rtl_gen::module_bodies(verilog)? {
        if name == stage || name.starts_with(&child) {
            found |= name == stage;
            out.push_str(body);
        }
    }
    ensure!(found, "no module {stage} in the Verilog");
    Ok(out)
}

/// The per-stage time budget on `lib` at `period_ps`: period minus the clock-to-output and
/// setup times of `flop` (a cell of `lib`), from its tables at [`CLOCK_SLEW_PS`],
/// [`DATA_SLEW_PS`] and [`FLOP_LOAD_FF`]. Returns (budget, arcs in ps).
pub fn stage_budget_ps(lib: &Liberty, flop: &str, period_ps: f64) -> Result<(f64, nldm::FlopArcs)> {
    let text = std::fs::read_to_string(&lib.path).with_context(|| format!("read {}", lib.path.display()))?;
    let u = lib.time_unit_ps;
    let arcs = nldm::flop_arcs(&text, flop, CLOCK_SLEW_PS / u, DATA_SLEW_PS / u, FLOP_LOAD_FF)?;
    let arcs = nldm::FlopArcs { cell: arcs.cell, clk_to_q: arcs.clk_to_q * u, setup: arcs.setup * u };
    Ok((period_ps - arcs.clk_to_q - arcs.setup, arcs))
}

/// Markers around the output-driver list in the Yosys log.
const UNREG_BEGIN: &str = "PZ-UNREGISTERED-BEGIN";
const UNREG_END: &str = "PZ-UNREGISTERED-END";

/// First Yosys pass over one stage (file `src`, top [`CANONICAL`]; `-noautowire`, so that a
/// name the Verilog never declares is an error rather than an undriven implicit wire): generic synthesis
/// flattened, internal names purged (so that an output port is connected straight to its
/// driver), the list of cells other than flip-flops that drive an output port, then
/// `dfflibmap` (its log names the flop cells, which set the budget) and the design saved at `il`.
fn prepare_script(src: &Path, lib: &Liberty, il: &Path) -> String {
    format!(
        "read_verilog -noautowire {src}\nhierarchy -check -top {CANONICAL}\nsynth -top {CANONICAL} -flatten -noshare\nopt_clean -purge\n\
         log {UNREG_BEGIN}\nselect -list o:* %ci1 o:* %d t:$_*DFF* %d t:* %i\nlog {UNREG_END}\n\
         dfflibmap -liberty {l}\nstat\nwrite_rtlil {il}\n",
        src = src.display(),
        l = lib.path.display(),
        il = il.display(),
    )
}

/// Second pass: the flow's delay mapping of the prepared stage for a `target_ps` target (the
/// stage's budget: ABC's sizing relaxes a mapping that meets its target back up to the target,
/// so the target is what the check compares with), and its area.
fn mapping_script(il: &Path, lib: &Liberty, script: &Path, constr: &Path) -> String {
    let l = lib.path.display();
    format!(
        "read_rtlil {il}\nlog PZ-LIBRARY {name}\nabc -script {script} -constr {constr} -liberty {l}\n\
         opt_clean -purge\nlog PZ-STAT {name}\nstat -liberty {l}\n",
        il = il.display(),
        name = lib.name,
        script = script.display(),
        constr = constr.display(),
    )
}

/// `source` with the stage's own name (and so its children's prefix) replaced by one canonical
/// name and the comments after `endmodule` dropped (rust-hdl writes each module's original,
/// unprefixed name there): equal for identical instances, which then share one cache entry.
pub fn normalised_source(source: &str, stage: &str) -> String {
    source
        .replace(stage, CANONICAL)
        .lines()
        .map(|l| if l.trim_start().starts_with("endmodule") { "endmodule\n".to_string() } else { format!("{l}\n") })
        .collect()
}

/// Maps stage `stage` (its Verilog from [`stage_source`]) on `lib` for a `period_ps` clock and
/// returns the guard's figures, from `<work>/stage-<hash>.json` when an equal stage was mapped
/// before under the same period, constraints, library and Yosys.
pub fn check_stage(source: &str, stage: &str, lib: &Liberty, period_ps: f64, work: &Path) -> Result<StageTiming> {
    use std::hash::{Hash, Hasher};
    std::fs::create_dir_all(work)?;
    let text = normalised_source(source, stage);
    let constr = abc_constraints(lib)?;
    let version = Command::new("yosys").arg("-V").output().context("run yosys -V (scripts/install-area-tools.sh installs it)")?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&text, period_ps.to_bits(), abc_delay_script(period_ps), &constr, &lib.name, std::fs::metadata(&lib.path)?.len(), &version.stdout)
        .hash(&mut h);
    let key = format!("stage-{:016x}", h.finish());
    let cache = work.join(format!("{key}.json"));
    if let Some(mut t) = std::fs::read_to_string(&cache).ok().and_then(|s| serde_json::from_str::<StageTiming>(&s).ok()) {
        t.module = stage.to_string();
        t.cached = true;
        return Ok(t);
    }
    let src = work.join(format!("{key}.v"));
    let il = work.join(format!("{key}.il"));
    write_atomically(&src, text.as_bytes())?;
    let log = run_yosys(&prepare_script(&src, lib, &il), work, &format!("{key}.prepare"))?;
    let list = log.split(UNREG_BEGIN).nth(1).and_then(|r| r.split(UNREG_END).next()).context("no output-driver list")?;
    let unregistered_outputs: Vec<String> = list
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix(&format!("{CANONICAL}/")))
        .map(str::to_string)
        .collect();
    let stat = log.rsplit(UNREG_END).next().unwrap_or("");
    let flop_cells: Vec<String> =
        lib.flops.iter().filter(|f| stat.lines().any(|l| l.split_whitespace().next() == Some(f.as_str()))).cloned().collect();
    // A module without flops (wiring, or logic between its parent's and children's flops) is
    // budgeted as if ended by the library's tightest rising-edge flop (those with the arcs the
    // budget reads); it does not pass as a stage.
    let (mut budget_ps, mut flop_overhead_ps) = (f64::INFINITY, 0.0);
    let budgets: Vec<(f64, nldm::FlopArcs)> = if flop_cells.is_empty() {
        lib.flops.iter().filter_map(|f| stage_budget_ps(lib, f, period_ps).ok()).collect()
    } else {
        flop_cells.iter().map(|f| stage_budget_ps(lib, f, period_ps)).collect::<Result<_>>()?
    };
    ensure!(!budgets.is_empty(), "{stage}: no flop of {} has the arcs a budget needs", lib.name);
    for (b, arcs) in budgets {
        if b < budget_ps {
            budget_ps = b;
            flop_overhead_ps = arcs.clk_to_q + arcs.setup;
        }
    }
    // The target is rounded down to 0.1 ps (ABC prints delays to 0.01 ps).
    let target_ps = (budget_ps * 10.0).floor() / 10.0;
    let script_path = work.join(format!("abc-D{target_ps}.script"));
    let constr_path = work.join(format!("abc-{}.constr", lib.name));
    write_atomically(&script_path, abc_delay_script(target_ps).as_bytes())?;
    write_atomically(&constr_path, constr.as_bytes())?;
    let log = run_yosys(&mapping_script(&il, lib, &script_path, &constr_path), work, &key)?;
    let area = parse_log(&log, CANONICAL, lib, src.clone())?;
    let abc_delay_ps = area.abc_delay_ps.iter().map(|(_, d)| *d).fold(f64::NAN, f64::max);
    // ABC reports no delay when there was no logic to map (a module of wires and black boxes).
    let abc_delay_ps = if abc_delay_ps.is_finite() {
        abc_delay_ps
    } else {
        ensure!(area.total_um2 == 0.0, "{stage}: no ABC delay in {}", work.join(format!("{key}.log")).display());
        0.0
    };
    let t = StageTiming {
        module: stage.to_string(),
        abc_delay_ps,
        budget_ps,
        flop_cells,
        flop_overhead_ps,
        area_um2: area.total_um2,
        cells: area.cells,
        flops: area.flops,
        unregistered_outputs,
        cached: false,
    };
    write_atomically(&cache, serde_json::to_string_pretty(&t)?.as_bytes())?;
    Ok(t)
}
