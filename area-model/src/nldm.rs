//! Re-derives the cell delays of an OpenSTA path from the Liberty tables, independently of
//! OpenSTA: the "check one path by hand" of the area/timing model, done on every reported path.
//!
//! For each cell arc of the worst path (`report_checks -fields {slew cap input_pins}`), the arc's
//! NLDM table (`cell_rise` for a rising output, `cell_fall` for a falling one) of the timing group
//! whose `related_pin` is the input pin on the path is interpolated bilinearly at the input slew
//! and output load OpenSTA printed (linearly extrapolated past the table's last index, as OpenSTA
//! does). The table's `index_1` is the input transition and `index_2` the output load, as in
//! both libraries here (Nangate45 `Timing_7_7`, ASAP7 `delay_template_7x7_x1`). Of the timing
//! groups for one pin pair, those whose `timing_sense` fits the path's edges qualify (an XOR's
//! rising input gives a rising output only through its positive-unate group); if several do
//! (conditional arcs), the largest is kept, as a setup check does. Pre-layout: no wire parasitics, so a net adds no delay.

use anyhow::{Context, Result, ensure};
use serde::Serialize;
use std::collections::HashMap;

/// One row of an OpenSTA data path with `-fields {slew cap input_pins}`.
#[derive(Clone, Debug, PartialEq)]
pub struct PathRow {
    /// Load on an output pin (library capacitance unit); `None` on an input pin.
    pub cap: Option<f64>,
    /// Transition at the pin (library time unit).
    pub slew: f64,
    /// Incremental delay to this pin (library time unit).
    pub delay: f64,
    /// Rising (`^`) or falling (`v`) at this pin.
    pub rise: bool,
    /// Instance path of the pin, e.g. `acc/_097_`.
    pub instance: String,
    /// Pin name, e.g. `Y`.
    pub pin: String,
    /// Library cell, e.g. `XNOR2xp5_ASAP7_75t_R`.
    pub cell: String,
}

/// Parses the data-arrival rows of the first path of an OpenSTA report (the rows naming a cell
/// pin, `inst/pin (CELL)`, between "clock network delay" and "data arrival time").
pub fn path_rows(report: &str) -> Vec<PathRow> {
    let mut rows = Vec::new();
    let mut started = false;
    for line in report.lines() {
        if line.contains("data arrival time") {
            break;
        }
        if line.contains("clock network delay") {
            started = true;
            continue;
        }
        if !started {
            continue;
        }
        let Some(open) = line.rfind('(') else { continue };
        let cell = line[open + 1..].trim_end().trim_end_matches(')').to_string();
        let head: Vec<&str> = line[..open].split_whitespace().collect();
        // [cap] slew delay time edge pin
        let (nums, rest) = head.split_at(head.len().saturating_sub(2));
        let [edge, pin_path] = rest else { continue };
        let Ok(nums) = nums.iter().map(|n| n.parse::<f64>()).collect::<Result<Vec<f64>, _>>() else { continue };
        let (cap, slew, delay) = match nums.as_slice() {
            [cap, slew, delay, _time] => (Some(*cap), *slew, *delay),
            [slew, delay, _time] => (None, *slew, *delay),
            _ => continue,
        };
        let Some((instance, pin)) = pin_path.rsplit_once('/') else { continue };
        rows.push(PathRow { cap, slew, delay, rise: *edge == "^", instance: instance.to_string(), pin: pin.to_string(), cell });
    }
    rows
}

/// One cell arc of a path, as OpenSTA timed it and as the Liberty table gives it.
#[derive(Clone, Debug, Serialize)]
pub struct ArcCheck {
    /// Instance and cell, e.g. `acc/_097_ (XNOR2xp5_ASAP7_75t_R)`.
    pub instance: String,
    /// `A->Y rise`: input pin, output pin, output edge.
    pub arc: String,
    /// Input slew and output load used (library units).
    pub slew: f64,
    /// Output load (library capacitance unit).
    pub load: f64,
    /// OpenSTA's delay (library time unit).
    pub sta: f64,
    /// The table's delay at that slew and load (library time unit).
    pub table: f64,
}

