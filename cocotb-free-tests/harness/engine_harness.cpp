// Cycle-by-cycle driver of the Verilator model of the engine top's ANSI wrapper (pz_engine_ansi),
// both directions at once, used by the cocotb-free-tests crate (EngineModel).
//
// stdin (little-endian u32s): d2h transfer count D, h2d transfer count H, then
//   per d2h transfer: bytes, id | w16 << 8, beats on port 0 (N0), beats on port 1 (N1), then the
//                     N0 beats of port 0 and the N1 beats of port 1, 8 words each (chunk c's
//                     beats on port c mod 2: engine::hw::engine_driver::d2h_port_beats)
//   per h2d transfer: id, w16, raw_bytes, beat count B, then B beats of 17 words: 16 data words,
//                     valid bytes | last << 8 (engine::hw::engine_driver::stream_beats64)
// stdout: one record per event, little-endian u32s:
//   d2h beat taken:  [0xBEA7, cycle_lo, cycle_hi, transfer index]      (port 0's first)
//   d2h write taken: [0x3717E, cycle_lo, cycle_hi, port, addr, be, id | last << 8, data0..7]
//   d2h done:        [0xD0E, cycle_lo, cycle_hi, id, wire_bytes]
//   h2d beat taken:  [0xB64, cycle_lo, cycle_hi, transfer index]
//   h2d write taken: [0x4717E, cycle_lo, cycle_hi, port, addr, strb, id | last << 8, data0..7]
//   h2d done:        [0xD0E2, cycle_lo, cycle_hi, id]
//   h2d error:       [0xE770, cycle_lo, cycle_hi, id, class, chunk]
// argv[1]: port pattern: 0 = no backpressure (EnginePorts::FREE), else the xorshift32 seed of
//          engine::hw::engine_driver::EnginePorts::from_xorshift, stepped once per cycle: port i
//          of (d2h_desc, d2h_beat0, d2h_beat1, d2h_wr0_ready, d2h_wr1_ready, h2d_desc, h2d_in,
//          h2d_out0_ready, h2d_out1_ready) moves unless bits 2i+1..2i of the state are 0.
// argv[2]: cycles without any handshake or output pulse after which the run is abandoned as
//          stalled (exit 1).
// stderr: "cpu_seconds C" (CPU time of the loop), then as its last line "cycles N seconds S".
// Cycle semantics match engine::hw::engine_driver::EngineSim: one reset cycle, then per cycle,
// until every queued descriptor and beat is taken and every transfer is done, the front
// descriptors and beats are offered (an input keeps its last value while not offered), outputs
// are sampled before the rising edge.
#include "Vpz_engine_ansi.h"
#include "verilated.h"
#include "driver.h"
#include <ctime>
#include <deque>

// Ports of EnginePorts, in from_xorshift's bit order.
enum Port { D2H_DESC, D2H_BEAT0, D2H_BEAT1, D2H_WR0, D2H_WR1, H2D_DESC, H2D_IN, H2D_OUT0, H2D_OUT1, PORTS };

struct Desc { uint32_t id, w16, bytes; };
struct Beat { const uint32_t *words; uint32_t transfer; };

static inline double cpu_now() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// A write port's record: port, addr, enables, id | last << 8, the 8 data words.
template <class W> static void write_record(std::vector<uint32_t> &out, uint32_t marker, uint64_t cycle, uint32_t port,
                                            uint32_t addr, uint32_t be, uint32_t id, uint32_t last, const W &data) {
    event(out, marker, cycle);
    out.push_back(port); out.push_back(addr); out.push_back(be); out.push_back(id | last << 8);
    for (int k = 0; k < 8; k++) out.push_back(data[k]);
}

