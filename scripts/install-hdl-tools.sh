#!/usr/bin/env bash
# Installs the HDL tools the engine's test suite needs, idempotently (Debian/Ubuntu, as root or
# with sudo):
#   yosys          rust-hdl's `yosys_validate` of the exported lane (tests/hw_verilog.rs)
#   verilator      `verilator --lint-only -Wall` of the exported lane, and the Verilator model
#                  that runs the exported Verilog on the corner vectors; Debian 12's 5.006 works
#   g++, make      what `verilator --binary` builds that model with
set -euo pipefail
tools=(yosys verilator g++ make)
need=()
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
if [ ${#need[@]} -eq 0 ]; then
    echo "install-hdl-tools: ${tools[*]} already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "install-hdl-tools: $tool still missing" >&2; exit 1; }
done
echo "install-hdl-tools: installed ${need[*]}"
