//! Modelled GPU platforms (paper Table II) and the operator timing model (§IV "Simulator").
//!
//! An op takes `launch_us + max(flops / achievable math, bytes / achievable
//! memory bandwidth)`; optimizer ops are memory-bound (`flops` ignored). A
//! platform is built in ([`Platform::a`], [`Platform::b`], [`Platform::by_name`])
//! or loaded from a TOML or JSON file with [`Platform::load`].

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Numeric precision of training on a platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// FP32 training: tensors keep their captured sizes.
    Fp32,
    /// BF16 mixed precision: every floating-point tensor takes 2 bytes per
    /// element; integer tensors keep their size; FLOPs are unchanged.
    Bf16Mixed,
}

/// One modelled platform. Bandwidths are per direction, in GB/s (10^9 bytes per second; the
/// fields are named `_gb_per_s` so a file's reader does not take them for gigabits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    /// Short name (`A`, `B`, or a user name).
    pub name: String,
    /// Training precision.
    pub precision: Precision,
    /// Peak math throughput in TFLOP/s for `precision`.
    pub peak_tflops: f64,
    /// Achievable fraction of `peak_tflops`, in (0, 1].
    pub math_efficiency: f64,
    /// Peak device-memory bandwidth in GB/s.
    #[serde(alias = "memory_gbps")]
    pub memory_gb_per_s: f64,
    /// Achievable fraction of `memory_gb_per_s`, in (0, 1].
    pub memory_efficiency: f64,
    /// Host-link (PCIe) bandwidth per direction in GB/s (γ of Eq. 1 and 2).
    #[serde(alias = "link_gbps")]
    pub link_gb_per_s: f64,
    /// Compression-engine throughput per direction in GB/s (B_CE of Eq. 2).
    #[serde(alias = "engine_gbps")]
    pub engine_gb_per_s: f64,
    /// Kernel launch overhead per op in µs.
    #[serde(default = "default_launch_us")]
    pub launch_us: f64,
    /// Setup time per copy-queue transfer in µs.
    #[serde(default = "default_copy_setup_us")]
    pub copy_setup_us: f64,
}

/// What the compression engine takes for one tensor's transfer: Eq. 2's B_CE for that tensor
/// and the latency it adds to the copy (pipeline fill and drain), e.g. from a cycle-accurate run
/// of the engine at its clock. [`Platform::engine_timing`] is the paper's constant engine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EngineTiming {
    /// Throughput the engine sustains on the tensor, GB/s (= bytes per ns).
    pub gb_per_s: f64,
    /// Latency the engine adds to the transfer, ns.
    pub latency_ns: f64,
}

/// Field names of earlier versions (`*_gbps`, which read as gigabits) and their replacements.
/// [`Platform::load`] still accepts the old names, with a warning.
pub const RENAMED_FIELDS: [(&str, &str); 3] =
    [("memory_gbps", "memory_gb_per_s"), ("link_gbps", "link_gb_per_s"), ("engine_gbps", "engine_gb_per_s")];

fn default_launch_us() -> f64 {
    4.0
}
fn default_copy_setup_us() -> f64 {
    5.0
}

