//! End-to-end tests of `sim-harness policies` on the captured models in `data/` (whichever are
//! present) and on broken copies of one.

use planner::platform::Platform;
use planner::trace::Trace;
use planner::workload::Workload;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sim-harness")).args(args).output().expect("runs")
}

mod common;
use common::{copy_model_dir, data_root};

/// Model directories present under `data/` (those holding a trace), sorted by name.
fn present_models() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| sim_harness::dump::is_model_dir(p))
        .collect();
    dirs.sort();
    dirs
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

const MAIN: [&str; 6] = ["Recomp", "Swap", "Dte", "Bw", "BwZvc", "PlaneZip"];
const ABLATIONS: [&str; 5] = ["DteCompressed", "BwUnaware", "PlaneZip32", "PlaneZipOpType", "PlaneZipOracle"];

#[test]
fn every_present_model_gets_every_policy_platform_and_budget() {
    let models = present_models();
    assert!(!models.is_empty(), "no model dumps under {}", data_root().display());
    let o = bin(&["policies", "--data", data_root().to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((report["plan_iteration"].as_u64(), report["transfer_iteration"].as_u64()), (Some(1), Some(2)));

    // The table covers exactly the models present, with the unmatched share reported.
    let names: Vec<&str> = report["models"].as_array().unwrap().iter().map(|m| m["model"].as_str().unwrap()).collect();
    assert_eq!(names.len(), models.len(), "{names:?}");
    for (m, dir) in report["models"].as_array().unwrap().iter().zip(&models) {
        let meta: Value = serde_json::from_slice(&std::fs::read(dir.join("metadata.json")).unwrap()).unwrap();
        assert_eq!(m["model"], meta["model"]);
        let share = num(&m["unmatched_saved_bytes_share"]).expect("unmatched share reported");
        // Our share (saved bytes of trace-train.json without a sample) agrees with the capture tool's.
        let theirs = num(&meta["match"]["unmatched_saved_bytes_share"]).unwrap();
        assert!((0.0..=1.0).contains(&share) && (share - theirs).abs() < 1e-3, "{}: {share} vs {theirs}", m["model"]);
    }

    let runs = report["runs"].as_array().unwrap();
    let find = |model: &str, row: &str, platform: &str, budget: f64| {
        let hits: Vec<&Value> = runs
            .iter()
            .filter(|r| r["model"] == model && r["row"] == row && r["platform"] == platform && num(&r["budget_fraction"]) == Some(budget))
            .collect();
        assert_eq!(hits.len(), 1, "{model} {row} {platform} {budget}");
        hits[0]
    };
    for model in &names {
        for platform in ["A", "B"] {
            let mut points: Vec<(&str, f64)> = MAIN.iter().flat_map(|&r| [(r, 0.3), (r, 0.5)]).collect();
            points.extend(ABLATIONS.iter().map(|&r| (r, 0.3)));
            for (row, budget) in points {
                let run = find(model, row, platform, budget);
                // A policy either ran, never faster than unlimited memory, or says why not.
                match num(&run["overhead_pct"]) {
                    Some(pct) => assert!(pct >= -1e-9, "{model} {row} {platform} {budget}: {pct} %"),
                    None => assert!(run["error"].is_string(), "{run}"),
                }
            }
            for budget in [0.3, 0.5] {
                let recomp = num(&find(model, "Recomp", platform, budget)["overhead_pct"]);
                // BW's portfolio contains RECOMP's plan and runs with the sizes it planned with.
                if let (Some(bw), Some(recomp)) = (num(&find(model, "Bw", platform, budget)["overhead_pct"]), recomp) {
                    assert!(bw <= recomp + 1e-9, "{model} {platform} {budget}: BW {bw} > RECOMP {recomp}");
                }
                // So does PlaneZip with oracle ratios (planned with the sizes it transfers).
                if budget == 0.3
                    && let (Some(oracle), Some(recomp)) = (num(&find(model, "PlaneZipOracle", platform, budget)["overhead_pct"]), recomp)
                {
                    assert!(oracle <= recomp + 1e-9, "{model} {platform}: oracle {oracle} > RECOMP {recomp}");
                }
            }
        }
    }

    // RECOMP finds a plan for every model at 50 % (dropout replays from its saved RNG state).
    for model in &names {
        for platform in ["A", "B"] {
            let run = find(model, "Recomp", platform, 0.5);
            assert!(num(&run["overhead_pct"]).is_some(), "{model} {platform}: {run}");
        }
    }
    // Every run with a plan carries its stall and recompute time and swapped bytes.
    for run in runs {
        if num(&run["overhead_pct"]).is_some() {
            for field in ["stall_ms", "recompute_ms", "swapped_raw_bytes", "swapped_wire_bytes", "swapped_tensors", "dropped_tensors"] {
                assert!(num(&run[field]).is_some_and(|v| v >= 0.0), "{field}: {run}");
            }
        }
    }

    // Means are over one model group each (the paper's five, or ours): the mean of the runs of
    // that group that produced a plan, and every run without one is listed with its reason.
    let paper_models = ["resnet50", "densenet121", "efficientnet_b0", "vit_b16", "gpt2"];
    let group_of = |model: &str| if paper_models.contains(&model) { "Paper" } else { "Ours" };
    let means = report["means"].as_array().unwrap();
    assert!(means.iter().any(|m| m["group"] == "Paper") || !names.iter().any(|m| group_of(m) == "Paper"));
    for mean in means {
        let of: Vec<&Value> = runs
            .iter()
            .filter(|r| r["row"] == mean["row"] && r["platform"] == mean["platform"] && r["budget_fraction"] == mean["budget_fraction"])
            .filter(|r| group_of(r["model"].as_str().unwrap()) == mean["group"].as_str().unwrap())
            .collect();
        let ok: Vec<f64> = of.iter().filter_map(|r| num(&r["overhead_pct"])).collect();
        assert_eq!(mean["models"].as_u64(), Some(ok.len() as u64));
        assert_eq!(mean["of_models"].as_u64(), Some(of.len() as u64));
        let failed: Vec<&str> = mean["failed"].as_array().unwrap().iter().map(|f| f["model"].as_str().unwrap()).collect();
        let expected: Vec<&str> = of.iter().filter(|r| r["error"].is_string()).map(|r| r["model"].as_str().unwrap()).collect();
        assert_eq!(failed, expected);
        if let Some(m) = num(&mean["overhead_pct"]) {
            assert!((m - ok.iter().sum::<f64>() / ok.len() as f64).abs() < 1e-9);
        }
        if mean["group"] == "Ours" {
            assert!(mean["paper_pct"].is_null(), "{mean}");
        }
    }

    // The §V-C/D counts are those of the runs of the paper's five models.
    let paper_runs = |row: &'static str| runs.iter().filter(move |r| r["row"] == row && paper_models.contains(&r["model"].as_str().unwrap()));
    let sec = &report["secondary"];
    let dte: Vec<&Value> = paper_runs("Dte").filter(|r| r["error"].is_null()).collect();
    assert_eq!(sec["dte_swaps_nothing"]["of"].as_u64(), Some(dte.len() as u64));
    assert_eq!(sec["dte_swaps_nothing"]["count"].as_u64(), Some(dte.iter().filter(|r| r["swapped_tensors"] == 0).count() as u64));
    let pz: Vec<&Value> = paper_runs("PlaneZip").filter(|r| r["error"].is_null()).collect();
    assert_eq!(sec["compression_aware_kept"]["count"].as_u64(), Some(pz.iter().filter(|r| r["compression_aware_plan"] == true).count() as u64));
    for v in sec["planezip_vs_bw"].as_array().unwrap() {
        let (platform, budget) = (v["platform"].as_str().unwrap(), num(&v["budget_fraction"]).unwrap());
        let bytes: u64 = paper_runs("PlaneZip").filter(|r| r["platform"] == platform && num(&r["budget_fraction"]) == Some(budget)).filter_map(|r| r["swapped_raw_bytes"].as_u64()).sum();
        assert_eq!(v["planezip_swapped_raw_bytes"].as_u64(), Some(bytes), "{v}");
    }

    // Calibration: batch / unlimited-memory iteration time of ResNet-50's training trace on B.
    if let Some(dir) = models.iter().find(|d| d.ends_with("resnet50")) {
        let trace = Trace::load(sim_harness::dump::trace_path(dir, sim_harness::dump::TRAIN_TRACE_FILE)).unwrap();
        let w = Workload::new(&trace, &Platform::b());
        let expected = trace.batch as f64 * 1e9 / w.unlimited_ns();
        let got = num(&report["calibration"]["images_per_s"]).unwrap();
        assert!((got - expected).abs() < 1e-6 * expected, "{got} vs {expected}");
        assert_eq!(num(&report["calibration"]["paper_images_per_s"]), Some(2_529.0));
    } else {
        assert!(report["calibration"].is_null());
    }
}

#[test]
fn text_report_lists_the_models_and_the_paper_means() {
    let model = present_models().into_iter().next().unwrap();
    let o = bin(&["policies", model.to_str().unwrap(), "--no-ablations"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let name = model.file_name().unwrap().to_str().unwrap();
    assert!(text.lines().any(|l| l.starts_with(name) && l.contains("PlaneZip")), "{text}");
    // The paper's 50 % means sit beside ours, over the paper's models: PlaneZip 3.5 (A) and 9.0 (B).
    let means = text.split("Mean overhead (%) over the paper's five models").nth(1).expect("paper-model means");
    let row = means.lines().find(|l| l.starts_with("PlaneZip ")).unwrap();
    assert!(row.contains("(3.5)") && row.contains("(9.0)"), "{row}");
    // Per-run stall, recompute and swapped bytes, and the secondary figures.
    assert!(text.contains("stall ms") && text.contains("recomp ms") && text.contains("swap GB"), "{text}");
    assert!(text.contains("DTE swaps nothing in ") && text.contains("compression-aware plan in "), "{text}");
    assert!(text.contains("Within 5 % of full speed down to X % of the peak"), "{text}");
    assert!(!text.contains("oracle"), "ablations were skipped");
    assert!(text.contains("plan with iteration 1, transfer with iteration 2"));
}

#[test]
fn budgets_flag_runs_thirty_to_ninety_percent() {
    let model = present_models().into_iter().find(|d| d.ends_with("resnet50")).expect("data/resnet50");
    let o = bin(&["policies", model.to_str().unwrap(), "--no-ablations", "--budgets", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = report["runs"].as_array().unwrap();
    for row in MAIN {
        for platform in ["A", "B"] {
            let mut budgets: Vec<f64> = runs.iter().filter(|r| r["row"] == row && r["platform"] == platform).map(|r| num(&r["budget_fraction"]).unwrap()).collect();
            budgets.sort_by(f64::total_cmp);
            assert_eq!(budgets, vec![0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], "{row} {platform}");
        }
    }
    // One model, two platforms, seven budgets: 14 configurations per policy.
    assert_eq!(report["secondary"]["dte_swaps_nothing"]["of"].as_u64().unwrap() + report["secondary"]["dte_swaps_nothing"]["failed"].as_u64().unwrap(), 14);
    // "Within 5 %": the budget X lies where the overhead crosses 5 % between two measured budgets.
    for fs in report["secondary"]["full_speed"].as_array().unwrap() {
        let (row, platform) = (fs["row"].as_str().unwrap(), fs["platform"].as_str().unwrap());
        let (x, at_most) = (num(&fs["per_model"]["resnet50"][0]).unwrap(), fs["per_model"]["resnet50"][1].as_bool().unwrap());
        let overhead = |b: f64| runs.iter().find(|r| r["row"] == row && r["platform"] == platform && num(&r["budget_fraction"]) == Some(b)).and_then(|r| num(&r["overhead_pct"]));
        if at_most {
            assert_eq!(x, 30.0);
            continue;
        }
        // Every measured budget above X is within 5 %, the one just below it is not (or has no plan).
        for b in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] {
            if b * 100.0 > x + 1e-9 {
                assert!(overhead(b).is_some_and(|o| o <= 5.0 + 1e-9), "{row} {platform} {b}: {x}");
            }
        }
        let below = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].into_iter().rev().find(|&b| b * 100.0 < x - 1e-9);
        if let Some(b) = below {
            assert!(overhead(b).is_none_or(|o| o > 5.0 - 1e-9), "{row} {platform} {b}: {x}");
        }
    }
}

/// Copies the first present model into a temporary directory, applies `damage`, and runs
/// `policies` on the copy.
fn run_on_damaged(damage: impl FnOnce(&Path)) -> Output {
    let src = present_models().into_iter().next().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(src.file_name().unwrap());
    copy_model_dir(&src, &dir);
    damage(&dir);
    bin(&["policies", dir.to_str().unwrap()])
}

#[test]
fn malformed_model_dirs_are_errors_naming_the_file() {
    let o = run_on_damaged(|d| std::fs::write(d.join("metadata.json"), "{\"dump_version\": 1,").unwrap());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("metadata.json"), "{}", stderr(&o));

    let o = run_on_damaged(|d| std::fs::remove_file(d.join("trace-train.json")).unwrap());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("trace-train.json"), "{}", stderr(&o));

    // A truncated tensor file of the transfer iteration.
    let o = run_on_damaged(|d| {
        let p = d.join("iter2.safetensors");
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    });
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("iter2.safetensors"), "{}", stderr(&o));

    // A data root without any model.
    let empty = tempfile::tempdir().unwrap();
    let o = bin(&["policies", "--data", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no model dumps"), "{}", stderr(&o));
}

/// Issue 14 item 8: the ordering DTE ≥ BW ≥ BW+ZVC ≥ PlaneZip of the mean overheads over the
/// paper's five models at 30 % and 50 % of the peak on platforms A and B, from one evaluation.
#[test]
fn mean_overheads_over_the_paper_models_keep_the_papers_ordering() {
    use sim_harness::cli::PoliciesArgs;
    use sim_harness::policies::{BUDGETS, ModelGroup, PAPER_MODELS, Row, evaluate};
    let args = PoliciesArgs {
        models: PAPER_MODELS.iter().map(|m| data_root().join(m)).collect(),
        data: data_root(),
        no_ablations: true,
        budgets: false,
        json: false,
    };
    let report = evaluate(&args).unwrap();
    let mean = |row: Row, platform: &str, budget: f64| {
        let m = report
            .means
            .iter()
            .find(|m| m.row == row && m.group == ModelGroup::Paper && m.platform == platform && m.budget_fraction == budget)
            .unwrap_or_else(|| panic!("no mean for {row:?} {platform} {budget}"));
        assert_eq!((m.models, m.of_models), (PAPER_MODELS.len(), PAPER_MODELS.len()), "{row:?} {platform} {budget}: {:?}", m.failed);
        m.overhead_pct.unwrap()
    };
    for platform in ["A", "B"] {
        for budget in BUDGETS {
            let [dte, bw, zvc, pz] = [Row::Dte, Row::Bw, Row::BwZvc, Row::PlaneZip].map(|r| mean(r, platform, budget));
            let at = format!("{platform} {:.0} %: DTE {dte:.2}, BW {bw:.2}, BW+ZVC {zvc:.2}, PlaneZip {pz:.2} (mean %)", budget * 100.0);
            assert!(dte >= bw, "{at}");
            assert!(bw >= zvc, "{at}");
            assert!(pz <= zvc, "{at}");
        }
    }
}
