//! `report DIR`: the evaluation as files: `evaluation.json`, one CSV per figure/table, SVG plots
//! (plotters) and an `index.html` that shows them.

use crate::commands::write_atomic;
use crate::eval::{Evaluation, FIG4_BUDGETS, MID_BUDGET};
use crate::grid::{self, CellMean, csv_field, find_mean};
use crate::measure::{CODECS, Precision};
use anyhow::{Context, Result};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// Plot size, pixels.
const SIZE: (u32, u32) = (720, 420);
/// Colours of successive series.
const COLOURS: [RGBColor; 6] = [RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(214, 39, 40), RGBColor(148, 103, 189), RGBColor(140, 86, 75)];

fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("plot: {e:?}")
}

/// Fig. 3 as grouped bars: ratio per model (BF16) for each codec.
pub fn fig3_svg(e: &Evaluation, p: Precision) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let n = e.fig3.len();
        let top = e.fig3.iter().flat_map(|r| r.ratios[p.label()].values().copied()).fold(1.0f64, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("Fig. 3: compression ratio per model ({})", p.label()), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..n as f64, 0f64..top)
            .map_err(plot_err)?;
        let names: Vec<String> = e.fig3.iter().map(|r| r.model.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| names.get(x.floor() as usize).cloned().unwrap_or_default())
            .y_desc("raw bytes / wire bytes (x)")
            .draw()
            .map_err(plot_err)?;
        let bar = 0.8 / CODECS.len() as f64;
        for (c, codec) in CODECS.iter().enumerate() {
            let colour = COLOURS[c % COLOURS.len()];
            chart
                .draw_series(e.fig3.iter().enumerate().map(|(m, r)| {
                    let x0 = m as f64 + 0.1 + c as f64 * bar;
                    Rectangle::new([(x0, 0.0), (x0 + bar, r.ratios[p.label()][*codec])], colour.filled())
                }))
                .map_err(plot_err)?
                .label(*codec)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// Fig. 4 for one platform: mean overhead per policy against the budget.
pub fn fig4_svg(means: &[CellMean], platform: &str, policies: &[String]) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let top = means.iter().filter(|m| m.platform == platform && m.policy != "swap").filter_map(|m| m.overhead_pct).fold(1.0f64, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("Fig. 4: mean overhead, platform {platform} (paper's five models)"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(25f64..95f64, 0f64..top)
            .map_err(plot_err)?;
        chart.configure_mesh().x_desc("budget (% of the unlimited peak)").y_desc("overhead (%)").draw().map_err(plot_err)?;
        for (i, pol) in policies.iter().filter(|p| *p != "swap").enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let pts: Vec<(f64, f64)> = FIG4_BUDGETS.iter().filter_map(|&b| find_mean(means, platform, pol, b).and_then(|m| m.overhead_pct).map(|o| (b * 100.0, o))).collect();
            chart
                .draw_series(LineSeries::new(pts, colour.stroke_width(2)))
                .map_err(plot_err)?
                .label(pol.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// Fig. 6: BW and PlaneZip against the link (a) or the engine (b).
pub fn fig6_svg(e: &Evaluation, axis: &str) -> Result<String> {
    let plats: Vec<_> = e.fig6.spec.platforms.iter().filter(|p| p.name.contains(axis)).collect();
    let x = |p: &planner::platform::Platform| if axis == "link" { p.link_gb_per_s } else { p.engine_gb_per_s };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let xmax = plats.iter().map(|p| x(p)).fold(1.0f64, f64::max) * 1.05;
        let top = e.fig6_means.iter().filter_map(|m| m.overhead_pct).fold(1.0f64, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("Fig. 6{}: overhead at 50 % on platform B vs {axis} GB/s", if axis == "link" { "a" } else { "b" }), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..xmax, 0f64..top)
            .map_err(plot_err)?;
        chart.configure_mesh().x_desc(format!("{axis} (GB/s per direction)")).y_desc("overhead (%)").draw().map_err(plot_err)?;
        for (i, pol) in ["bw", "planezip"].into_iter().enumerate() {
            let colour = COLOURS[i];
            let pts: Vec<(f64, f64)> = plats.iter().filter_map(|p| find_mean(&e.fig6_means, &p.name, pol, MID_BUDGET).and_then(|m| m.overhead_pct).map(|o| (x(p), o))).collect();
            chart
                .draw_series(LineSeries::new(pts, colour.stroke_width(2)))
                .map_err(plot_err)?
                .label(pol)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The SVGs of an evaluation, by file name.
pub fn svgs(e: &Evaluation) -> Result<Vec<(String, String)>> {
    let mut v = vec![("fig3-bf16.svg".to_owned(), fig3_svg(e, Precision::Bf16)?), ("fig3-fp32.svg".to_owned(), fig3_svg(e, Precision::Fp32)?)];
    for p in ["A", "B"] {
        v.push((format!("fig4-{p}.svg"), fig4_svg(&e.fig4_means_paper_models, p, &e.fig4.spec.policies)?));
    }
    v.push(("fig6a-link.svg".into(), fig6_svg(e, "link")?));
    v.push(("fig6b-engine.svg".into(), fig6_svg(e, "engine")?));
    Ok(v)
}

fn fig3_csv(e: &Evaluation) -> String {
    let mut s = String::from("model,paper_model,precision,raw_bytes,zvc,bpc,bx,zbx,planezip,paper_planezip\n");
    for r in &e.fig3 {
        for p in Precision::ALL {
            let ratios: Vec<String> = CODECS.iter().map(|c| format!("{:.4}", r.ratios[p.label()][*c])).collect();
            let paper = if p == Precision::Bf16 { r.paper_bf16_planezip.map_or(String::new(), |x| x.to_string()) } else { String::new() };
            let _ = writeln!(s, "{},{},{},{},{},{}", csv_field(&r.model), r.paper_model, p.label(), r.raw_bytes[p.label()], ratios.join(","), paper);
        }
    }
    s
}

fn table3_csv(e: &Evaluation) -> String {
    let mut s = String::from("category,share_min_pct,share_max_pct,zvc,bpc,bx,zbx,planezip,top_code,top_share_pct\n");
    for r in &e.table3 {
        let ratios: Vec<String> = CODECS.iter().map(|c| format!("{:.4}", r.ratios[*c])).collect();
        let _ = writeln!(s, "{},{:.2},{:.2},{},{},{:.1}", csv_field(&r.category), r.share_pct[0], r.share_pct[1], ratios.join(","), r.top_code, r.top_share_pct);
    }
    s
}

fn table4_csv(e: &Evaluation) -> String {
    let mut s = String::from("model,ratio_it0,ratio_it1,ratio_it2,error_tensor_pct,error_optype_pct,error_global_pct\n");
    for r in &e.table4 {
        let its: Vec<String> = (0..3).map(|i| r.ratio_per_iteration.get(i).map_or(String::new(), |x| format!("{x:.4}"))).collect();
        let _ = writeln!(s, "{},{},{:.3},{:.3},{:.3}", csv_field(&r.model), its.join(","), r.error_pct[0], r.error_pct[1], r.error_pct[2]);
    }
    s
}

/// Writes the report folder; returns the file names written.
pub fn write_report(dir: &Path, e: &Evaluation) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let mut files: Vec<(String, String)> = vec![
        ("evaluation.json".into(), serde_json::to_string_pretty(e)?),
        ("report.txt".into(), crate::eval::render(e)),
        ("fig3.csv".into(), fig3_csv(e)),
        ("table3.csv".into(), table3_csv(e)),
        ("table4.csv".into(), table4_csv(e)),
        ("fig4.csv".into(), grid::to_csv(&e.fig4)),
        ("fig4-measured-engine.csv".into(), grid::to_csv(&e.fig4_measured_engine)),
        ("fig5.csv".into(), grid::to_csv(&e.fig5)),
        ("fig6.csv".into(), grid::to_csv(&e.fig6)),
    ];
    let svgs = svgs(e)?;
    let mut html = String::from("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>PlaneZip evaluation</title></head><body>\n<h1>PlaneZip evaluation</h1>\n");
    let _ = writeln!(html, "<p>Engine backend: {}; clock {:.1} MHz ({}). Wall time {:.1} s.</p>", esc(&e.engine.stream.backend), e.engine.clock.mhz, esc(&e.engine.clock.source), e.wall_s);
    for (name, _) in &svgs {
        let _ = writeln!(html, "<p><img src=\"{name}\" alt=\"{name}\"></p>");
    }
    html.push_str("<h2>Data</h2>\n<ul>\n");
    for (name, _) in &files {
        let _ = writeln!(html, "<li><a href=\"{name}\">{name}</a></li>");
    }
    html.push_str("</ul>\n</body></html>\n");
    files.extend(svgs);
    files.push(("index.html".into(), html));
    for (name, text) in &files {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok(files.into_iter().map(|(n, _)| n).collect())
}

/// Writes only the SVG plots; returns their file names.
pub fn write_svgs(dir: &Path, e: &Evaluation) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let svgs = svgs(e)?;
    for (name, text) in &svgs {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok(svgs.into_iter().map(|(n, _)| n).collect())
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
