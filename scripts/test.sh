#!/usr/bin/env bash
# The project's one test command (README.md): installs what is missing on a fresh Debian machine
# (HDL, synthesis and timing tools via apt-get, the capture tool's pinned Python venv via pip), then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-area-tools.sh
# The capture venv first: the Rust dump-reader tests run a fresh tiny capture with it.
bash capture/ci.sh
PLANEZIP_REQUIRE_CAPTURE=1 cargo test --workspace
# Every criterion bench once, without timing (criterion's test mode): they compile and run.
# Measured 2026-12-01 on the 2-core VM at load 11–12, after the workspace tests: 116 s wall,
# 42 s user + 4 s sys CPU (compiling the four bench targets included; BENCHMARKS.md).
cargo test -p engine -p planner -p sim-harness --bench codec --bench lane --bench portfolio --bench peers
