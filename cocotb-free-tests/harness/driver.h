// The shared part of the cycle-by-cycle Verilator drivers (lane_harness.cpp, d2h_harness.cpp,
// h2d_harness.cpp): stimulus in from stdin, event records out to stdout, the reset cycle, the
// clock edge and the closing "cycles N seconds S" line on stderr that the Rust side
// (cocotb-free-tests/src) parses. Each driver keeps only its top's port mapping.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

// Words of output buffered before a write to stdout.
static const size_t FLUSH_WORDS = 1 << 16;

// xorshift32, the handshake pattern generator the Rust drivers mirror.
static inline uint32_t xorshift(uint32_t &x) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x; }

// All of stdin as little-endian u32s (a trailing partial word is dropped).
static inline std::vector<uint32_t> read_stdin_words() {
    std::vector<uint32_t> in;
    uint32_t buf[4096];
    size_t n;
    while ((n = fread(buf, 4, 4096, stdin)) > 0) in.insert(in.end(), buf, buf + n);
    return in;
}

// Starts an event record: [marker, cycle_lo, cycle_hi].
static inline void event(std::vector<uint32_t> &out, uint32_t marker, uint64_t cycle) {
    out.push_back(marker); out.push_back((uint32_t)cycle); out.push_back((uint32_t)(cycle >> 32));
}

// Writes the buffered records to stdout once FLUSH_WORDS are buffered (always with `force`).
static inline void flush(std::vector<uint32_t> &out, bool force) {
    if (force || out.size() >= FLUSH_WORDS) { fwrite(out.data(), 4, out.size(), stdout); out.clear(); }
}

// One reset cycle with the inputs as the caller set them (reset high), then reset low.
template <class Top> void reset_cycle(Top &top) {
    top.clock = 0; top.reset = 1; top.eval(); top.clock = 1; top.eval(); top.clock = 0; top.reset = 0; top.eval();
}

// One rising and falling clock edge.
template <class Top> void tick(Top &top) { top.clock = 1; top.eval(); top.clock = 0; top.eval(); }

// Flushes the records, prints the summary line, closes the model; exit status 0 when `ok`.
template <class Top> int finish(Top &top, std::vector<uint32_t> &out, uint64_t cycle, std::chrono::steady_clock::time_point t0, bool ok) {
    flush(out, true);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fprintf(stderr, "cycles %llu seconds %.6f\n", (unsigned long long)cycle, s);
    top.final();
    return ok ? 0 : 1;
}
