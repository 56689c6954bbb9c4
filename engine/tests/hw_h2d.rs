//! The host-to-device lane's rust-hdl simulation against the golden codec: it is fed golden's
//! chunk streams and must write back the tensor bit for bit (FORMAT.md example E, the shared
//! vectors, real blocks of `data/` at both widths, raw chunks, partial chunks and blocks, width
//! switching, empty transfers, backpressure on every port); every FORMAT.md §9 condition in a
//! crafted transfer must raise the error golden's decoder reports, naming the same chunk (the
//! lowest bad one, though the lane's contexts decode several at once), with the good prefix
//! written and nothing of the bad chunk past its bad block, and the next transfer must decode;
//! the lane's latency model must match the simulation.

#[path = "support/real_blocks.rs"]
mod real_blocks;

use engine::golden::bits::BitWriter;
use engine::golden::block::{read_block, write_block};
use engine::golden::bits::BitReader;
use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth, decode_stream, encode_stream};
use engine::hw::h2d_driver::{H2dErrorClass, H2dPorts, H2dResult, H2dWork, h2d_lane_latency_cycles};
use engine::hw::H2dSim;
use engine::vectors::parse_file;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// A transfer to run: the tensor, the stream the lane is fed, and the width.
struct Transfer {
    data: Vec<u8>,
    stream: Vec<u8>,
    width: SymbolWidth,
}

impl Transfer {
    /// The canonical golden stream of `data`.
    fn good(data: Vec<u8>, width: SymbolWidth) -> Transfer {
        let stream = encode_stream(&data, width);
        Transfer { data, stream, width }
    }
}

/// Runs the transfers back to back through one lane and returns what each produced.
fn run(transfers: &[Transfer], backpressure: Option<u32>) -> Vec<H2dResult> {
    let mut sim = H2dSim::new();
    for (i, t) in transfers.iter().enumerate() {
        sim.queue_transfer(&t.stream, t.data.len() as u32, t.width, i as u8);
    }
    let budget: u64 = transfers.iter().map(|t| 64 + 40 * t.data.len().div_ceil(BLOCK_BYTES) as u64 + t.stream.len() as u64).sum();
    let mut x = backpressure.unwrap_or(1);
    let results = match backpressure {
        Some(_) => sim.run(4 * budget, || H2dPorts::from_xorshift(&mut x)),
        None => sim.run(budget, || H2dPorts::FREE),
    };
    assert_eq!(results.iter().filter(|r| r.done_cycle.is_some()).count(), transfers.len(), "not every transfer finished");
    results.to_vec()
}

/// Asserts that a good transfer wrote exactly its tensor, once per byte, with no error, the
/// final byte's write marked last, and the golden decoder agreeing with the stream.
fn assert_decoded(t: &Transfer, r: &H2dResult, what: &str) {
    assert_eq!(decode_stream(&t.stream, t.data.len(), t.width).as_deref(), Ok(&t.data[..]), "{what}: golden disagrees");
    assert_eq!(r.error, None, "{what}: unexpected error");
    let (mem, bad) = r.memory(t.data.len(), 0xA5);
    assert!(!bad, "{what}: a write fell outside the tensor or repeated a byte");
    assert_eq!(r.bytes_written(), t.data.len(), "{what}: bytes written");
    if mem != t.data {
        let first = mem.iter().zip(&t.data).position(|(a, b)| a != b).unwrap();
        panic!("{what}: first wrong byte at {first} (block {}, chunk {})", first / BLOCK_BYTES, first / CHUNK_BYTES);
    }
    if !t.data.is_empty() {
        let lasts: Vec<_> = r.writes.iter().filter(|w| w.last).collect();
        assert_eq!(lasts.len(), 1, "{what}: one write is marked last");
        assert_eq!(lasts[0].addr as usize + lasts[0].strb.count_ones() as usize, t.data.len(), "{what}: the last write holds the final byte");
    }
}

