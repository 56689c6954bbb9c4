#!/usr/bin/env python3
"""Locating probe for the compressor lane's worst path (docs/AREA.md, "Locating the lane's worst
path"): replaces the guarded sub-modules of pz_compressor_lane (PlaneStats, ZeroRuns, SizeChoice,
ChoiceStage, PlaneCoder, PiecePlacer) by stubs that register every input (`(* keep *)`, with the
module's own load enable where it has one) and drive constant-zero outputs, so that only the lane
top's logic and the Compactor remain between flops. Usage:
    python3 scripts/lane-stub-probe.py RTL/pz_compressor_lane.v OUT/lane_stub.v
"""
import re, sys
src = open(sys.argv[1]).read()
top = "pz_compressor_lane"
keep_children = {"compactor"}
mods = re.split(r'(?=^module )', src, flags=re.M)
out = []
stubbed = set()
for m in mods:
    h = re.match(r'module\s+(\S+)\s*\(', m)
    if not h:
        out.append(m); continue
    name = h.group(1)
    parts = name.split('$')
    if name.startswith(top + '$') and len(parts) >= 2:
        child = parts[1]
        if child not in keep_children and not re.fullmatch(r'\w+\$\d+', '$'.join(parts[1:])) and len(parts) >= 2:
            # a guarded block or anything below it
            blocks = {"stats_dbx","stats_bx","stats_zbx","runs_dbx","runs_bx","runs_zbx","sizes","choice","coder","placer"}
            if child in blocks:
                if len(parts) > 2:
                    continue  # drop the block's children
                header = m[:m.index(';')+1]
                ins = re.findall(r'^\s*input\s+(?:wire\s+)?(\[[^\]]+\]\s*)?(\S+);', m, flags=re.M)
                outs = re.findall(r'^\s*output\s+(?:wire\s+|reg\s+)?(\[[^\]]+\]\s*)?(\S+);', m, flags=re.M)
                body = [header]
                for w, n in ins: body.append(f"    input wire {w or ''}{n};")
                for w, n in outs: body.append(f"    output wire {w or ''}{n};")
                has_load = any(n == 'load' for _, n in ins)
                for w, n in ins:
                    if n in ('clock',): continue
                    body.append(f"    (* keep *) reg {w or ''}{n}__q;")
                    cond = "if (load) " if has_load and n != 'load' else ""
                    body.append(f"    always @(posedge clock) {cond}{n}__q <= {n};")
                for w, n in outs: body.append(f"    assign {n} = 0;")
                body.append("endmodule\n\n")
                out.append("\n".join(body)); stubbed.add(child)
                continue
    out.append(m)
open(sys.argv[2], 'w').write("".join(out))
print("stubbed", sorted(stubbed), file=sys.stderr)