/// Why a platform file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlatformError {
    /// The file could not be read.
    #[error("{path}: cannot read platform: {source}")]
    Io {
        /// The platform file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a valid platform description.
    #[error("{path}: malformed platform: {message}")]
    Parse {
        /// The platform file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A parameter is out of range.
    #[error("{}platform {name}: {field} = {value} is out of range ({rule})", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
    Range {
        /// The platform file, when the platform was loaded from one.
        path: Option<PathBuf>,
        /// Platform name.
        name: String,
        /// The field.
        field: &'static str,
        /// Its value.
        value: f64,
        /// The allowed range.
        rule: &'static str,
    },
    /// No built-in platform has this name.
    #[error("unknown built-in platform {0:?} (known: A, B)")]
    UnknownName(String),
}

impl Platform {
    /// Platform A: RTX 2080 Ti, FP32, 13.4 TFLOP/s × 70 %, 616 GB/s × 80 %,
    /// PCIe 3.0 at 12 GB/s per direction, engine 64 GB/s.
    pub fn a() -> Platform {
        Platform {
            name: "A".into(),
            precision: Precision::Fp32,
            peak_tflops: 13.4,
            math_efficiency: 0.70,
            memory_gb_per_s: 616.0,
            memory_efficiency: 0.80,
            link_gb_per_s: 12.0,
            engine_gb_per_s: 64.0,
            launch_us: 4.0,
            copy_setup_us: 5.0,
        }
    }

    /// Platform B: A100 40 GB, BF16 mixed, 312 TFLOP/s × 60 %, 1,555 GB/s ×
    /// 80 %, PCIe 4.0 at 24 GB/s per direction, engine 64 GB/s.
    pub fn b() -> Platform {
        Platform {
            name: "B".into(),
            precision: Precision::Bf16Mixed,
            peak_tflops: 312.0,
            math_efficiency: 0.60,
            memory_gb_per_s: 1555.0,
            memory_efficiency: 0.80,
            link_gb_per_s: 24.0,
            engine_gb_per_s: 64.0,
            launch_us: 4.0,
            copy_setup_us: 5.0,
        }
    }

    /// A built-in platform by name (`A` or `B`, case-insensitive).
    pub fn by_name(name: &str) -> Result<Platform, PlatformError> {
        match name.to_ascii_uppercase().as_str() {
            "A" => Ok(Platform::a()),
            "B" => Ok(Platform::b()),
            _ => Err(PlatformError::UnknownName(name.to_owned())),
        }
    }

    /// Loads a platform from a `.json` file, or TOML for any other extension,
    /// and checks its ranges. Old field names (`*_gbps`, [`RENAMED_FIELDS`]) are accepted with a
    /// warning on stderr; [`Platform::load_with_warnings`] returns the warnings instead.
    pub fn load(path: impl AsRef<Path>) -> Result<Platform, PlatformError> {
        let (platform, warnings) = Platform::load_with_warnings(path)?;
        for w in warnings {
            eprintln!("warning: {w}");
        }
        Ok(platform)
    }

    /// [`Platform::load`], returning one warning per old field name the file uses.
    pub fn load_with_warnings(path: impl AsRef<Path>) -> Result<(Platform, Vec<String>), PlatformError> {
        let path = path.as_ref();
        let text =
            std::fs::read_to_string(path).map_err(|source| PlatformError::Io { path: path.into(), source })?;
        let parse_err = |message: String| PlatformError::Parse { path: path.into(), message };
        let json = path.extension().is_some_and(|e| e == "json");
        // Parse to a generic table first, to see which names the file uses.
        let value: serde_json::Value = if json {
            serde_json::from_str(&text).map_err(|e| parse_err(e.to_string()))?
        } else {
            let table: toml::Table = toml::from_str(&text).map_err(|e| parse_err(e.to_string()))?;
            serde_json::to_value(table).map_err(|e| parse_err(e.to_string()))?
        };
        let mut warnings = Vec::new();
        if let Some(fields) = value.as_object() {
            for (old, new) in RENAMED_FIELDS {
                match (fields.contains_key(old), fields.contains_key(new)) {
                    (true, true) => return Err(parse_err(format!("both `{old}` and `{new}` given (`{old}` is the old name of `{new}`)"))),
                    (true, false) => warnings.push(format!("{}: `{old}` is deprecated, write `{new}` (the value is in GB/s, bytes not bits)", path.display())),
                    _ => {}
                }
            }
        }
        let platform: Platform = serde_json::from_value(value).map_err(|e| parse_err(e.to_string()))?;
        platform.check().map_err(|e| match e {
            PlatformError::Range { name, field, value, rule, .. } => PlatformError::Range { name, field, value, rule, path: Some(path.into()) },
            other => other,
        })?;
        Ok((platform, warnings))
    }

    /// Checks that throughputs are positive and efficiencies lie in (0, 1].
    pub fn check(&self) -> Result<(), PlatformError> {
        let range = |field, value: f64, rule, ok: bool| {
            if ok { Ok(()) } else { Err(PlatformError::Range { name: self.name.clone(), field, value, rule, path: None }) }
        };
        let positive = |field, v: f64| range(field, v, "> 0 and finite", v.is_finite() && v > 0.0);
        let fraction = |field, v: f64| range(field, v, "in (0, 1]", v > 0.0 && v <= 1.0);
        let non_negative = |field, v: f64| range(field, v, ">= 0 and finite", v.is_finite() && v >= 0.0);
        positive("peak_tflops", self.peak_tflops)?;
        fraction("math_efficiency", self.math_efficiency)?;
        positive("memory_gb_per_s", self.memory_gb_per_s)?;
        fraction("memory_efficiency", self.memory_efficiency)?;
        positive("link_gb_per_s", self.link_gb_per_s)?;
        positive("engine_gb_per_s", self.engine_gb_per_s)?;
        non_negative("launch_us", self.launch_us)?;
        non_negative("copy_setup_us", self.copy_setup_us)
    }

    /// Achievable math throughput in FLOP per ns.
    pub fn flops_per_ns(&self) -> f64 {
        self.peak_tflops * 1e3 * self.math_efficiency
    }

    /// Achievable device-memory bandwidth in bytes per ns.
    pub fn memory_bytes_per_ns(&self) -> f64 {
        self.memory_gb_per_s * self.memory_efficiency
    }

    /// Host-link bandwidth γ in bytes per ns.
    pub fn link_bytes_per_ns(&self) -> f64 {
        self.link_gb_per_s
    }

    /// Engine throughput B_CE in bytes per ns.
    pub fn engine_bytes_per_ns(&self) -> f64 {
        self.engine_gb_per_s
    }

    /// Time of an op in ns: launch + max(flops / math, bytes / bandwidth).
    /// `memory_bound` ignores the FLOPs (optimizer step).
    pub fn op_time_ns(&self, flops: u64, bytes: u64, memory_bound: bool) -> f64 {
        let math = if memory_bound { 0.0 } else { flops as f64 / self.flops_per_ns() };
        let memory = bytes as f64 / self.memory_bytes_per_ns();
        self.launch_us * 1e3 + math.max(memory)
    }

    /// Setup time per transfer in ns.
    pub fn copy_setup_ns(&self) -> f64 {
        self.copy_setup_us * 1e3
    }

    /// Eq. 2: copy-queue occupancy in ns of a tensor of `raw_bytes` that
    /// compresses to `wire_bytes`: `min(m/γ, max(w/γ, m/B_CE))`. The engine is
    /// bypassed (raw link time) when compression would not shorten the
    /// transfer. Excludes the per-transfer setup.
    pub fn transfer_ns(&self, raw_bytes: u64, wire_bytes: u64) -> f64 {
        self.transfer_ns_with(raw_bytes, wire_bytes, self.engine_timing())
    }

    /// The platform's engine as an [`EngineTiming`]: `engine_gb_per_s`, no latency (the paper's model).
    pub fn engine_timing(&self) -> EngineTiming {
        EngineTiming { gb_per_s: self.engine_gb_per_s, latency_ns: 0.0 }
    }

    /// Eq. 2 with a per-tensor engine: `min(m/γ, max(w/γ, m/B_CE(t)) + L(t))`, the engine's
    /// throughput on this tensor B_CE(t) and its per-transfer latency L(t) from `engine`.
    /// Excludes the per-transfer setup.
    pub fn transfer_ns_with(&self, raw_bytes: u64, wire_bytes: u64, engine: EngineTiming) -> f64 {
        let raw = raw_bytes as f64 / self.link_bytes_per_ns();
        let wire = wire_bytes as f64 / self.link_bytes_per_ns();
        let through_engine = raw_bytes as f64 / engine.gb_per_s;
        raw.min(wire.max(through_engine) + engine.latency_ns)
    }

    /// Bytes a tensor of `captured_bytes` (dtype `dtype`) takes on this platform.
    pub fn scaled_bytes(&self, captured_bytes: u64, dtype: crate::trace::Dtype) -> u64 {
        match self.precision {
            Precision::Bf16Mixed if dtype.is_float() => captured_bytes / dtype.size_bytes() * 2,
            _ => captured_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Dtype;

    #[test]
    fn per_tensor_engine_adds_its_latency_and_uses_its_rate() {
        let b = Platform::b();
        // Platform B: link 24 GB/s. 1 MB raw, 0.5 MB wire: 41,666.7 ns raw on the link,
        // 20,833.3 ns compressed on the link.
        let (m, w) = (1_000_000u64, 500_000u64);
        // An engine of 64 GB/s (15,625 ns) with 100 ns latency: link-bound, 20,833.3 + 100.
        let fast = EngineTiming { gb_per_s: 64.0, latency_ns: 100.0 };
        assert!((b.transfer_ns_with(m, w, fast) - (500_000.0 / 24.0 + 100.0)).abs() < 1e-6);
        // 32 GB/s: engine-bound, 31,250 + 100 ns.
        let mid = EngineTiming { gb_per_s: 32.0, latency_ns: 100.0 };
        assert!((b.transfer_ns_with(m, w, mid) - 31_350.0).abs() < 1e-6);
        // 16 GB/s (62,500 ns) is slower than the raw link: bypassed, 41,666.7 ns.
        let slow = EngineTiming { gb_per_s: 16.0, latency_ns: 100.0 };
        assert!((b.transfer_ns_with(m, w, slow) - 1_000_000.0 / 24.0).abs() < 1e-6);
        // The platform's own engine is the paper's Eq. 2, no latency.
        assert_eq!(b.transfer_ns(m, w), b.transfer_ns_with(m, w, EngineTiming { gb_per_s: b.engine_gb_per_s, latency_ns: 0.0 }));
    }

    #[test]
    fn op_time_is_launch_plus_roofline() {
        let a = Platform::a();
        // A: math = 13.4e12 FLOP/s * 0.7 = 9,380 FLOP/ns; memory = 616 * 0.8 = 492.8 B/ns.
        // 9.38e6 FLOP -> 1,000 ns; 4,928 B -> 10 ns; + 4,000 ns launch = 5,000 ns.
        assert!((a.op_time_ns(9_380_000, 4_928, false) - 5_000.0).abs() < 1e-6);
        // Memory-bound op: 4,928,000 B -> 10,000 ns > 1,000 ns of math.
        assert!((a.op_time_ns(9_380_000, 4_928_000, false) - 14_000.0).abs() < 1e-6);
        // Memory-bound optimizer op ignores the FLOPs: 4,000 + 10 ns.
        assert!((a.op_time_ns(9_380_000, 4_928, true) - 4_010.0).abs() < 1e-6);
    }

    #[test]
    fn eq2_link_engine_and_bypass() {
        let a = Platform::a(); // γ = 12 B/ns, B_CE = 64 B/ns
        // Link-bound: 1.2 MB at ratio 2 -> wire 600 kB / 12 = 50,000 ns > engine 18,750 ns.
        assert!((a.transfer_ns(1_200_000, 600_000) - 50_000.0).abs() < 1e-6);
        // Engine-bound: ratio 8 -> wire 12,500 ns < engine 1.2e6/64 = 18,750 ns.
        assert!((a.transfer_ns(1_200_000, 150_000) - 18_750.0).abs() < 1e-6);
        // Incompressible (wire > raw): bypass, raw link time 100,000 ns.
        assert!((a.transfer_ns(1_200_000, 1_300_000) - 100_000.0).abs() < 1e-6);
    }

    #[test]
    fn bf16_halves_float_tensors_only() {
        let b = Platform::b();
        assert_eq!(b.scaled_bytes(4_000, Dtype::F32), 2_000);
        assert_eq!(b.scaled_bytes(8_000, Dtype::I64), 8_000);
        assert_eq!(Platform::a().scaled_bytes(4_000, Dtype::F32), 4_000);
    }

    /// A fresh scratch folder for one test (removed at the next run of the same test).
    fn scratch(test: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("planner-platform-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn platform_files_load_and_are_range_checked() {
        let dir = scratch("load");
        let toml_path = dir.join("c.toml");
        std::fs::write(
            &toml_path,
            "name = \"C\"\nprecision = \"bf16_mixed\"\npeak_tflops = 100.0\nmath_efficiency = 0.5\n\
             memory_gb_per_s = 1000.0\nmemory_efficiency = 0.8\nlink_gb_per_s = 48.0\nengine_gb_per_s = 96.0\n",
        )
        .unwrap();
        let (c, warnings) = Platform::load_with_warnings(&toml_path).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(c.link_gb_per_s, 48.0);
        assert_eq!(c.link_bytes_per_ns(), 48.0);
        assert_eq!(c.launch_us, 4.0);
        let json_path = dir.join("a.json");
        std::fs::write(&json_path, serde_json::to_string(&Platform::a()).unwrap()).unwrap();
        assert_eq!(Platform::load(&json_path).unwrap(), Platform::a());
        let bad = dir.join("bad.toml");
        std::fs::write(&bad, "name = \"X\"\nprecision = \"fp32\"\npeak_tflops = 1.0\nmath_efficiency = 1.5\n\
             memory_gb_per_s = 1.0\nmemory_efficiency = 0.8\nlink_gb_per_s = 1.0\nengine_gb_per_s = 1.0\n").unwrap();
        let err = Platform::load(&bad).unwrap_err();
        assert!(matches!(err, PlatformError::Range { field: "math_efficiency", .. }), "{err}");
        assert!(err.to_string().contains("bad.toml") && err.to_string().contains("math_efficiency"), "{err}");
        let missing = dir.join("missing.toml");
        std::fs::write(&missing, "name = \"X\"\n").unwrap();
        let err = Platform::load(&missing).unwrap_err();
        assert!(matches!(err, PlatformError::Parse { .. }) && err.to_string().contains("missing.toml") && err.to_string().contains("precision"), "{err}");
        let garbage = dir.join("garbage.json");
        std::fs::write(&garbage, "{\"name\": ").unwrap();
        assert!(matches!(Platform::load(&garbage).unwrap_err(), PlatformError::Parse { .. }));
        assert!(matches!(Platform::by_name("Z").unwrap_err(), PlatformError::UnknownName(_)));
    }

    /// The fields' old names (`*_gbps`) still load, in TOML and JSON, with one warning each.
    #[test]
    fn old_gbps_field_names_load_with_a_warning() {
        let dir = scratch("old-names");
        let old_toml = dir.join("old.toml");
        std::fs::write(&old_toml, "name = \"A\"\nprecision = \"fp32\"\npeak_tflops = 13.4\nmath_efficiency = 0.7\n\
             memory_gbps = 616.0\nmemory_efficiency = 0.8\nlink_gbps = 12.0\nengine_gbps = 64.0\n").unwrap();
        let (a, warnings) = Platform::load_with_warnings(&old_toml).unwrap();
        assert_eq!(a, Platform::a());
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings.iter().all(|w| w.contains("old.toml")));
        assert!(warnings[1].contains("`link_gbps`") && warnings[1].contains("`link_gb_per_s`"), "{warnings:?}");
        let old_json = dir.join("old.json");
        let text = serde_json::to_string(&Platform::b()).unwrap().replace("link_gb_per_s", "link_gbps");
        std::fs::write(&old_json, text).unwrap();
        let (b, warnings) = Platform::load_with_warnings(&old_json).unwrap();
        assert_eq!(b, Platform::b());
        assert_eq!(warnings.len(), 1);
        // Both names at once is an error, not a guess.
        let both = dir.join("both.json");
        let text = serde_json::to_string(&Platform::b()).unwrap().replace("\"link_gb_per_s\"", "\"link_gbps\":1.0,\"link_gb_per_s\"");
        std::fs::write(&both, text).unwrap();
        let err = Platform::load(&both).unwrap_err();
        assert!(err.to_string().contains("both `link_gbps` and `link_gb_per_s`"), "{err}");
    }
}