fn shared_vector_tensor(width: SymbolWidth) -> Vec<u8> {
    let text = match width {
        SymbolWidth::W16 => include_str!("vectors/w16.txt"),
        SymbolWidth::W32 => include_str!("vectors/w32.txt"),
    };
    parse_file(text).expect("parse the shared vectors").iter().flat_map(|v| v.input).collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn format_example_e_decodes_bit_for_bit() {
    let data: Vec<u8> = (0..50).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    let t = Transfer { data, stream: hex("0c004800900d120ffffe000240b4"), width: SymbolWidth::W32 };
    assert_eq!(encode_stream(&t.data, t.width), t.stream, "FORMAT.md example E");
    let r = run(std::slice::from_ref(&t), None);
    assert_decoded(&t, &r[0], "example E");
    // 200 bytes: block 0 as four full writes, block 1 as 72 bytes in three writes.
    assert_eq!(r[0].writes.iter().map(|w| (w.addr, w.strb.count_ones())).collect::<Vec<_>>(), vec![(0, 32), (32, 32), (64, 32), (96, 32), (128, 32), (160, 32), (192, 8)]);
}

#[test]
fn shared_vectors_decode_at_both_widths() {
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let t = Transfer::good(shared_vector_tensor(width), width);
        let work = H2dWork::of_tensor(&t.data, width);
        for (tag, n) in work.blocks_by_tag.iter().enumerate() {
            assert!(*n > 0, "{width:?}: no block with tag {tag} in a compressed chunk");
        }
        let r = run(std::slice::from_ref(&t), None);
        assert_decoded(&t, &r[0], &format!("{width:?} shared vectors"));
        let cycles = r[0].latency_cycles().unwrap();
        let model = h2d_lane_latency_cycles(&H2dWork::chunks_of_tensor(&t.data, width));
        assert!(cycles.abs_diff(model) <= 2.max(cycles / 100), "{width:?} shared vectors: model {model} cycles, simulation {cycles}");
        eprintln!("{width:?}: {} shared vectors, {} bytes in {cycles} cycles = {:.2} B/cycle (model {model} cycles)", t.data.len() / BLOCK_BYTES, t.data.len(), t.data.len() as f64 / cycles as f64);
    }
}

/// Distinct real blocks of `data/` (every model's first iteration), `per_width` of them.
fn real_tensor(width: SymbolWidth, per_tensor: usize, limit: usize) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .expect("data/ holds the captured samples")
        .map(|e| e.unwrap().path().join("iter0.safetensors"))
        .filter(|p| p.exists())
        .collect();
    files.sort();
    assert!(files.len() >= 2, "too few models in data/");
    let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let blocks = real_blocks::distinct_blocks(&files, width, per_tensor, limit).blocks;
    assert!(blocks.len() >= limit / 2, "{width:?}: only {} distinct real blocks", blocks.len());
    blocks.concat()
}

#[test]
fn real_blocks_decode_and_the_latency_model_holds() {
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let data = real_tensor(width, 2, 600);
        // One long transfer, and the same bytes as transfers of assorted lengths.
        let mut transfers = vec![Transfer::good(data.clone(), width)];
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut at = 0;
        while at < data.len() / 4 {
            let len = rng.gen_range(1..3 * CHUNK_BYTES / 2).min(data.len() - at);
            transfers.push(Transfer::good(data[at..at + len].to_vec(), width));
            at += len;
        }
        let results = run(&transfers, None);
        for (i, (t, r)) in transfers.iter().zip(&results).enumerate() {
            assert_decoded(t, r, &format!("{width:?} real transfer {i}"));
            let sim = r.latency_cycles().unwrap();
            let model = h2d_lane_latency_cycles(&H2dWork::chunks_of_tensor(&t.data, width));
            let tolerance = 2.max(sim / 100);
            assert!(sim.abs_diff(model) <= tolerance, "{width:?} transfer {i} ({} bytes): model {model} cycles, simulation {sim}", t.data.len());
        }
        let cycles = results[0].latency_cycles().unwrap();
        eprintln!(
            "{width:?}: {} distinct real blocks of data/, {} bytes decoded in {cycles} cycles = {:.2} B/cycle; {} more transfers, model within ±2 cycles / 1 %",
            data.len() / BLOCK_BYTES,
            data.len(),
            data.len() as f64 / cycles as f64,
            transfers.len() - 1
        );
    }
}

