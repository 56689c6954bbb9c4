//! The engine clock the harness converts cycles with, and where it came from: `--engine-clock-ghz`
//! if given; else the `max_clock_mhz` of a committed area-model result `docs/area/*.delay.json`
//! (the fastest, if several); else the documented fallback of `docs/AREA.md` (86 MHz, ASAP7, the
//! delay-mapped compressor lane measured by OpenSTA).

use anyhow::{Context, Result, ensure};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// docs/AREA.md "Max clock: measured", ASAP7: the fallback when no result file is committed, MHz.
pub const AREA_MD_FALLBACK_MHZ: f64 = 86.0;

/// The clock and its source.
#[derive(Clone, Debug, Serialize)]
pub struct EngineClock {
    /// Clock in MHz.
    pub mhz: f64,
    /// Where it came from, in words.
    pub source: String,
}

impl EngineClock {
    /// Nanoseconds of `cycles` cycles.
    pub fn ns(&self, cycles: u64) -> f64 {
        cycles as f64 * 1e3 / self.mhz
    }

    /// Throughput in GB/s (10^9 B/s) of `bytes_per_cycle` at this clock.
    pub fn gbps(&self, bytes_per_cycle: f64) -> f64 {
        bytes_per_cycle * self.mhz / 1e3
    }
}

/// Default location of the committed area results.
pub fn default_area_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/area")
}

/// Resolves the clock: the override (GHz), else the fastest `max_clock_mhz` in `area_dir`'s
/// `*.delay.json`, else [`AREA_MD_FALLBACK_MHZ`].
pub fn resolve(override_ghz: Option<f64>, area_dir: &Path) -> Result<EngineClock> {
    if let Some(g) = override_ghz {
        ensure!(g.is_finite() && g > 0.0, "--engine-clock-ghz {g}: must be a positive number");
        return Ok(EngineClock { mhz: g * 1e3, source: "--engine-clock-ghz".into() });
    }
    Ok(match fastest_delay_file(area_dir)? {
        Some(f) => EngineClock { mhz: f.mhz, source: format!("max_clock_mhz of {}", f.path.display()) },
        None => EngineClock {
            mhz: AREA_MD_FALLBACK_MHZ,
            source: format!("no docs/area/*.delay.json with max_clock_mhz; docs/AREA.md fallback ({AREA_MD_FALLBACK_MHZ} MHz measured for the compressor lane, ASAP7)"),
        },
    })
}

/// A committed `*.delay.json` and what the clock reads from it.
struct DelayFile {
    /// Its `max_clock_mhz`.
    mhz: f64,
    /// Its `library` (absent in files that predate the field).
    library: Option<String>,
    /// Where it is.
    path: PathBuf,
}

/// The `*.delay.json` of `area_dir` with the fastest `max_clock_mhz`, if any has one.
fn fastest_delay_file(area_dir: &Path) -> Result<Option<DelayFile>> {
    let mut best: Option<DelayFile> = None;
    if let Ok(entries) = std::fs::read_dir(area_dir) {
        for e in entries.flatten() {
            let p = e.path();
            if !p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".delay.json")) {
                continue;
            }
            let text = std::fs::read_to_string(&p).with_context(|| format!("{}: cannot read", p.display()))?;
            let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", p.display()))?;
            let Some(mhz) = v.get("max_clock_mhz") else { continue };
            let mhz = mhz.as_f64().filter(|m| m.is_finite() && *m > 0.0).with_context(|| format!("{}: max_clock_mhz is not a positive number", p.display()))?;
            if best.as_ref().is_none_or(|b| mhz > b.mhz) {
                let library = v.get("library").and_then(serde_json::Value::as_str).map(str::to_string);
                best = Some(DelayFile { mhz, library, path: p });
            }
        }
    }
    Ok(best)
}

/// The slowest block of the engine top as `area-model --blocks` mapped it on its own (ABC's
/// delay, not OpenSTA): the host-to-device blocks are not yet timed as a whole, so this bounds
/// what the whole engine can run at, which the clock above may exceed.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BlockBound {
    /// The block module.
    pub module: String,
    /// Its ABC delay, ps.
    pub abc_delay_ps: f64,
    /// The flop's clock-to-output plus setup that its budget subtracts, ps.
    pub flop_overhead_ps: f64,
    /// `10⁶ / (abc_delay_ps + flop_overhead_ps)`, MHz.
    pub bound_mhz: f64,
    /// The blocks file it came from.
    pub file: String,
}

