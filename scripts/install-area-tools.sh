#!/usr/bin/env bash
# Installs the tools of the RTL flow (rtl-gen, cocotb-free-tests, area-model), idempotently
# (Debian/Ubuntu, as root or with sudo):
#   yosys          synthesis and area (`area-model`: synth, dfflibmap, abc -liberty, stat -liberty)
#   opensta        static timing of the mapped netlists (`sta`, Debian's 2019 snapshot)
#   verilator      lint of every exported top and the Verilator models of cocotb-free-tests
#   iverilog       the short Icarus run that shows the Verilog is simulator-independent
#   g++, make      what `verilator --binary` builds its models with
#   gtkwave        vcd2fst, which checks the VCD of `sim-harness stream --vcd` in its tests
set -euo pipefail
packages=(yosys opensta verilator iverilog g++ make gtkwave)
commands=(yosys sta verilator iverilog g++ make vcd2fst)
need=()
for i in "${!commands[@]}"; do
    command -v "${commands[$i]}" >/dev/null 2>&1 || need+=("${packages[$i]}")
done
if [ ${#need[@]} -eq 0 ]; then
    echo "install-area-tools: ${packages[*]} already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
for c in "${commands[@]}"; do
    command -v "$c" >/dev/null 2>&1 || { echo "install-area-tools: $c still missing" >&2; exit 1; }
done
echo "install-area-tools: installed ${need[*]}"
