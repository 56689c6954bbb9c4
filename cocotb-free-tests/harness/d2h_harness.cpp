// Cycle-by-cycle driver of the Verilator model of the device-to-host unit's ANSI wrapper
// (pz_d2h_lane_ansi), used by the cocotb-free-tests crate (D2hModel).
//
// stdin:  per transfer, little-endian u32s: bytes, id | w16 << 8, then ceil(bytes / 32) beats of
//         8 words each (word k = bytes 4k..4k+3 of the beat, little-endian)
// stdout: one record per event, little-endian u32s:
//         write taken:      [0x3717E, cycle_lo, cycle_hi, addr, be, id | last << 8, data0..7]
//         done pulse:       [0xD0E, cycle_lo, cycle_hi, id, wire_bytes]
//         descriptor taken: [0xDE5C, cycle_lo, cycle_hi]   (only with argv[3] == "trace")
//         beat taken:       [0xBEA7, cycle_lo, cycle_hi]   (only with argv[3] == "trace")
// argv[1]: wr_ready pattern, argv[2]: beat_valid pattern: 0 = always, else an xorshift32 seed
//          (high unless (x & 3) == 0); both generators step once per cycle, bubble first.
// The last line of stderr is "cycles N seconds S". Exit 1 if not every transfer finished.
// Cycle semantics match engine::hw::d2h_driver::D2hSim: one reset cycle, then per cycle the
// front descriptor and (when the pattern allows) the front beat are offered, outputs are
// sampled before the rising edge.
#include "Vpz_d2h_lane_ansi.h"
#include "verilated.h"
#include "driver.h"
#include <cstring>

int main(int argc, char **argv) {
    uint32_t ready_seed = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 10) : 0;
    uint32_t bubble_seed = argc > 2 ? (uint32_t)strtoul(argv[2], nullptr, 10) : 0;
    bool trace = argc > 3 && strcmp(argv[3], "trace") == 0;
    std::vector<uint32_t> in = read_stdin_words();
    std::vector<uint32_t> desc_bytes, desc_ctl;
    std::vector<const uint32_t *> beats;
    for (size_t i = 0; i < in.size();) {
        if (i + 2 > in.size()) { fprintf(stderr, "stdin ends inside a descriptor\n"); return 2; }
        uint32_t bytes = in[i], ctl = in[i + 1];
        i += 2;
        desc_bytes.push_back(bytes);
        desc_ctl.push_back(ctl);
        uint64_t nb = ((uint64_t)bytes + 31) / 32;
        if (i + 8 * nb > in.size()) { fprintf(stderr, "stdin ends inside a transfer's beats\n"); return 2; }
        for (uint64_t b = 0; b < nb; b++, i += 8) beats.push_back(&in[i]);
    }
    VerilatedContext ctx;
    Vpz_d2h_lane_ansi top(&ctx);
    top.desc_valid = 0; top.beat_valid = 0; top.wr_ready = 1;
    reset_cycle(top);
    size_t next_desc = 0, next_beat = 0, dones = 0;
    uint64_t cycle = 0, limit = 1000 + 60 * (uint64_t)beats.size() + 400 * (uint64_t)desc_bytes.size();
    std::vector<uint32_t> out;
    auto t0 = std::chrono::steady_clock::now();
    while (dones < desc_bytes.size() && cycle < limit) {
        bool offer = bubble_seed == 0 ? true : (xorshift(bubble_seed) & 3) != 0;
        bool ready = ready_seed == 0 ? true : (xorshift(ready_seed) & 3) != 0;
        bool dv = next_desc < desc_bytes.size();
        top.desc_valid = dv;
        if (dv) {
            top.desc_bytes = desc_bytes[next_desc];
            top.desc_id = desc_ctl[next_desc] & 0xFF;
            top.desc_w16 = (desc_ctl[next_desc] >> 8) & 1;
        }
        bool bv = offer && next_beat < beats.size();
        top.beat_valid = bv;
        if (bv) for (int k = 0; k < 8; k++) top.beat_data[k] = beats[next_beat][k];
        top.wr_ready = ready;
        top.eval();
        if (dv && top.desc_ready) {
            next_desc++;
            if (trace) event(out, 0xDE5C, cycle);
        }
        if (bv && top.beat_ready) {
            next_beat++;
            if (trace) event(out, 0xBEA7, cycle);
        }
        if (top.wr_valid && ready) {
            event(out, 0x3717E, cycle);
            out.push_back(top.wr_addr); out.push_back(top.wr_be); out.push_back(top.wr_id | (top.wr_last << 8));
            for (int k = 0; k < 8; k++) out.push_back(top.wr_data[k]);
        }
        if (top.done_valid) {
            event(out, 0xD0E, cycle);
            out.push_back(top.done_id); out.push_back(top.done_wire_bytes);
            dones++;
        }
        flush(out, false);
        tick(top);
        cycle++;
    }
    return finish(top, out, cycle, t0, dones == desc_bytes.size());
}
