// Cycle-by-cycle driver of the Verilator model of the host-to-device lane's ANSI wrapper
// (pz_h2d_lane_ansi), used by the cocotb-free-tests crate.
//
// stdin (little-endian u32s): transfer count T, then per transfer: id, w16, raw_bytes, beat count B,
//        then B beats of 9 words: word0..word7, ctrl = valid bytes | last << 8.
// stdout: one record per event, little-endian u32s:
//         write taken:      [0x3717E, cycle_lo, cycle_hi, addr, strb, id, last, data0..7]
//         error pulse:      [0xE770, cycle_lo, cycle_hi, class, id, chunk]
//         done pulse:       [0xD0E, cycle_lo, cycle_hi, id]
//         beat taken:       [0xBEA7, cycle_lo, cycle_hi]
//         descriptor taken: [0xDE5C, cycle_lo, cycle_hi]
// argv[1]: port pattern: 0 = no backpressure, else the xorshift32 seed of
//          engine::hw::h2d_driver::H2dPorts::from_xorshift (desc_valid, in_valid and out_ready
//          each held off when its two bits of the state are 0).
// The last line of stderr is "cycles N seconds S".
// Cycle semantics match engine::hw::H2dSim: one reset cycle, then per cycle the front
// descriptor and beat are offered, outputs are sampled before the rising edge.
#include "Vpz_h2d_lane_ansi.h"
#include "verilated.h"
#include "driver.h"

int main(int argc, char **argv) {
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 10) : 0;
    std::vector<uint32_t> in = read_stdin_words();
    if (in.empty()) { fprintf(stderr, "no stimulus\n"); return 2; }
    struct Desc { uint32_t id, w16, raw; };
    std::vector<Desc> descs;
    std::vector<const uint32_t *> beats;
    size_t at = 1;
    for (uint32_t t = 0; t < in[0]; t++) {
        if (at + 4 > in.size()) { fprintf(stderr, "truncated stimulus\n"); return 2; }
        descs.push_back({in[at], in[at + 1], in[at + 2]});
        uint32_t nb = in[at + 3];
        at += 4;
        if (at + 9 * (size_t)nb > in.size()) { fprintf(stderr, "truncated beats\n"); return 2; }
        for (uint32_t b = 0; b < nb; b++) beats.push_back(&in[at + 9 * b]);
        at += 9 * (size_t)nb;
    }
    VerilatedContext ctx;
    Vpz_h2d_lane_ansi top(&ctx);
    top.desc_valid = 0; top.in_valid = 0; top.out_ready = 1;
    reset_cycle(top);
    uint64_t cycle = 0, limit = 1000 + 64 * (uint64_t)beats.size() + 256 * (uint64_t)descs.size();
    size_t next_desc = 0, next_beat = 0, dones = 0;
    std::vector<uint32_t> out;
    auto t0 = std::chrono::steady_clock::now();
    while (dones < descs.size() && cycle < limit) {
        bool dv = true, iv = true, ready = true;
        if (seed != 0) {
            uint32_t x = xorshift(seed);
            dv = (x & 3) != 0; iv = ((x >> 2) & 3) != 0; ready = ((x >> 4) & 3) != 0;
        }
        dv = dv && next_desc < descs.size();
        iv = iv && next_beat < beats.size();
        top.desc_valid = dv;
        if (next_desc < descs.size()) {
            top.desc_id = descs[next_desc].id; top.desc_w16 = descs[next_desc].w16; top.desc_raw_bytes = descs[next_desc].raw;
        }
        top.in_valid = iv;
        if (next_beat < beats.size()) {
            const uint32_t *b = beats[next_beat];
            for (int k = 0; k < 8; k++) top.in_data[k] = b[k];
            top.in_bytes = b[8] & 0x3F; top.in_last = (b[8] >> 8) & 1;
        }
        top.out_ready = ready;
        top.eval();
        if (dv && top.desc_ready) { next_desc++; event(out, 0xDE5C, cycle); }
        if (iv && top.in_ready) { next_beat++; event(out, 0xBEA7, cycle); }
        if (top.out_valid && ready) {
            event(out, 0x3717E, cycle);
            out.push_back(top.out_addr); out.push_back(top.out_strb); out.push_back(top.out_id); out.push_back(top.out_last);
            for (int k = 0; k < 8; k++) out.push_back(top.out_data[k]);
        }
        if (top.err_valid) {
            event(out, 0xE770, cycle);
            out.push_back(top.err_class); out.push_back(top.err_id); out.push_back(top.err_chunk);
        }
        if (top.done) { event(out, 0xD0E, cycle); out.push_back(top.done_id); dones++; }
        flush(out, false);
        tick(top);
        cycle++;
    }
    return finish(top, out, cycle, t0, dones == descs.size());
}
