#!/usr/bin/env bash
# Installs the HDL tools the engine's test suite needs (yosys for rust-hdl's `yosys_validate`,
# verilator + g++/make for the Verilator model of the exported lane). They are a subset of the
# RTL flow's tools, so this delegates to the one installer that lists them all.
set -euo pipefail
exec bash "$(dirname "$0")/install-area-tools.sh"