/// The slowest block of the engine top ([`engine::hw::ENGINE_MODULE`]) in `area_dir`'s `pz_engine.<library>.blocks.json`, on the
/// library of the delay file the clock comes from (its `library`; every library when it names
/// none), or `None` when no such file is committed.
pub fn slowest_block(area_dir: &Path) -> Result<Option<BlockBound>> {
    let library = fastest_delay_file(area_dir)?.and_then(|f| f.library);
    let mut worst: Option<BlockBound> = None;
    let Ok(entries) = std::fs::read_dir(area_dir) else { return Ok(None) };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some(lib) = name.strip_prefix(&format!("{}.", engine::hw::ENGINE_MODULE)).and_then(|n| n.strip_suffix(".blocks.json")) else { continue };
        if library.as_deref().is_some_and(|l| l != lib) {
            continue;
        }
        let text = std::fs::read_to_string(&p).with_context(|| format!("{}: cannot read", p.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", p.display()))?;
        let field = |v: &serde_json::Value, k: &str| v.get(k).and_then(serde_json::Value::as_f64).filter(|x| x.is_finite());
        let module = v.get("worst_module").and_then(serde_json::Value::as_str).with_context(|| format!("{}: no worst_module", p.display()))?;
        let delay = field(&v, "worst_abc_delay_ps").filter(|d| *d > 0.0).with_context(|| format!("{}: worst_abc_delay_ps is not a positive number", p.display()))?;
        let period = field(&v, "period_ps").with_context(|| format!("{}: no period_ps", p.display()))?;
        let instance = v
            .get("instances")
            .and_then(serde_json::Value::as_array)
            .and_then(|a| a.iter().find(|i| i.get("module").and_then(serde_json::Value::as_str) == Some(module)))
            .with_context(|| format!("{}: {module} is not among its instances", p.display()))?;
        let budget = field(instance, "budget_ps").with_context(|| format!("{}: {module} has no budget_ps", p.display()))?;
        let flop_overhead_ps = (period - budget).max(0.0);
        let bound = BlockBound {
            module: module.to_string(),
            abc_delay_ps: delay,
            flop_overhead_ps,
            bound_mhz: 1e6 / (delay + flop_overhead_ps),
            file: p.display().to_string(),
        };
        if worst.as_ref().is_none_or(|w| bound.bound_mhz < w.bound_mhz) {
            worst = Some(bound);
        }
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_then_file_then_fallback() {
        let dir = tempfile::tempdir().unwrap();
        let c = resolve(None, dir.path()).unwrap();
        assert_eq!(c.mhz, AREA_MD_FALLBACK_MHZ);
        std::fs::write(dir.path().join("lane.delay.json"), r#"{"max_clock_mhz": 120.5}"#).unwrap();
        std::fs::write(dir.path().join("old.delay.json"), r#"{"max_clock_mhz": 90}"#).unwrap();
        std::fs::write(dir.path().join("other.json"), r#"{"max_clock_mhz": 999}"#).unwrap();
        let c = resolve(None, dir.path()).unwrap();
        assert_eq!(c.mhz, 120.5);
        assert!(c.source.contains("lane.delay.json"));
        assert_eq!(resolve(Some(1.5), dir.path()).unwrap().mhz, 1500.0);
        assert!(resolve(Some(-1.0), dir.path()).is_err());
        std::fs::write(dir.path().join("bad.delay.json"), r#"{"max_clock_mhz": "fast"}"#).unwrap();
        let e = resolve(None, dir.path()).unwrap_err().to_string();
        assert!(e.contains("bad.delay.json"), "{e}");
    }

    #[test]
    fn the_slowest_engine_block_bounds_the_clock() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(slowest_block(dir.path()).unwrap(), None);
        // Hand-made: 900 ps of logic + (667 − 605) ps of flop = 962 ps ⇒ 1,039.5 MHz.
        let blocks = |delay: f64| {
            format!(r#"{{"worst_module": "pz_engine$x", "worst_abc_delay_ps": {delay}, "period_ps": 667.0, "instances": [{{"module": "pz_engine$x", "budget_ps": 605.0}}]}}"#)
        };
        std::fs::write(dir.path().join("pz_engine.a.blocks.json"), blocks(900.0)).unwrap();
        std::fs::write(dir.path().join("pz_engine.b.blocks.json"), blocks(1900.0)).unwrap();
        std::fs::write(dir.path().join("pz_d2h_lane.a.blocks.json"), blocks(9000.0)).unwrap();
        let b = slowest_block(dir.path()).unwrap().unwrap();
        assert!(b.file.ends_with("pz_engine.b.blocks.json"), "{b:?}");
        assert!((b.flop_overhead_ps - 62.0).abs() < 1e-9 && (b.bound_mhz - 1e6 / 1962.0).abs() < 1e-9, "{b:?}");
        // With a clock measured on library `a`, only `a`'s blocks bound it.
        std::fs::write(dir.path().join("pz_d2h_lane.a.delay.json"), r#"{"max_clock_mhz": 1300.0, "library": "a"}"#).unwrap();
        let b = slowest_block(dir.path()).unwrap().unwrap();
        assert!(b.file.ends_with("pz_engine.a.blocks.json") && (b.bound_mhz - 1e6 / 962.0).abs() < 1e-9, "{b:?}");
        std::fs::write(dir.path().join("pz_engine.a.blocks.json"), r#"{"worst_module": "pz_engine$y", "worst_abc_delay_ps": 5.0, "period_ps": 667.0, "instances": []}"#).unwrap();
        let e = slowest_block(dir.path()).unwrap_err().to_string();
        assert!(e.contains("pz_engine.a.blocks.json") && e.contains("pz_engine$y"), "{e}");
    }

    #[test]
    fn cycles_convert_at_the_clock() {
        let c = EngineClock { mhz: 100.0, source: String::new() };
        assert_eq!(c.ns(50), 500.0);
        // 64 B per cycle at 100 MHz = 6.4 GB/s.
        assert!((c.gbps(64.0) - 6.4).abs() < 1e-12);
    }
}
