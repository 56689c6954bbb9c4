// Cycle-by-cycle driver of the Verilator model of the compressor lane's ANSI wrapper
// (pz_compressor_lane_ansi), used by the cocotb-free-tests crate.
//
// stdin:  beats, 9 little-endian u32 each: word0..word7, ctrl = id | tail << 8 | w16 << 15 | last << 16
// stdout: one record per event, little-endian u32s:
//         block taken:  [0xB10C, cycle_lo, cycle_hi, tag, len, id, last, payload0..31, block0..31]
//         beat taken:   [0xBEA7, cycle_lo, cycle_hi]         (only with argv[2] == "beats")
// argv[1]: out_ready pattern: 0 = always ready, else xorshift32 seed (ready unless (x & 3) == 0).
// The last line of stderr is "cycles N seconds S".
// Cycle semantics match engine::hw::LaneSim: one reset cycle, then per cycle the front beat is
// offered, outputs are sampled before the rising edge, a beat leaves the queue when taken.
#include "Vpz_compressor_lane_ansi.h"
#include "verilated.h"
#include "driver.h"
#include <cstring>

int main(int argc, char **argv) {
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 10) : 0;
    bool report_beats = argc > 2 && strcmp(argv[2], "beats") == 0;
    std::vector<uint32_t> in = read_stdin_words();
    if (in.size() % 9 != 0) { fprintf(stderr, "stdin is not whole beats\n"); return 2; }
    size_t beats = in.size() / 9, next = 0;
    size_t blocks_expected = 0;
    for (size_t b = 0; b < beats; b++) {
        bool last = (in[9 * b + 8] >> 16) & 1;
        // a block closes on its 4th beat or on a last beat
        static int in_block = 0;
        in_block++;
        if (in_block == 4 || last) { blocks_expected++; in_block = 0; }
    }
    VerilatedContext ctx;
    Vpz_compressor_lane_ansi top(&ctx);
    top.beat_valid = 0; top.out_ready = 1;
    reset_cycle(top);
    uint64_t cycle = 0, taken = 0;
    uint64_t limit = 64 + 40 * (uint64_t)beats;
    std::vector<uint32_t> out;
    auto t0 = std::chrono::steady_clock::now();
    while (taken < blocks_expected && cycle < limit) {
        bool valid = next < beats;
        top.beat_valid = valid;
        if (valid) {
            const uint32_t *b = &in[9 * next];
            for (int k = 0; k < 8; k++) top.beat_data[k] = b[k];
            top.desc_id = b[8] & 0xFF;
            top.desc_tail_bytes = (b[8] >> 8) & 0x7F;
            top.desc_w16 = (b[8] >> 15) & 1;
            top.beat_last = (b[8] >> 16) & 1;
        } else {
            top.beat_last = 0;
        }
        bool ready = seed == 0 ? true : (xorshift(seed) & 3) != 0;
        top.out_ready = ready;
        top.eval();
        if (valid && top.beat_ready) {
            next++;
            if (report_beats) event(out, 0xBEA7, cycle);
        }
        if (top.out_valid && ready) {
            event(out, 0xB10C, cycle);
            out.push_back(top.out_tag); out.push_back(top.out_len); out.push_back(top.out_id); out.push_back(top.out_last);
            for (int k = 0; k < 32; k++) out.push_back(top.out_payload[k]);
            for (int k = 0; k < 32; k++) out.push_back(top.out_block[k]);
            taken++;
        }
        flush(out, false);
        tick(top);
        cycle++;
    }
    return finish(top, out, cycle, t0, taken == blocks_expected);
}