int main(int argc, char **argv) {
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 10) : 0;
    uint64_t stall_limit = argc > 2 ? strtoull(argv[2], nullptr, 10) : 100000;
    std::vector<uint32_t> in = read_stdin_words();
    if (in.size() < 2) { fprintf(stderr, "no stimulus\n"); return 2; }
    std::deque<Desc> d2h_descs, h2d_descs;
    std::deque<Beat> d2h_beats[2], h2d_beats;
    size_t at = 2;
    for (uint32_t t = 0; t < in[0]; t++) {
        if (at + 4 > in.size()) { fprintf(stderr, "stdin ends inside a d2h descriptor\n"); return 2; }
        d2h_descs.push_back({in[at + 1] & 0xFF, (in[at + 1] >> 8) & 1, in[at]});
        uint64_t n[2] = {in[at + 2], in[at + 3]};
        at += 4;
        for (int p = 0; p < 2; p++) {
            if (at + 8 * n[p] > in.size()) { fprintf(stderr, "stdin ends inside a d2h transfer's beats\n"); return 2; }
            for (uint64_t b = 0; b < n[p]; b++, at += 8) d2h_beats[p].push_back({&in[at], t});
        }
    }
    for (uint32_t t = 0; t < in[1]; t++) {
        if (at + 4 > in.size()) { fprintf(stderr, "stdin ends inside an h2d descriptor\n"); return 2; }
        h2d_descs.push_back({in[at], in[at + 1], in[at + 2]});
        uint64_t n = in[at + 3];
        at += 4;
        if (at + 17 * n > in.size()) { fprintf(stderr, "stdin ends inside an h2d transfer's beats\n"); return 2; }
        for (uint64_t b = 0; b < n; b++, at += 17) h2d_beats.push_back({&in[at], t});
    }
    if (at != in.size()) { fprintf(stderr, "%zu words after the stimulus\n", in.size() - at); return 2; }
    const size_t d2h_total = d2h_descs.size(), h2d_total = h2d_descs.size();

    VerilatedContext ctx;
    Vpz_engine_ansi top(&ctx);
    reset_cycle(top);
    size_t d2h_dones = 0, h2d_dones = 0;
    uint64_t cycle = 0, quiet = 0;
    std::vector<uint32_t> out;
    auto t0 = std::chrono::steady_clock::now();
    double cpu0 = cpu_now();
    while (!(d2h_descs.empty() && d2h_beats[0].empty() && d2h_beats[1].empty() && d2h_dones == d2h_total &&
             h2d_descs.empty() && h2d_beats.empty() && h2d_dones == h2d_total)) {
        if (quiet >= stall_limit) break;
        bool p[PORTS];
        uint32_t x = seed != 0 ? xorshift(seed) : 0;
        for (int i = 0; i < PORTS; i++) p[i] = seed == 0 || ((x >> (2 * i)) & 3) != 0;
        // ---- offer
        bool dv = p[D2H_DESC] && !d2h_descs.empty();
        top.d2h_desc_valid = dv;
        if (dv) {
            top.d2h_desc_id = d2h_descs.front().id; top.d2h_desc_w16 = d2h_descs.front().w16; top.d2h_desc_bytes = d2h_descs.front().bytes;
        }
        bool b0 = p[D2H_BEAT0] && !d2h_beats[0].empty(), b1 = p[D2H_BEAT1] && !d2h_beats[1].empty();
        top.d2h_beat0_valid = b0;
        top.d2h_beat1_valid = b1;
        if (b0) for (int k = 0; k < 8; k++) top.d2h_beat0_data[k] = d2h_beats[0].front().words[k];
        if (b1) for (int k = 0; k < 8; k++) top.d2h_beat1_data[k] = d2h_beats[1].front().words[k];
        top.d2h_wr0_ready = p[D2H_WR0];
        top.d2h_wr1_ready = p[D2H_WR1];
        bool hv = p[H2D_DESC] && !h2d_descs.empty();
        top.h2d_desc_valid = hv;
        if (hv) {
            top.h2d_desc_id = h2d_descs.front().id; top.h2d_desc_w16 = h2d_descs.front().w16; top.h2d_desc_raw_bytes = h2d_descs.front().bytes;
        }
        bool iv = p[H2D_IN] && !h2d_beats.empty();
        top.h2d_in_valid = iv;
        if (iv) {
            const uint32_t *w = h2d_beats.front().words;
            for (int k = 0; k < 16; k++) top.h2d_in_data[k] = w[k];
            top.h2d_in_bytes = w[16] & 0x7F;
            top.h2d_in_last = (w[16] >> 8) & 1;
        }
        top.h2d_out0_ready = p[H2D_OUT0];
        top.h2d_out1_ready = p[H2D_OUT1];
        top.eval();
        // ---- sample the handshakes of this cycle (EngineSim::step's order)
        size_t before = out.size();
        bool took_d2h_desc = dv && top.d2h_desc_ready;
        if (took_d2h_desc) d2h_descs.pop_front();
        if (b0 && top.d2h_beat0_ready) { event(out, 0xBEA7, cycle); out.push_back(d2h_beats[0].front().transfer); d2h_beats[0].pop_front(); }
        if (b1 && top.d2h_beat1_ready) { event(out, 0xBEA7, cycle); out.push_back(d2h_beats[1].front().transfer); d2h_beats[1].pop_front(); }
        if (top.d2h_wr0_valid && p[D2H_WR0])
            write_record(out, 0x3717E, cycle, 0, top.d2h_wr0_addr, top.d2h_wr0_be, top.d2h_wr0_id, top.d2h_wr0_last, top.d2h_wr0_data);
        if (top.d2h_wr1_valid && p[D2H_WR1])
            write_record(out, 0x3717E, cycle, 1, top.d2h_wr1_addr, top.d2h_wr1_be, top.d2h_wr1_id, top.d2h_wr1_last, top.d2h_wr1_data);
        if (top.d2h_done_valid) {
            event(out, 0xD0E, cycle); out.push_back(top.d2h_done_id); out.push_back(top.d2h_done_wire_bytes);
            d2h_dones++;
        }
        bool took_h2d_desc = hv && top.h2d_desc_ready;
        if (took_h2d_desc) h2d_descs.pop_front();
        if (iv && top.h2d_in_ready) { event(out, 0xB64, cycle); out.push_back(h2d_beats.front().transfer); h2d_beats.pop_front(); }
        if (top.h2d_out0_valid && p[H2D_OUT0])
            write_record(out, 0x4717E, cycle, 0, top.h2d_out0_addr, top.h2d_out0_strb, top.h2d_out0_id, top.h2d_out0_last, top.h2d_out0_data);
        if (top.h2d_out1_valid && p[H2D_OUT1])
            write_record(out, 0x4717E, cycle, 1, top.h2d_out1_addr, top.h2d_out1_strb, top.h2d_out1_id, top.h2d_out1_last, top.h2d_out1_data);
        if (top.h2d_done) { event(out, 0xD0E2, cycle); out.push_back(top.h2d_done_id); h2d_dones++; }
        if (top.h2d_err_valid) {
            event(out, 0xE770, cycle); out.push_back(top.h2d_err_id); out.push_back(top.h2d_err_class); out.push_back(top.h2d_err_chunk);
        }
        quiet = out.size() != before || took_d2h_desc || took_h2d_desc ? 0 : quiet + 1;
        flush(out, false);
        // The rising edge. The falling one is evaluated with the next cycle's inputs: no logic
        // of the design is sensitive to it, and one eval fewer per cycle is 12 % less CPU time.
        top.clock = 1;
        top.eval();
        top.clock = 0;
        cycle++;
    }
    double cpu = cpu_now() - cpu0;
    bool ok = d2h_dones == d2h_total && h2d_dones == h2d_total;
    if (!ok)
        fprintf(stderr, "stalled: no handshake for %llu cycles at cycle %llu; %zu of %zu d2h and %zu of %zu h2d transfers done\n",
                (unsigned long long)quiet, (unsigned long long)cycle, d2h_dones, d2h_total, h2d_dones, h2d_total);
    fprintf(stderr, "cpu_seconds %.6f\n", cpu);
    return finish(top, out, cycle, t0, ok);
}