#[test]
fn raw_chunks_partial_blocks_empty_transfers_and_width_switching() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let noise: Vec<u8> = (0..CHUNK_BYTES + 777).map(|_| rng.r#gen()).collect();
    let mut transfers = vec![
        Transfer::good(noise.clone(), SymbolWidth::W32),
        Transfer::good(Vec::new(), SymbolWidth::W16),
        Transfer::good(noise[..5].to_vec(), SymbolWidth::W16),
    ];
    for i in 0..6 {
        let width = if i % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let blocks = 1 + i;
        let mut data: Vec<u8> = (0..blocks).flat_map(|_| engine::synth::activation_block(&mut rng, width)).collect();
        data.truncate(data.len() - 37 * (i % 3));
        transfers.push(Transfer::good(data, width));
    }
    assert!(transfers[0].stream.len() == transfers[0].data.len() + 4, "noise is stored as two raw chunks");
    let results = run(&transfers, None);
    for (i, (t, r)) in transfers.iter().zip(&results).enumerate() {
        assert_decoded(t, r, &format!("transfer {i}"));
    }
}

#[test]
fn backpressure_on_every_port_changes_timing_not_data() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut transfers = Vec::new();
    for i in 0..5 {
        let width = if i % 2 == 0 { SymbolWidth::W32 } else { SymbolWidth::W16 };
        let mut data: Vec<u8> = (0..(8 + 3 * i)).flat_map(|_| engine::synth::activation_block(&mut rng, width)).collect();
        data.truncate(data.len() - 50 * (i % 2));
        transfers.push(Transfer::good(data, width));
    }
    let noise: Vec<u8> = (0..700).map(|_| rng.r#gen()).collect();
    transfers.push(Transfer::good(noise, SymbolWidth::W32));
    let free = run(&transfers, None);
    let pressed = run(&transfers, Some(0x9E37_79B9));
    for (i, t) in transfers.iter().enumerate() {
        assert_decoded(t, &pressed[i], &format!("transfer {i} with backpressure"));
    }
    let end = |r: &[H2dResult]| r.last().and_then(|r| r.done_cycle).unwrap();
    assert!(end(&pressed) > end(&free), "backpressure did not slow the run down");
}

/// The bytes golden decodes, block by block, before the first error of `stream` (the lane
/// writes exactly these): whole chunks before the bad one, then that chunk's blocks up to the bad
/// block (all of them for a padding error, none for a bad header); a raw chunk cut short gives
/// its whole 32-byte beats.
fn good_prefix(stream: &[u8], raw_bytes: usize, width: SymbolWidth) -> usize {
    let mut offset = 0;
    let mut done = 0;
    for chunk_start in (0..raw_bytes).step_by(CHUNK_BYTES) {
        let c = (raw_bytes - chunk_start).min(CHUNK_BYTES);
        let Some(h) = stream.get(offset..offset + 2) else { return done };
        let header = u16::from_le_bytes([h[0], h[1]]) as usize;
        offset += 2;
        if header > c {
            return done;
        }
        let body = &stream[offset.min(stream.len())..(offset + header).min(stream.len())];
        if header == c {
            if body.len() < c {
                return done + body.len() / 32 * 32;
            }
        } else {
            let mut r = BitReader::new(body);
            for b in 0..c.div_ceil(BLOCK_BYTES) {
                if read_block(&mut r, width).is_err() {
                    return done + b * BLOCK_BYTES;
                }
            }
        }
        offset += header;
        done += c;
    }
    done
}

/// A chunk of `good` valid blocks followed by the bits `bad` (value, width pairs), for a chunk
/// of raw size `c` bytes: header + body.
fn crafted_chunk(good: &[[u8; BLOCK_BYTES]], bad: &[(u32, u32)], width: SymbolWidth, c: usize) -> Vec<u8> {
    let mut w = BitWriter::new();
    for b in good {
        write_block(&mut w, b, width);
    }
    for &(v, n) in bad {
        w.put(v, n);
    }
    let body = w.into_bytes();
    assert!(body.len() < c);
    let mut out = (body.len() as u16).to_le_bytes().to_vec();
    out.extend(body);
    out
}

