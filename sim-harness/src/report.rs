//! Text rendering of the `ratios` report.

use crate::ratios::{TensorReport, Totals, ratio};
use std::fmt::Write as _;

/// Renders per-tensor rows (unless `summary`) and the totals as aligned text tables.
pub fn ratios_table(reports: &[TensorReport], totals: &[Totals], per_model: &[(String, Vec<Totals>)], summary: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Compression ratio = uncompressed bytes / wire bytes (4 KB chunks with 2-byte headers, padding, raw-chunk fallback;");
    let _ = writeln!(s, "PlaneZip also pays its 3-bit tag per block). Measured by the golden size model on the files given.");
    if !summary {
        let _ = writeln!(s, "\n{:<44} {:<22} {:>4} {:>12} {:>7} {:>9} {:>7} {:>7} {:>9}", "tensor", "precision", "w", "raw bytes", "ZVC", "BPC(DBX)", "BX", "ZBX", "PlaneZip");
        for r in reports {
            let name = format!("{}:{}", r.model, r.name);
            let _ = write!(s, "{:<44} {:<22} {:>4} {:>12}", clip(&name, 44), r.precision, r.symbol_bits, r.raw_bytes);
            for (i, (_, w)) in r.wire_bytes.columns().iter().enumerate() {
                let width = [7, 9, 7, 7, 9][i];
                let _ = write!(s, " {:>width$}", format!("{:.3}x", ratio(r.raw_bytes, *w)));
            }
            s.push('\n');
        }
    }
    let _ = writeln!(s, "\nTotals, byte-weighted:\n{:<22} {:>7} {:>14} {:>7} {:>9} {:>7} {:>7} {:>9}", "precision", "tensors", "raw bytes", "ZVC", "BPC(DBX)", "BX", "ZBX", "PlaneZip");
    for t in totals {
        let _ = write!(s, "{:<22} {:>7} {:>14}", t.precision, t.tensors, t.raw_bytes);
        for (i, (_, w)) in t.wire_bytes.columns().iter().enumerate() {
            let width = [7, 9, 7, 7, 9][i];
            let _ = write!(s, " {:>width$}", format!("{:.3}x", ratio(t.raw_bytes, *w)));
        }
        s.push('\n');
    }
    if per_model.len() > 1 {
        let _ = writeln!(s, "\nPer model, byte-weighted:\n{:<20} {:<22} {:>14} {:>7} {:>9} {:>7} {:>7} {:>9}", "model", "precision", "raw bytes", "ZVC", "BPC(DBX)", "BX", "ZBX", "PlaneZip");
        for (m, ts) in per_model {
            for t in ts {
                let _ = write!(s, "{:<20} {:<22} {:>14}", m, t.precision, t.raw_bytes);
                for (i, (_, w)) in t.wire_bytes.columns().iter().enumerate() {
                    let width = [7, 9, 7, 7, 9][i];
                    let _ = write!(s, " {:>width$}", format!("{:.3}x", ratio(t.raw_bytes, *w)));
                }
                s.push('\n');
            }
        }
    }
    let _ = writeln!(s, "\nPlaneZip code chosen per block (share of blocks):\n{:<22} {:>12} {:>7} {:>7} {:>7} {:>7} {:>7}", "precision", "blocks", "ZVC", "DBX", "BX", "ZBX", "raw");
    for t in totals {
        let n: usize = t.blocks_by_tag.iter().sum();
        let _ = write!(s, "{:<22} {:>12}", t.precision, n);
        for c in t.blocks_by_tag {
            let _ = write!(s, " {:>6.1}%", 100.0 * c as f64 / n.max(1) as f64);
        }
        s.push('\n');
    }
    s
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("…{}", s.chars().rev().take(n - 1).collect::<Vec<_>>().into_iter().rev().collect::<String>()) }
}
