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
    let mut best: Option<(f64, PathBuf)> = None;
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
            if best.as_ref().is_none_or(|(b, _)| mhz > *b) {
                best = Some((mhz, p));
            }
        }
    }
    Ok(match best {
        Some((mhz, p)) => EngineClock { mhz, source: format!("max_clock_mhz of {}", p.display()) },
        None => EngineClock {
            mhz: AREA_MD_FALLBACK_MHZ,
            source: format!("no docs/area/*.delay.json with max_clock_mhz; docs/AREA.md fallback ({AREA_MD_FALLBACK_MHZ} MHz measured for the compressor lane, ASAP7)"),
        },
    })
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
    fn cycles_convert_at_the_clock() {
        let c = EngineClock { mhz: 100.0, source: String::new() };
        assert_eq!(c.ns(50), 500.0);
        // 64 B per cycle at 100 MHz = 6.4 GB/s.
        assert!((c.gbps(64.0) - 6.4).abs() < 1e-12);
    }
}
