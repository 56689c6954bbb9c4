//! Per-module mapping of a whole top: every block module (a module with sub-modules of its own;
//! rust-hdl makes each flop a module without any) is mapped on its own, its block children and
//! its RAMs as black boxes, with the per-stage flow of [`crate::stages::check_stage`] (the
//! delay mapping at the clock's budget, its ABC delay and area, whether its outputs are flops).
//! Identical instances (rust-hdl names every instance apart) have equal Verilog once the
//! block's own name is normalised, so they map once, and each result is cached by that Verilog:
//! a changed block re-maps alone. A flat mapping of the four-lane engine would take hours on a
//! small machine; this takes the sum of its distinct blocks.
//!
//! The total is Σ over instances of each block's own mapped area. RAMs (rust-hdl `RAM`, a
//! `reg` array in a module of its own) are not mapped: their bits are counted and given an
//! SRAM macro estimate ([`SRAM_BITCELL_UM2`], [`SRAM_ARRAY_EFFICIENCY`]), on a line of their own.
//! Paths are covered block by block: a block whose outputs are driven by its own logic rather
//! than its own flops or a child's ([`StageTiming::unregistered_outputs`], black boxes
//! removed) has paths that continue into its parent, which this per-block figure does not see;
//! the report counts them.

use crate::Liberty;
use crate::stages::{StageTiming, check_stage, normalised_source};
use anyhow::Result;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// Area of one 6T bit cell of a 7 nm high-density SRAM, µm²: TSMC, Chang et al., ISSCC 2017,
/// "A 7nm 256Mb SRAM in high-k metal-gate FinFET technology with write-assist circuitry", as
/// quoted by WikiChip's 7 nm page (ASAP7 ships no SRAM macro).
pub const SRAM_BITCELL_UM2: f64 = 0.027;
/// Share of a small SRAM macro's area that is bit cells (the rest periphery): an assumption,
/// not a measured figure (docs/HARDWARE.md, "Chunk buffer as an SRAM estimate").
pub const SRAM_ARRAY_EFFICIENCY: f64 = 0.4;

/// A RAM found in the Verilog: its module and bits (width × depth).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Ram {
    /// RAM module name.
    pub module: String,
    /// Bits it holds.
    pub bits: u64,
}

/// One block instance of the top, in depth-first order.
#[derive(Clone, Debug, Serialize)]
pub struct BlockInstance {
    /// Module name (rust-hdl's `top$child$…`).
    pub module: String,
    /// Depth below the top (the top is 0).
    pub depth: usize,
    /// The block's own logic mapped with its block children and RAMs as black boxes, or why it
    /// could not be mapped.
    pub own: std::result::Result<StageTiming, String>,
    /// The RAMs directly inside it.
    pub rams: Vec<Ram>,
}

/// The per-module figures of a top on one library.
#[derive(Clone, Debug, Serialize)]
pub struct BlockReport {
    /// Top module.
    pub top: String,
    /// Library name.
    pub library: String,
    /// Clock period of the budgets, ps.
    pub period_ps: f64,
    /// Every block instance, depth first.
    pub instances: Vec<BlockInstance>,
    /// Distinct blocks mapped (the rest were equal to one of them).
    pub distinct_blocks: usize,
    /// Σ of the instances' own mapped areas, µm² (RAMs excluded).
    pub logic_um2: f64,
    /// Instances that could not be mapped (their area is missing from `logic_um2`).
    pub unmapped: usize,
    /// Σ of the RAMs' bits.
    pub sram_bits: u64,
    /// The SRAM macro estimate of those bits, µm² (7 nm figures: meaningful on ASAP7 only).
    pub sram_estimate_um2: f64,
    /// Worst ABC delay over the instances, ps, and its module.
    pub worst_abc_delay_ps: f64,
    /// Module of the worst ABC delay.
    pub worst_module: String,
    /// Instances whose outputs are not all flops (paths leave them).
    pub unregistered_blocks: usize,
}

/// `name`'s parent: the longest proper `$`-prefix of it that is a module (`a$b$0` in `a` when
/// `a$b` is not a module: rust-hdl names array elements `x$0`).
fn parent<'a>(name: &'a str, modules: &HashMap<&str, &str>) -> Option<&'a str> {
    let mut end = name.len();
    while let Some(i) = name[..end].rfind('$') {
        if modules.contains_key(&name[..i]) {
            return Some(&name[..i]);
        }
        end = i;
    }
    None
}