#[test]
fn every_malformed_chunk_class_is_reported_with_its_chunk_and_nothing_bad_is_written() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let w32 = SymbolWidth::W32;
    let w16 = SymbolWidth::W16;
    // Chunk 0 of every bad transfer is a valid full chunk; the damage is in chunk 1.
    let chunk0 = |rng: &mut ChaCha8Rng, width| -> Vec<u8> {
        (0..32).flat_map(|i| if i % 4 == 0 { engine::synth::activation_block(rng, width) } else { [0u8; BLOCK_BYTES] }).collect()
    };
    let blocks = |rng: &mut ChaCha8Rng, width, n| -> Vec<[u8; BLOCK_BYTES]> { (0..n).map(|_| engine::synth::activation_block(rng, width)).collect() };
    let mut cases: Vec<(H2dErrorClass, Transfer)> = Vec::new();
    let bad = |class, width, good: usize, bits: &[(u32, u32)], rng: &mut ChaCha8Rng| {
        let data0 = chunk0(rng, width);
        let good_blocks = blocks(rng, width, good);
        let c = BLOCK_BYTES * (good + 2);
        let mut data = data0.clone();
        for b in &good_blocks {
            data.extend_from_slice(b);
        }
        data.resize(CHUNK_BYTES + c, 0x11);
        let mut stream = encode_stream(&data0, width);
        stream.extend(crafted_chunk(&good_blocks, bits, width, c));
        (class, Transfer { data, stream, width })
    };
    // Tag 101.
    cases.push(bad(H2dErrorClass::ReservedTag, w32, 2, &[(0b101, 3)], &mut rng));
    // DBX with base prefix 011 at w = 16.
    cases.push(bad(H2dErrorClass::ReservedBaseCode, w16, 1, &[(0b001, 3), (0b011, 3), (0xFFFF, 16)], &mut rng));
    // BX w = 32: top plane "two ones" at position 31 (≥ L − 1); and "one one" at 31 in DBX (L = 31).
    cases.push(bad(H2dErrorClass::PositionOutOfRange, w32, 3, &[(0b010, 3), (0b00010, 5), (31, 5)], &mut rng));
    cases.push(bad(H2dErrorClass::PositionOutOfRange, w32, 0, &[(0b001, 3), (0b000, 3), (0b00011, 5), (31, 5)], &mut rng));
    // ZBX w = 16 with n = 3: position 3 of a 3-bit plane.
    cases.push(bad(H2dErrorClass::PositionOutOfRange, w16, 1, &[(0b011, 3), (0xE000, 16), (0, 16), (0, 32), (0b00011, 5), (3, 2)], &mut rng));
    // BX w = 32: a run of 33 planes; BX w = 16: a run of 17.
    cases.push(bad(H2dErrorClass::RunTooLong, w32, 1, &[(0b010, 3), (0b01, 2), (31, 5)], &mut rng));
    cases.push(bad(H2dErrorClass::RunTooLong, w16, 2, &[(0b010, 3), (0b001, 3), (0b01, 2), (15, 4)], &mut rng));
    // "DBP = 0" on the top plane.
    cases.push(bad(H2dErrorClass::DbpZeroOnTopPlane, w32, 1, &[(0b010, 3), (0b00001, 5)], &mut rng));
    cases.push(bad(H2dErrorClass::DbpZeroOnTopPlane, w16, 0, &[(0b001, 3), (0b000, 3), (0b00001, 5)], &mut rng));
    // DBX base 0, borrow plane all ones, the rest zero: s[1] = −1.
    cases.push(bad(H2dErrorClass::DeltaOutOfRange, w32, 2, &[(0b001, 3), (0b000, 3), (0b00000, 5), (0b01, 2), (30, 5)], &mut rng));
    cases.push(bad(H2dErrorClass::DeltaOutOfRange, w16, 1, &[(0b001, 3), (0b000, 3), (0b00000, 5), (0b01, 2), (14, 4)], &mut rng));
    // A verbatim plane cut by the end of the body (blocks run past the header's length).
    cases.push(bad(H2dErrorClass::Truncated, w32, 1, &[(0b010, 3), (0b1, 1), (0xFFFF, 16)], &mut rng));
    // Blocks that end a whole byte before the body does: a valid 2-block chunk, one zero byte more.
    let data0 = chunk0(&mut rng, w32);
    let tail: Vec<u8> = blocks(&mut rng, w32, 2).concat();
    let mut stream = encode_stream(&data0, w32);
    let mut chunk1 = encode_stream(&tail, w32);
    let h1 = u16::from_le_bytes([chunk1[0], chunk1[1]]);
    assert!((h1 as usize) < tail.len() - 1, "the 2-block chunk compresses");
    chunk1[..2].copy_from_slice(&(h1 + 1).to_le_bytes());
    chunk1.push(0);
    stream.extend(chunk1);
    cases.push((H2dErrorClass::SizeMismatch, Transfer { data: [data0, tail].concat(), stream, width: w32 }));

    // A bad chunk 1 (of 3) whose chunk 2 is good, and one whose chunk 2 fails sooner than chunk 1
    // does (another context decodes it at the same time): the error is chunk 1's either way.
    for chunk2_bad in [false, true] {
        let data0 = chunk0(&mut rng, w32);
        let good1 = blocks(&mut rng, w32, 20);
        let mut data = data0.clone();
        for b in &good1 {
            data.extend_from_slice(b);
        }
        data.resize(2 * CHUNK_BYTES, 0x11);
        let mut stream = encode_stream(&data0, w32);
        stream.extend(crafted_chunk(&good1, &[(0b110, 3)], w32, CHUNK_BYTES));
        let data2: Vec<u8> = blocks(&mut rng, w32, 8).concat();
        if chunk2_bad {
            stream.extend(crafted_chunk(&[], &[(0b111, 3)], w32, data2.len()));
        } else {
            stream.extend(encode_stream(&data2, w32));
        }
        data.extend(data2);
        cases.push((H2dErrorClass::ReservedTag, Transfer { data, stream, width: w32 }));
    }

    // Whole-stream damage to valid two- and three-chunk streams.
    let valid = |rng: &mut ChaCha8Rng, width, bytes: usize| -> Transfer {
        let data: Vec<u8> = (0..bytes.div_ceil(BLOCK_BYTES)).flat_map(|_| engine::synth::activation_block(rng, width)).take(bytes).collect();
        Transfer::good(data, width)
    };
    // Header larger than the chunk's raw size.
    let mut t = valid(&mut rng, w32, CHUNK_BYTES + 300);
    let h0 = u16::from_le_bytes([t.stream[0], t.stream[1]]) as usize;
    t.stream[2 + h0..4 + h0].copy_from_slice(&301u16.to_le_bytes());
    cases.push((H2dErrorClass::HeaderTooLarge, t));
    // Nonzero padding: set the last bit of a chunk whose body ends in padding.
    for seed in 0..64u64 {
        let mut r2 = ChaCha8Rng::seed_from_u64(100 + seed);
        let mut t = valid(&mut r2, w16, CHUNK_BYTES + 640);
        let h0 = u16::from_le_bytes([t.stream[0], t.stream[1]]) as usize;
        let last = t.stream.len() - 1;
        if h0 < CHUNK_BYTES && t.stream[last] & 1 == 0 {
            t.stream[last] |= 1;
            if decode_stream(&t.stream, t.data.len(), w16).err().map(|e| H2dErrorClass::of_decode_error(&e, 2).0) == Some(H2dErrorClass::SizeMismatch) {
                cases.push((H2dErrorClass::SizeMismatch, t));
                break;
            }
        }
    }
    // The stream cut inside a compressed body, inside a header, and inside a raw chunk.
    let t = valid(&mut rng, w32, 2 * CHUNK_BYTES + 900);
    let cut = t.stream.len() - 20;
    cases.push((H2dErrorClass::StreamTruncated, Transfer { stream: t.stream[..cut].to_vec(), ..t }));
    let t = valid(&mut rng, w16, CHUNK_BYTES + 500);
    let h0 = u16::from_le_bytes([t.stream[0], t.stream[1]]) as usize;
    cases.push((H2dErrorClass::StreamTruncated, Transfer { stream: t.stream[..3 + h0].to_vec(), ..t }));
    let noise: Vec<u8> = (0..CHUNK_BYTES + 200).map(|_| rng.r#gen()).collect();
    let t = Transfer::good(noise, w32);
    cases.push((H2dErrorClass::StreamTruncated, Transfer { stream: t.stream[..2 + CHUNK_BYTES + 2 + 101].to_vec(), ..t }));
    // Bytes after the last chunk: one, and a whole beat more.
    for extra in [1usize, 40] {
        let mut t = valid(&mut rng, w32, 1000);
        t.stream.extend(std::iter::repeat_n(0u8, extra));
        cases.push((H2dErrorClass::TrailingBytes, t));
    }

    // Each bad transfer is followed by a good one, which must decode.
    let mut transfers = Vec::new();
    for (_, t) in cases.iter() {
        transfers.push(Transfer { data: t.data.clone(), stream: t.stream.clone(), width: t.width });
        transfers.push(valid(&mut rng, if transfers.len() % 4 == 0 { w16 } else { w32 }, 300));
    }
    let results = run(&transfers, None);
    let mut seen = std::collections::HashSet::new();
    for (i, (class, t)) in cases.iter().enumerate() {
        let chunks = t.data.len().div_ceil(CHUNK_BYTES);
        let golden = decode_stream(&t.stream, t.data.len(), t.width).expect_err("crafted transfer must be malformed");
        let expected = H2dErrorClass::of_decode_error(&golden, chunks);
        assert_eq!(expected.0, *class, "case {i}: golden reports {golden}");
        let r = &results[2 * i];
        assert_eq!(r.error, Some(expected), "case {i} ({class:?}): golden says {golden}");
        assert_eq!(r.error_pulses, 1, "case {i}: one error pulse");
        // The good prefix is written; in the bad chunk nothing past its bad block; chunks after it
        // that other contexts had already taken may be written, with the tensor's bytes only.
        let prefix = good_prefix(&t.stream, t.data.len(), t.width);
        let bad_chunk_end = ((expected.1 + 1) * CHUNK_BYTES).min(t.data.len());
        let (mem, overlap) = r.memory(t.data.len(), 0xA5);
        assert!(!overlap, "case {i}: writes outside the tensor or repeated");
        assert_eq!(&mem[..prefix], &t.data[..prefix], "case {i} ({class:?}): the good prefix");
        for w in &r.writes {
            for b in (0..32).filter(|b| w.strb >> b & 1 == 1) {
                let a = w.addr as usize + b;
                assert!(a < prefix || a >= bad_chunk_end, "case {i} ({class:?}): byte {a} of the bad chunk past its bad block written");
                assert_eq!(w.data[b], t.data[a], "case {i} ({class:?}): byte {a} written wrong");
            }
        }
        let in_prefix = r.writes.iter().map(|w| (0..32).filter(|b| w.strb >> b & 1 == 1 && (w.addr as usize + b) < prefix).count()).sum::<usize>();
        assert_eq!(in_prefix, prefix, "case {i} ({class:?}): bytes of the good prefix written");
        // A write is marked last only if it holds the tensor's final byte.
        assert!(r.writes.iter().filter(|w| w.last).all(|w| w.addr as usize + w.strb.count_ones() as usize == t.data.len()), "case {i}: a write marked last without the final byte");
        let next = &transfers[2 * i + 1];
        assert_decoded(next, &results[2 * i + 1], &format!("transfer after case {i}"));
        seen.insert(*class);
    }
    assert_eq!(seen.len(), H2dErrorClass::ALL.len(), "every §9 class was crafted: {seen:?}");
}

#[test]
fn vcd_trace_parses_back() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("h2d.vcd");
    let t = Transfer::good((0..50).flat_map(|_| 1.0f32.to_le_bytes()).collect(), SymbolWidth::W32);
    let mut sim = H2dSim::new();
    sim.trace_to(Box::new(std::io::BufWriter::new(std::fs::File::create(&path).unwrap())));
    sim.queue_transfer(&t.stream, t.data.len() as u32, t.width, 3);
    sim.run(200, || H2dPorts::FREE);
    sim.finish_trace();
    assert_decoded(&t, &sim.results()[0], "traced");
    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let out_valid = header.find_var(&["uut", "out_valid"]).expect("out_valid traced").code;
    let mut high = 0;
    for cmd in parser {
        if let vcd::Command::ChangeScalar(code, vcd::Value::V1) = cmd.unwrap() {
            high += (code == out_valid) as usize;
        }
    }
    assert!(high >= 1, "out_valid never rose in the trace");
}