/// Re-derives every cell arc of `rows` from `liberty` (the text OpenSTA read). Errors if a cell,
/// pin, timing group or table is missing.
pub fn check_arcs(rows: &[PathRow], liberty: &str) -> Result<Vec<ArcCheck>> {
    let cells = cell_bodies(liberty)?;
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let Some(load) = row.cap else { continue };
        // The input of the arc: the row before, on the same instance (the clock pin for a flop's
        // output; its slew is the ideal clock's, 0).
        let Some(input) = i.checked_sub(1).map(|j| &rows[j]).filter(|r| r.instance == row.instance) else {
            continue;
        };
        let table_name = if row.rise { "cell_rise" } else { "cell_fall" };
        let cell = *cells.get(row.cell.as_str()).with_context(|| format!("cell {} not in the library", row.cell))?;
        let candidates = arc_tables(cell, &row.pin, &input.pin, table_name, input.rise == row.rise)
            .with_context(|| format!("{} ({}): {}->{} {table_name}", row.instance, row.cell, input.pin, row.pin))?;
        let table = candidates.iter().map(|t| t.at(input.slew, load)).fold(f64::NEG_INFINITY, f64::max);
        out.push(ArcCheck {
            instance: format!("{} ({})", row.instance, row.cell),
            arc: format!("{}->{} {}", input.pin, row.pin, if row.rise { "rise" } else { "fall" }),
            slew: input.slew,
            load,
            sta: row.delay,
            table,
        });
    }
    Ok(out)
}

/// An NLDM table: `values[i][j]` at `index_1[i]` (input transition), `index_2[j]` (load).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Input transitions.
    pub index_1: Vec<f64>,
    /// Output loads.
    pub index_2: Vec<f64>,
    /// Delays, one row per `index_1` entry.
    pub values: Vec<Vec<f64>>,
}

impl Table {
    /// Bilinear interpolation at (`slew`, `load`), linear extrapolation outside the indices.
    pub fn at(&self, slew: f64, load: f64) -> f64 {
        fn segment(index: &[f64], v: f64) -> (usize, f64) {
            if index.len() < 2 {
                return (0, 0.0);
            }
            let k = index.windows(2).position(|w| v < w[1]).unwrap_or(index.len() - 2);
            (k, (v - index[k]) / (index[k + 1] - index[k]))
        }
        let (a, fa) = segment(&self.index_1, slew);
        let (b, fb) = segment(&self.index_2, load);
        let v = |i: usize, j: usize| self.values[i.min(self.values.len() - 1)][j.min(self.values[0].len() - 1)];
        v(a, b) * (1.0 - fa) * (1.0 - fb) + v(a + 1, b) * fa * (1.0 - fb) + v(a, b + 1) * (1.0 - fa) * fb + v(a + 1, b + 1) * fa * fb
    }
}

/// The body (`{ … }` contents) of every cell of a Liberty text, by name, from one pass over it
/// (the ASAP7 merge is 46 MB and a lane path has hundreds of arcs). A cell counts where a line
/// opens it ([`crate::cell_name`]), not inside a comment.
fn cell_bodies(liberty: &str) -> Result<HashMap<&str, &str>> {
    let mut cells = HashMap::new();
    let mut offset = 0;
    for line in liberty.split_inclusive('\n') {
        if let Some(name) = crate::cell_name(line) {
            let open = offset + liberty[offset..].find('{').with_context(|| format!("cell {name} without body"))?;
            let close = matching_brace(liberty, open).with_context(|| format!("cell {name}: unbalanced braces"))?;
            cells.insert(name, &liberty[open + 1..close]);
        }
        offset += line.len();
    }
    Ok(cells)
}