/// Bits of the memory a module body declares (`reg[31:0] mem[127:0];`), if it declares one.
fn memory_bits(body: &str) -> Option<u64> {
    body.lines().find_map(|l| {
        let t = l.trim();
        let rest = t.strip_prefix("reg")?.trim_start();
        let (width, rest) = range_len(rest)?;
        let rest = rest.trim_start();
        let bracket = rest.find('[')?;
        let name = rest[..bracket].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let (depth, tail) = range_len(&rest[bracket..])?;
        (tail.trim() == ";").then_some(width * depth)
    })
}

/// Parses a leading `[hi:lo]` and returns its length and the rest.
fn range_len(s: &str) -> Option<(u64, &str)> {
    let s = s.strip_prefix('[')?;
    let close = s.find(']')?;
    let (hi, lo) = s[..close].split_once(':')?;
    let (hi, lo): (u64, u64) = (hi.trim().parse().ok()?, lo.trim().parse().ok()?);
    Some((hi.abs_diff(lo) + 1, &s[close + 1..]))
}

/// A black-box stub of a module: its header and port declarations only.
fn stub(body: &str) -> String {
    let mut out = String::from("(* blackbox *)\n");
    for l in body.lines() {
        let t = l.trim_start();
        if t.starts_with("module ") {
            out.push_str(l);
            out.push('\n');
        } else if t.starts_with("input ") || t.starts_with("output ") || t.starts_with("inout ") {
            out.push_str(&l.replacen(" reg ", " wire ", 1));
            out.push('\n');
        }
    }
    out.push_str("endmodule\n");
    out
}

/// The tree of `verilog`'s modules: each module's body, and its children (by [`parent`]) in
/// file order. A block is a module with children.
struct Tree<'a> {
    bodies: HashMap<&'a str, &'a str>,
    children: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Tree<'a> {
    fn new(names: &'a [(String, &'a str)], top: &str) -> Result<Tree<'a>> {
        let bodies: HashMap<&str, &str> = names.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        anyhow::ensure!(bodies.contains_key(top), "no module {top} in the Verilog");
        let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
        for (name, _) in names {
            if let Some(p) = parent(name, &bodies) {
                children.entry(p).or_default().push(name.as_str());
            }
        }
        Ok(Tree { bodies, children })
    }

    fn is_block(&self, m: &str) -> bool {
        self.children.contains_key(m)
    }

    fn kids(&self, m: &str) -> &[&'a str] {
        self.children.get(m).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The Verilog to map for block `m`: its body, its leaf children (flops) whole, its block
    /// children and RAMs as black-box stubs. Returns it with the RAMs and the instance names of
    /// the black boxes.
    fn unit(&self, m: &str) -> (String, Vec<Ram>, Vec<String>) {
        let body_m = self.bodies[m];
        let mut text = body_m.to_string();
        let mut rams = Vec::new();
        let mut boxes = Vec::new();
        for &k in self.kids(m) {
            let body = self.bodies[k];
            let boxed = if self.is_block(k) {
                true
            } else if let Some(bits) = memory_bits(body) {
                rams.push(Ram { module: k.to_string(), bits });
                true
            } else {
                false
            };
            if boxed {
                text.push_str(&stub(body));
                // A child is instantiated as `<module> <instance>(…` (rust-hdl ends the line there).
                boxes.extend(
                    body_m
                        .lines()
                        .filter_map(|l| l.trim().strip_prefix(k)?.strip_prefix(' ')?.split_once('(').map(|(name, _)| name.trim()))
                        .filter(|name| !name.is_empty())
                        .map(str::to_string),
                );
            } else {
                text.push_str(body);
            }
        }
        (text, rams, boxes)
    }
}

/// The Verilog that [`map_blocks`] maps for block `block` of `top` in `verilog`: its own body and
/// flops, its block children and RAMs as black-box stubs, with the RAMs it holds. It lets a test
/// check one block whose storage is a RAM (the chunk packer) without mapping that RAM as flops.
pub fn block_source(verilog: &str, top: &str, block: &str) -> Result<(String, Vec<Ram>)> {
    let modules = rtl_gen::module_bodies(verilog)?;
    let tree = Tree::new(&modules, top)?;
    anyhow::ensure!(tree.is_block(block), "{block} is not a block of {top}");
    let (text, rams, _) = tree.unit(block);
    Ok((text, rams))
}

