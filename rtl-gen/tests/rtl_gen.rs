//! rtl-gen on the real tops: every module prefixed, ports parsed into the documented lane
//! interface, the wrapper and top lint clean under `verilator -Wall` (only WIDTH), and the
//! manifest matches the files. Needs verilator (`scripts/install-area-tools.sh`).

use rtl_gen::{Dir, TOPS, check_prefixed, parse_ports};
use std::path::Path;

fn out_dir(name: &str) -> std::path::PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn prefix_check_rejects_an_unprefixed_module() {
    let v = "module pz_x(a);\nendmodule\nmodule other(b);\nendmodule\n";
    assert!(check_prefixed(v, "pz_x").is_err());
    assert_eq!(check_prefixed("module pz_x(a);\nendmodule\nmodule pz_x$d(b);\nendmodule\n", "pz_x").unwrap(), 2);
}

#[test]
fn parser_packs_array_ports_in_order() {
    let v = "module t(clock,d$0,d$1,q);\n  input wire  clock;\n  input wire  [7:0] d$0;\n  input wire  [7:0] d$1;\n  output reg  [2:0] q;\nendmodule\n";
    let p = parse_ports(v, "t").unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!((p[1].name.as_str(), p[1].elems, p[1].elem_bits, p[1].bits, p[1].array), ("d", 2, 8, 16, true));
    assert_eq!((p[2].dir, p[2].bits, p[2].array), (Dir::Output, 3, false));
    let w = rtl_gen::ansi_wrapper("t", &p);
    assert!(w.contains("input wire [15:0] d"), "{w}");
    assert!(w.contains(".d$1(d[15:8])"), "{w}");
}

#[test]
fn lane_ports_match_the_documented_interface() {
    let lane = &TOPS[0];
    let ports = parse_ports(&(lane.verilog)(), lane.name).unwrap();
    let find = |n: &str| ports.iter().find(|p| p.name == n).unwrap_or_else(|| panic!("no port {n}"));
    assert_eq!(find("beat_data").bits, 256);
    assert_eq!(find("out_payload").bits, 1024);
    assert_eq!(find("out_block").bits, 1024);
    assert_eq!(find("out_len").bits, 11);
    assert_eq!(find("out_tag").dir, Dir::Output);
    assert_eq!(find("desc_w16").dir, Dir::Input);
}

#[test]
fn generate_writes_prefixed_tops_wrappers_and_a_manifest_that_lint_clean() {
    let dir = out_dir("rtl");
    let manifest = rtl_gen::generate(&dir).unwrap();
    assert_eq!(manifest.len(), TOPS.len());
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    for (top, entry) in manifest.iter().zip(json.as_array().unwrap()) {
        assert_eq!(entry["top"], top.top.as_str());
        let verilog = std::fs::read_to_string(dir.join(&top.file)).unwrap();
        assert_eq!(check_prefixed(&verilog, &top.top).unwrap(), top.modules);
        let bits: u64 = entry["ports"].as_array().unwrap().iter().map(|p| p["bits"].as_u64().unwrap()).sum();
        assert_eq!(bits, top.ports.iter().map(|p| p.bits as u64).sum::<u64>());
        let report = rtl_gen::lint_report(&dir, &top.top, &dir.join(".lint")).unwrap();
        assert!(report.not_width.is_empty(), "{}: non-WIDTH lint warnings:\n{}", top.top, report.not_width.join("\n"));
        // What a user's design instantiates: the wrapper, clean with WIDTH included.
        assert!(report.wrapper.is_empty(), "{}: lint warnings in the wrapper:\n{}", top.top, report.wrapper.join("\n"));
        let list = std::fs::read_to_string(dir.join(rtl_gen::file_list_name(&top.top))).unwrap();
        assert_eq!(list.lines().collect::<Vec<_>>(), [top.file.as_str(), top.wrapper_file.as_str()], "{}: file list", top.top);
        let width: usize = report.internal_width.iter().map(|m| m.1).sum();
        eprintln!(
            "{}: wrapper 0 warnings (-Wall, WIDTH included); {width} internal WIDTH warnings in {} modules, most in {:?}",
            top.top,
            report.internal_width.len(),
            &report.internal_width[..report.internal_width.len().min(3)]
        );
    }
}

/// A parent and a child that both glitch on the ports between them (the pattern that made Icarus
/// re-evaluate the lane forever): each port written twice is reported; flop children, locals and
/// ports written once are not.
#[test]
fn multiply_written_boundary_ports_are_reported() {
    let v = "\
module t(clock,a,y);
    input wire  clock;
    input wire  [3:0] a;
    output reg  [3:0] y;
    reg  [3:0] c$x;
    wire  [3:0] c$z;
    reg  [3:0] r$d;
    wire  [3:0] r$q;
    reg  [3:0] tmp;
    t$c c(
        .x(c$x),
        .z(c$z)
    );
    t$r r(
        .d(r$d),
        .q(r$q),
        .clock(clock)
    );
    always @(*) begin
        c$x = 4'h0;
        if (a[0]) begin
            c$x = a;
        end
        r$d = r$q;
        r$d = a;
        tmp = c$z;
        tmp = tmp + 1;
        y = tmp;
    end
endmodule
module t$c(x,z);
    input wire  [3:0] x;
    output reg  [3:0] z;
    always @(*) begin
        z = 4'h0;
        if (x[1]) begin
            z = x;
        end
    end
endmodule
module t$r(d,q,clock);
    input wire  [3:0] d;
    output reg  [3:0] q;
    input wire  clock;
    always @(posedge clock) begin
       q <= d;
    end
endmodule
";
    assert_eq!(rtl_gen::multiply_written_ports(v).unwrap(), ["t: c$x written 2 times", "t$c: z written 2 times"]);
    let fixed = v.replace("        if (x[1]) begin\n            z = x;\n        end\n", "").replace(
        "        c$x = 4'h0;\n        if (a[0]) begin\n            c$x = a;\n        end\n",
        "        c$x = a;\n",
    );
    assert!(rtl_gen::multiply_written_ports(&fixed).unwrap().is_empty());
}

/// Every exported top writes each boundary port once per evaluation (rtl-gen refuses otherwise).
#[test]
fn exported_tops_have_no_multiply_written_boundary_ports() {
    for top in TOPS {
        assert_eq!(rtl_gen::multiply_written_ports(&(top.verilog)()).unwrap(), Vec::<String>::new(), "{}", top.name);
    }
}
