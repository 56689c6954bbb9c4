#!/usr/bin/env bash
# Smoke run of every fuzz target (~20 s each by default): fails loudly, never skips, when the
# nightly toolchain or cargo-fuzz is missing, or when a target finds a crash.
#   bash fuzz/smoke.sh            # every target, FUZZ_SECONDS (default 20) each
#   FUZZ_SECONDS=600 bash fuzz/smoke.sh container
# Build: by default the cheap smoke build (no sanitizer: the project's crates are safe Rust;
# debug assertions and overflow checks stay on; 16 codegen units instead of cargo-fuzz's 1) in
# fuzz/target/smoke, all targets in one `cargo fuzz build`. FUZZ_BUILD_FLAGS replaces those
# flags, e.g. FUZZ_BUILD_FLAGS="" for cargo-fuzz's default (AddressSanitizer, fuzz/target), as
# the long runs in RESULTS.md used. The same flags go to `cargo fuzz run`, so it does not rebuild.
# Corpora grow in fuzz/corpus/TARGET (ignored by git), seeded from fuzz/seeds/TARGET (committed);
# a crash input lands in fuzz/artifacts/TARGET and must become a literal-byte regression test.
set -euo pipefail
cd "$(dirname "$0")"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz/smoke.sh: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
    exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz/smoke.sh: cargo-fuzz is missing (cargo install cargo-fuzz)" >&2
    exit 1
fi

seconds="${FUZZ_SECONDS:-20}"
# shellcheck disable=SC2206 # word splitting of the flags is intended
build_flags=(${FUZZ_BUILD_FLAGS---sanitizer none --codegen-units 16 --target-dir target/smoke})
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(block_decoder chunk_stream container tensor_files trace_json round_trip size_model)
fi
# Per-target input caps: the container's allocation bound (16 x input + 1 MiB) is only meaningful
# up to 8 KB (a legitimate container may decode to ~108 x its streams).
max_len() {
    case "$1" in
        container) echo 8192 ;;
        size_model) echo 129 ;;
        *) echo 65536 ;;
    esac
}

start=$(date +%s)
cargo +nightly fuzz build "${build_flags[@]}"
echo "fuzz/smoke.sh: build took $(( $(date +%s) - start )) s"
mkdir -p logs
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    log="logs/$t.log"
    # -timeout: no single input may run longer than 10 s (a hang is a finding, not a wait).
    if ! cargo +nightly fuzz run "${build_flags[@]}" "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz/smoke.sh: $t FAILED (log fuzz/$log, input in fuzz/artifacts/$t)" >&2
        exit 1
    fi
    echo "$t: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') executions in ${seconds} s," \
        "peak RSS $(grep -E '^stat::peak_rss_mb' "$log" | awk '{print $2}') MB"
done
echo "fuzz/smoke.sh: all targets ran without findings"