/// Maps every block of `top` in `verilog` on `lib` for a `period_ps` clock (see the module
/// docs), caching under `work`, and calls `progress` after each distinct block.
pub fn map_blocks(verilog: &str, top: &str, lib: &Liberty, period_ps: f64, work: &Path, mut progress: impl FnMut(&BlockInstance, usize, usize)) -> Result<BlockReport> {
    let modules = rtl_gen::module_bodies(verilog)?;
    let tree = Tree::new(&modules, top)?;
    // Blocks depth first from the top.
    let mut blocks: Vec<(&str, usize)> = Vec::new();
    let mut stack = vec![(top, 0usize)];
    while let Some((m, d)) = stack.pop() {
        blocks.push((m, d));
        for &k in tree.kids(m).iter().rev() {
            if tree.is_block(k) {
                stack.push((k, d + 1));
            }
        }
    }
    let mut seen: HashMap<String, std::result::Result<StageTiming, String>> = HashMap::new();
    let mut instances = Vec::new();
    for (i, (m, depth)) in blocks.iter().enumerate() {
        let (text, rams, boxes) = tree.unit(m);
        let normalised = normalised_source(&text, m);
        let own = match seen.get(&normalised) {
            Some(r) => r.clone().map(|mut t| {
                t.module = m.to_string();
                t.cached = true;
                t
            }),
            None => {
                let r = check_stage(&text, m, lib, period_ps, work).map_err(|e| format!("{e:#}"));
                seen.insert(normalised, r.clone());
                r
            }
        };
        // An output driven by a black box is a child block's or RAM's output, registered (or
        // not) in that child's own figures: only this block's own logic counts here.
        let own = own.map(|mut t| {
            t.unregistered_outputs.retain(|c| !boxes.contains(c));
            t
        });
        let inst = BlockInstance { module: m.to_string(), depth: *depth, own, rams };
        progress(&inst, i + 1, blocks.len());
        instances.push(inst);
    }
    let logic_um2 = instances.iter().filter_map(|b| b.own.as_ref().ok()).map(|t| t.area_um2).sum();
    let unmapped = instances.iter().filter(|b| b.own.is_err()).count();
    let sram_bits: u64 = instances.iter().flat_map(|b| &b.rams).map(|r| r.bits).sum();
    let (worst_abc_delay_ps, worst_module) = instances
        .iter()
        .filter_map(|b| b.own.as_ref().ok())
        .map(|t| (t.abc_delay_ps, t.module.clone()))
        .fold((f64::NEG_INFINITY, String::new()), |a, b| if b.0 > a.0 { b } else { a });
    let unregistered_blocks = instances.iter().filter(|b| b.own.as_ref().is_ok_and(|t| !t.unregistered_outputs.is_empty())).count();
    Ok(BlockReport {
        top: top.to_string(),
        library: lib.name.clone(),
        period_ps,
        distinct_blocks: seen.len(),
        instances,
        logic_um2,
        unmapped,
        sram_bits,
        sram_estimate_um2: sram_bits as f64 * SRAM_BITCELL_UM2 / SRAM_ARRAY_EFFICIENCY,
        worst_abc_delay_ps,
        worst_module,
        unregistered_blocks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_declarations_are_counted() {
        assert_eq!(memory_bits("    input wire a;\n    reg[31:0] mem[127:0];\n"), Some(32 * 128));
        assert_eq!(memory_bits("    reg [7:0] q;\n"), None);
        assert_eq!(memory_bits("    reg [255:0] mem [0:31];\n"), Some(256 * 32));
    }

    #[test]
    fn parents_skip_array_suffixes_that_are_not_modules() {
        let m: HashMap<&str, &str> = [("t", ""), ("t$a", ""), ("t$a$x", ""), ("t$r$0", "")].into_iter().collect();
        assert_eq!(parent("t$a$x", &m), Some("t$a"));
        assert_eq!(parent("t$r$0", &m), Some("t"));
        assert_eq!(parent("t", &m), None);
    }

    #[test]
    fn stubs_keep_the_ports_only() {
        let body = "module t$k(clock,q);\n    \n    // Module arguments\n    input wire  clock;\n    output reg  [3:0] q;\n    reg [3:0] n;\n    always @(posedge clock) q <= n;\nendmodule // t$k\n";
        assert_eq!(stub(body), "(* blackbox *)\nmodule t$k(clock,q);\n    input wire  clock;\n    output wire  [3:0] q;\nendmodule\n");
    }
}