/// Index of the `}` that closes the `{` at `open`.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, c) in text[open..].bytes().enumerate() {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The immediate sub-groups `kind (args) { body }` of a group body, as `(args, body)`.
fn sub_groups<'a>(body: &'a str, kind: &str) -> Vec<(String, &'a str)> {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ if depth == 0
                && body[k..].starts_with(kind)
                && (k == 0 || !ident(bytes[k - 1]))
                && !bytes.get(k + kind.len()).is_some_and(|&b| ident(b)) =>
            {
                // kind ( args ) { body }: positions found as suffixes of `body`.
                let t = body[k + kind.len()..].trim_start();
                if let Some(args) = t.strip_prefix('(') {
                    let args_at = body.len() - args.len();
                    if let Some(close) = body[args_at..].find(')').map(|c| args_at + c) {
                        let after = body[close + 1..].trim_start();
                        if after.starts_with('{') {
                            let open = body.len() - after.len();
                            if let Some(end) = matching_brace(body, open) {
                                out.push((body[args_at..close].trim().trim_matches('"').to_string(), &body[open + 1..end]));
                                k = end + 1;
                                continue;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// The value of a simple attribute `name : value ;` at the top level of a group body.
fn attribute(body: &str, name: &str) -> Option<String> {
    body.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.trim().trim_end_matches(';').trim().trim_matches('"').to_string())
    })
}

/// The numbers of a complex attribute `name ("a, b", "c, d");` (continuation backslashes allowed).
fn numbers(body: &str, name: &str) -> Result<Vec<Vec<f64>>> {
    let at = body.find(&format!("{name} (")).or_else(|| body.find(&format!("{name}("))).with_context(|| format!("no {name}"))?;
    let open = at + body[at..].find('(').context("(")?;
    let close = open + body[open..].find(')').context(")")?;
    body[open + 1..close]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|row| row.split(',').map(|x| x.trim().parse::<f64>().with_context(|| format!("{name}: {x:?}"))).collect())
        .collect()
}

/// The `table_name` tables of the timing groups of output pin `pin` related to `related` whose
/// `timing_sense` allows the edges on the path: `same_edge` (input and output both rise or both
/// fall) excludes negative-unate groups, opposite edges exclude positive-unate ones. An XOR's
/// pin has one group of each sense (under complementary `when` conditions); the edges pick one,
/// as in OpenSTA. Clock-to-output arcs (`rising_edge`) have no sense and always qualify.
fn arc_tables(cell: &str, pin: &str, related: &str, table_name: &str, same_edge: bool) -> Result<Vec<Table>> {
    let (_, pin_body) = sub_groups(cell, "pin").into_iter().find(|(a, _)| a == pin).with_context(|| format!("no pin {pin}"))?;
    let mut tables = Vec::new();
    for (_, timing) in sub_groups(pin_body, "timing") {
        if attribute(timing, "related_pin").as_deref() != Some(related) {
            continue;
        }
        match attribute(timing, "timing_sense").as_deref() {
            Some("positive_unate") if !same_edge => continue,
            Some("negative_unate") if same_edge => continue,
            _ => {}
        }
        for (_, t) in sub_groups(timing, table_name) {
            let index_1 = numbers(t, "index_1")?.concat();
            let index_2 = numbers(t, "index_2")?.concat();
            let values = numbers(t, "values")?;
            ensure!(values.len() == index_1.len() && values.iter().all(|r| r.len() == index_2.len()), "table shape");
            tables.push(Table { index_1, index_2, values });
        }
    }
    ensure!(!tables.is_empty(), "no {table_name} table for {related}->{pin}");
    Ok(tables)
}

/// Clock-to-output delay and setup time of a flip-flop cell, read from its Liberty tables.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlopArcs {
    /// The cell.
    pub cell: String,
    /// Largest `cell_rise`/`cell_fall` of the `rising_edge` arcs CLK → output pin (library units).
    pub clk_to_q: f64,
    /// Largest `rise_constraint`/`fall_constraint` of the `setup_rising` check of the data pin
    /// (library units).
    pub setup: f64,
}

/// The clock-to-output and setup arcs of flip-flop `cell` in `liberty`: clock-to-output at
/// (`clock_slew`, `load`) over every output pin, setup at (`data_slew`, `clock_slew`) (the
/// constraint tables' `constrained_pin_transition`, `related_pin_transition`), each the larger
/// of its rise and fall tables. Units are the library's.
pub fn flop_arcs(liberty: &str, cell: &str, clock_slew: f64, data_slew: f64, load: f64) -> Result<FlopArcs> {
    let cells = cell_bodies(liberty)?;
    let body = cells.get(cell).with_context(|| format!("no cell {cell} in the library"))?;
    let mut clk_to_q: Option<f64> = None;
    let mut setup: Option<f64> = None;
    for (_, pin) in sub_groups(body, "pin") {
        for (_, timing) in sub_groups(pin, "timing") {
            let kind = attribute(timing, "timing_type").unwrap_or_default();
            let (names, at) = match kind.as_str() {
                "rising_edge" => (["cell_rise", "cell_fall"], (clock_slew, load)),
                "setup_rising" => (["rise_constraint", "fall_constraint"], (data_slew, clock_slew)),
                _ => continue,
            };
            for name in names {
                for (_, t) in sub_groups(timing, name) {
                    let index_1 = numbers(t, "index_1")?.concat();
                    let index_2 = numbers(t, "index_2")?.concat();
                    let values = numbers(t, "values")?;
                    ensure!(values.len() == index_1.len() && values.iter().all(|r| r.len() == index_2.len()), "{cell}: table shape");
                    let v = Table { index_1, index_2, values }.at(at.0, at.1);
                    let slot = if kind == "rising_edge" { &mut clk_to_q } else { &mut setup };
                    *slot = Some(slot.map_or(v, |s: f64| s.max(v)));
                }
            }
        }
    }
    Ok(FlopArcs {
        cell: cell.to_string(),
        clk_to_q: clk_to_q.with_context(|| format!("{cell}: no clock-to-output arc"))?,
        setup: setup.with_context(|| format!("{cell}: no setup check"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = r#"
library (l) {
  /* cell (INV) in a comment must not be taken for the cell */
  cell (INV) {
    pin (A) { direction : input; }
    pin (Y) {
      direction : output;
      timing () {
        related_pin : "A";
        cell_rise (t) {
          index_1 ("10, 20");
          index_2 ("1, 3");
          values ("5, 9", \
                  "7, 13");
        }
        cell_fall (t) {
          index_1 ("10, 20");
          index_2 ("1, 3");
          values ("4, 8", "6, 10");
        }
      }
    }
  }
}
"#;

    #[test]
    fn table_interpolates_bilinearly_and_extrapolates_linearly() {
        let t = Table { index_1: vec![10.0, 20.0], index_2: vec![1.0, 3.0], values: vec![vec![5.0, 9.0], vec![7.0, 13.0]] };
        assert_eq!(t.at(10.0, 1.0), 5.0);
        assert_eq!(t.at(20.0, 3.0), 13.0);
        assert_eq!(t.at(15.0, 2.0), (5.0 + 9.0 + 7.0 + 13.0) / 4.0);
        // Past the last load: the last segment's slope (at slew 10: 2 per unit of load).
        assert_eq!(t.at(10.0, 5.0), 13.0);
    }

    #[test]
    fn report_rows_are_parsed_and_arcs_rederived() {
        let report = "\
            0.000    0.000    0.000   clock clk (rise edge)
                     0.000    0.000   clock network delay (ideal)
           15.000    0.000    0.000 ^ u1/A (INV)
   2.000   12.000    9.000    9.000 v u1/Y (INV)
           12.000    0.000    9.000 v u2/A (INV)
   3.000    8.000   11.400   20.400 ^ u2/Y (INV)
                             20.400   data arrival time
";
        let rows = path_rows(report);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[1], PathRow { cap: Some(2.0), slew: 12.0, delay: 9.0, rise: false, instance: "u1".into(), pin: "Y".into(), cell: "INV".into() });
        let arcs = check_arcs(&rows, LIB).unwrap();
        assert_eq!(arcs.len(), 2);
        // u1: fall at slew 15, load 2 = mean of 4, 8, 6, 10 = 7 (OpenSTA printed 9: a wrong figure shows).
        assert_eq!((arcs[0].arc.as_str(), arcs[0].table, arcs[0].sta), ("A->Y fall", 7.0, 9.0));
        // u2: rise at slew 12, load 3: 9 + 0.2 × (13 − 9) = 9.8.
        assert!((arcs[1].table - 9.8).abs() < 1e-9, "{}", arcs[1].table);
        assert!(check_arcs(&rows, &LIB.replace("cell (INV)", "cell (BUF)")).is_err(), "a missing cell is an error");
    }

    /// An XOR pin with a positive- and a negative-unate group: the path's edges choose the group.
    #[test]
    fn edges_choose_between_the_unate_groups_of_an_xor_pin() {
        let group = |sense: &str, v: &str| {
            format!(
                "timing () {{\n related_pin : \"B\";\n timing_sense : {sense};\n \
                 cell_rise (t) {{\n index_1 (\"1, 2\");\n index_2 (\"1, 2\");\n values (\"{v}, {v}\", \"{v}, {v}\");\n }}\n}}\n"
            )
        };
        let lib = format!(
            "cell (XOR) {{\n pin (Y) {{ {} {} }}\n}}\n",
            group("positive_unate", "10"),
            group("negative_unate", "30")
        );
        let row = |rise: bool, pin: &str, cap: Option<f64>| PathRow {
            cap,
            slew: 1.0,
            delay: 10.0,
            rise,
            instance: "x".into(),
            pin: pin.into(),
            cell: "XOR".into(),
        };
        let same = check_arcs(&[row(true, "B", None), row(true, "Y", Some(1.0))], &lib).unwrap();
        assert_eq!(same[0].table, 10.0, "rise -> rise: positive-unate group");
        let opposite = check_arcs(&[row(false, "B", None), row(true, "Y", Some(1.0))], &lib).unwrap();
        assert_eq!(opposite[0].table, 30.0, "fall -> rise: negative-unate group");
    }
}
