//! `sim-harness peers`: PlaneZip beside the software codecs a user would otherwise reach for, on
//! the same tensors, fp32 (w = 32) and bf16 (RNE conversion, w = 16): ratio per model and their
//! geometric means, and single-core compress / decompress GB/s (thread CPU time). Every stream is
//! decoded and compared with its input.
//!
//! Codecs: PlaneZip (the fast engine paths) and each of its codes alone (ZVC = cDMA, DBX = BPC,
//! BX, ZBX; the paper's Fig. 3 single-code streams, coded block by block with the golden codec);
//! zstd (levels of `--zstd-levels`) and lz4 (`lz4_flex`) at 4 KB independent chunks and over whole
//! tensors; byte-shuffle + zstd-3 / lz4 with one frame per 4 KB chunk; byte-split at 4 KB (each
//! byte stream of a chunk its own frame, as Blosc's split mode and ZipNN do); a ZipNN-style
//! exponent-grouping coder (exponent, sign + top mantissa, lower mantissa byte streams, each
//! ANS-coded with the `constriction` crate from its own histogram); BDI at 128-byte blocks; and the
//! order-0 entropy of the symbols and of the exponent field as ceilings for context-free coders.
//! Written by hand, as no crate has them: the shuffle and split layouts, the exponent grouping
//! and its stream format, and BDI. The real ZipNN package is not run from Rust (a Python package,
//! outside the CI environment): its column says "not run".
//!
//! Chunked codecs share PlaneZip's chunk convention: a 2-byte little-endian body length per 4 KB
//! chunk, and a chunk whose coded body would not be smaller is stored raw (length = raw length).

use crate::tensors;
use anyhow::{Context, Result, bail, ensure};
use cpu_time::ThreadTime;
use engine::golden::block::{BlockEncoding, Tag, decode_block, encode_block_with};
use engine::golden::chunk::stream_bytes_for;
use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The models of the paper's Fig. 3, whose geometric mean is reported on its own.
pub const PAPER_MODELS: [&str; 5] = ["resnet50", "densenet121", "efficientnet_b0", "vit_b16", "gpt2"];

/// Bytes of a chunk's length header.
const CHUNK_HEADER_BYTES: usize = 2;
/// Bytes per 128-byte BDI block header (the encoding number).
const BDI_HEADER_BYTES: usize = 1;

/// Arguments of `peers`.
#[derive(Debug, clap::Args)]
pub struct PeersArgs {
    /// Tensor files (.safetensors) or model dump directories (every .safetensors inside). A
    /// tensor's model is its directory's name.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// zstd levels to run (zstd-19 is slow: about 10 MB/s).
    #[arg(long, value_delimiter = ',', default_value = "1,3,19")]
    pub zstd_levels: Vec<i32>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Figures of the real ZipNN package, as written by `sim-harness/zipnn/zipnn_peer.py` (run
    /// in its own venv on the same model directories); without it the ZipNN package column says
    /// "not run".
    #[arg(long)]
    pub zipnn_json: Option<PathBuf>,
}

/// The two element formats compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Bf16,
    Fp32,
}

impl Format {
    fn width(self) -> SymbolWidth {
        match self {
            Format::Bf16 => SymbolWidth::W16,
            Format::Fp32 => SymbolWidth::W32,
        }
    }

    fn elem_bytes(self) -> usize {
        self.width().bits() as usize / 8
    }
}

/// One codec's wire format. `encode` returns the stream; `decode` must give the input back.
trait Codec {
    fn encode(&mut self, data: &[u8], f: Format) -> Result<Vec<u8>>;
    fn decode(&mut self, stream: &[u8], raw_bytes: usize, f: Format) -> Result<Vec<u8>>;
}

/// A frame coder: bytes in, bytes out (no raw fallback of its own).
trait Frame {
    fn compress(&mut self, data: &[u8]) -> Result<Vec<u8>>;
    fn decompress(&mut self, frame: &[u8], raw_bytes: usize) -> Result<Vec<u8>>;
}

struct Zstd {
    level: i32,
    enc: zstd::bulk::Compressor<'static>,
    dec: zstd::bulk::Decompressor<'static>,
}

impl Zstd {
    fn new(level: i32) -> Result<Zstd> {
        Ok(Zstd { level, enc: zstd::bulk::Compressor::new(level)?, dec: zstd::bulk::Decompressor::new()? })
    }
}

impl Frame for Zstd {
    fn compress(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        self.enc.compress(data).with_context(|| format!("zstd-{} compress", self.level))
    }
    fn decompress(&mut self, frame: &[u8], raw_bytes: usize) -> Result<Vec<u8>> {
        Ok(self.dec.decompress(frame, raw_bytes)?)
    }
}

struct Lz4;

impl Frame for Lz4 {
    fn compress(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        Ok(lz4_flex::block::compress(data))
    }
    fn decompress(&mut self, frame: &[u8], raw_bytes: usize) -> Result<Vec<u8>> {
        Ok(lz4_flex::block::decompress(frame, raw_bytes)?)
    }
}

/// How a chunk's bytes are laid out before the frame coder sees them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// As in memory.
    Plain,
    /// Byte-shuffled (byte `i` of every element together), one frame.
    Shuffle,
    /// Byte-split: each byte stream its own frame (with its own 2-byte length, top bit = raw).
    Split,
}

/// Byte `i` of element `e` goes to `i·n + e` (n elements).
fn shuffle(data: &[u8], elem: usize) -> Vec<u8> {
    let n = data.len() / elem;
    let mut out = vec![0u8; data.len()];
    for (e, x) in data.chunks_exact(elem).enumerate() {
        for (i, &b) in x.iter().enumerate() {
            out[i * n + e] = b;
        }
    }
    out[n * elem..].copy_from_slice(&data[n * elem..]);
    out
}

fn unshuffle(data: &[u8], elem: usize) -> Vec<u8> {
    let n = data.len() / elem;
    let mut out = vec![0u8; data.len()];
    for (e, x) in out.chunks_exact_mut(elem).enumerate() {
        for (i, b) in x.iter_mut().enumerate() {
            *b = data[i * n + e];
        }
    }
    out[n * elem..].copy_from_slice(&data[n * elem..]);
    out
}

/// Streams of a split chunk: the `elem` byte streams (tail bytes of a partial element last).
fn split_lengths(len: usize, elem: usize) -> Vec<usize> {
    let n = len / elem;
    let mut v = vec![n; elem];
    if len % elem != 0 {
        v.push(len % elem);
    }
    v
}

/// Top bit of a split stream's length: the stream is stored raw.
const SPLIT_RAW_FLAG: u16 = 0x8000;

/// Codes a byte run with `code`, or stores it raw when that is not smaller; with a 2-byte length
/// whose top bit marks raw. Used by byte-split and the exponent-grouping coder.
fn put_substream(out: &mut Vec<u8>, data: &[u8], code: impl FnOnce(&[u8]) -> Result<Vec<u8>>) -> Result<()> {
    ensure!(data.len() < SPLIT_RAW_FLAG as usize, "substream of {} bytes too long", data.len());
    let coded = code(data)?;
    let (flag, body) = if coded.len() >= data.len() { (SPLIT_RAW_FLAG, data) } else { (0, &coded[..]) };
    out.extend_from_slice(&(flag | body.len() as u16).to_le_bytes());
    out.extend_from_slice(body);
    Ok(())
}

/// Reads what [`put_substream`] wrote; returns the decoded bytes and advances `at`.
fn get_substream(stream: &[u8], at: &mut usize, raw_bytes: usize, decode: impl FnOnce(&[u8], usize) -> Result<Vec<u8>>) -> Result<Vec<u8>> {
    let head = stream.get(*at..*at + 2).context("substream header past the end")?;
    let word = u16::from_le_bytes([head[0], head[1]]);
    let len = (word & !SPLIT_RAW_FLAG) as usize;
    let body = stream.get(*at + 2..*at + 2 + len).context("substream past the end")?;
    *at += 2 + len;
    let out = if word & SPLIT_RAW_FLAG != 0 { body.to_vec() } else { decode(body, raw_bytes)? };
    ensure!(out.len() == raw_bytes, "substream decoded to {} bytes, expected {raw_bytes}", out.len());
    Ok(out)
}

/// A frame coder over independent chunks of `chunk` bytes (`None`: the whole tensor as one
/// chunk, no header), with a layout, and PlaneZip's raw-chunk convention.
struct Chunked<F: Frame> {
    frame: F,
    chunk: Option<usize>,
    layout: Layout,
}

impl<F: Frame> Chunked<F> {
    fn body(&mut self, data: &[u8], elem: usize) -> Result<Vec<u8>> {
        match self.layout {
            Layout::Plain => self.frame.compress(data),
            Layout::Shuffle => self.frame.compress(&shuffle(data, elem)),
            Layout::Split => {
                let mut out = Vec::new();
                let shuffled = shuffle(data, elem);
                let mut at = 0;
                for len in split_lengths(data.len(), elem) {
                    put_substream(&mut out, &shuffled[at..at + len], |s| self.frame.compress(s))?;
                    at += len;
                }
                Ok(out)
            }
        }
    }

    fn unbody(&mut self, body: &[u8], raw_bytes: usize, elem: usize) -> Result<Vec<u8>> {
        match self.layout {
            Layout::Plain => self.frame.decompress(body, raw_bytes),
            Layout::Shuffle => Ok(unshuffle(&self.frame.decompress(body, raw_bytes)?, elem)),
            Layout::Split => {
                let mut shuffled = Vec::with_capacity(raw_bytes);
                let mut at = 0;
                for len in split_lengths(raw_bytes, elem) {
                    shuffled.extend(get_substream(body, &mut at, len, |b, n| self.frame.decompress(b, n))?);
                }
                ensure!(at == body.len(), "split chunk has {} trailing bytes", body.len() - at);
                Ok(unshuffle(&shuffled, elem))
            }
        }
    }
}

impl<F: Frame> Codec for Chunked<F> {
    fn encode(&mut self, data: &[u8], f: Format) -> Result<Vec<u8>> {
        let Some(chunk) = self.chunk else {
            let body = self.body(data, f.elem_bytes())?;
            return Ok(if body.len() >= data.len() { data.to_vec() } else { body });
        };
        let mut out = Vec::new();
        for c in data.chunks(chunk) {
            let body = self.body(c, f.elem_bytes())?;
            let stored = if body.len() >= c.len() { c } else { &body[..] };
            out.extend_from_slice(&(stored.len() as u16).to_le_bytes());
            out.extend_from_slice(stored);
        }
        Ok(out)
    }

    fn decode(&mut self, stream: &[u8], raw_bytes: usize, f: Format) -> Result<Vec<u8>> {
        let Some(chunk) = self.chunk else {
            return if stream.len() == raw_bytes { Ok(stream.to_vec()) } else { self.unbody(stream, raw_bytes, f.elem_bytes()) };
        };
        let mut out = Vec::with_capacity(raw_bytes);
        let mut at = 0;
        for start in (0..raw_bytes).step_by(chunk) {
            let raw = (raw_bytes - start).min(chunk);
            let head = stream.get(at..at + CHUNK_HEADER_BYTES).context("chunk header past the end")?;
            let len = u16::from_le_bytes([head[0], head[1]]) as usize;
            let body = stream.get(at + CHUNK_HEADER_BYTES..at + CHUNK_HEADER_BYTES + len).context("chunk body past the end")?;
            at += CHUNK_HEADER_BYTES + len;
            if len == raw {
                out.extend_from_slice(body);
            } else {
                out.extend(self.unbody(body, raw, f.elem_bytes())?);
            }
        }
        ensure!(at == stream.len(), "{} trailing bytes", stream.len() - at);
        Ok(out)
    }
}

/// PlaneZip with the engine's fast paths.
struct PlaneZip;

impl Codec for PlaneZip {
    fn encode(&mut self, data: &[u8], f: Format) -> Result<Vec<u8>> {
        Ok(engine::fast::encode_stream(data, f.width()))
    }
    fn decode(&mut self, stream: &[u8], raw_bytes: usize, f: Format) -> Result<Vec<u8>> {
        Ok(engine::fast::decode_stream(stream, raw_bytes, f.width())?)
    }
}

/// One PlaneZip code for every block (the paper's single-code columns): blocks coded with the
/// golden codec, the wire size that of the chunk format without tags (FORMAT.md §8).
struct SingleCode {
    tag: Tag,
    blocks: Vec<BlockEncoding>,
}

impl SingleCode {
    fn blocks_of(data: &[u8]) -> impl Iterator<Item = [u8; BLOCK_BYTES]> + '_ {
        data.chunks(BLOCK_BYTES).map(|b| {
            let mut p = [0u8; BLOCK_BYTES];
            p[..b.len()].copy_from_slice(b);
            p
        })
    }

    /// Encodes and returns the wire bytes (the encodings are kept for `decode_kept`).
    fn encode_size(&mut self, data: &[u8], f: Format) -> usize {
        self.blocks = Self::blocks_of(data).map(|b| encode_block_with(&b, f.width(), self.tag)).collect();
        stream_bytes_for(data.len(), self.blocks.iter().map(|e| e.payload_bits), 0)
    }

    fn decode_kept(&self, raw_bytes: usize, f: Format) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(raw_bytes + BLOCK_BYTES);
        for e in &self.blocks {
            out.extend_from_slice(&decode_block(e, f.width())?);
        }
        out.truncate(raw_bytes);
        Ok(out)
    }
}

/// ZipNN-style exponent grouping: per chunk, the elements' exponent bytes, sign + top-mantissa
/// bytes and lower mantissa bytes as separate streams, each coded with order-0 ANS from its own
/// (quantized, stored) histogram, or raw when that is not smaller.
struct ExponentGrouping {
    chunk: Option<usize>,
}

/// Largest stored histogram count (the counts are scaled down to fit 16 bits).
const HIST_MAX: u32 = u16::MAX as u32;

/// Order-0 ANS coding of a byte stream: distinct count (u16), the distinct bytes, a scale shift,
/// their scaled counts (u16 each), then the ANS words (u32 LE). One distinct byte: no words.
fn ans_encode(data: &[u8]) -> Result<Vec<u8>> {
    let mut hist = [0u32; 256];
    for &b in data {
        hist[b as usize] += 1;
    }
    let symbols: Vec<u8> = (0..=255u8).filter(|&b| hist[b as usize] > 0).collect();
    let max = symbols.iter().map(|&b| hist[b as usize]).max().unwrap_or(0);
    let shift = (32 - max.leading_zeros()).saturating_sub(16) as u8;
    let counts: Vec<u16> = symbols.iter().map(|&b| (hist[b as usize] >> shift).clamp(1, HIST_MAX) as u16).collect();
    let mut out = Vec::new();
    out.extend_from_slice(&(symbols.len() as u16).to_le_bytes());
    out.extend_from_slice(&symbols);
    out.push(shift);
    for c in &counts {
        out.extend_from_slice(&c.to_le_bytes());
    }
    if symbols.len() > 1 {
        let mut rank = [0usize; 256];
        for (r, &b) in symbols.iter().enumerate() {
            rank[b as usize] = r;
        }
        let probs: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
        let model = constriction::stream::model::DefaultContiguousCategoricalEntropyModel::from_floating_point_probabilities_fast(&probs, None)
            .map_err(|()| anyhow::anyhow!("ANS model of {} symbols", probs.len()))?;
        let mut coder = constriction::stream::stack::DefaultAnsCoder::new();
        coder.encode_iid_symbols_reverse(data.iter().map(|&b| rank[b as usize]), &model).map_err(|e| anyhow::anyhow!("ANS encode: {e:?}"))?;
        for w in coder.into_compressed().map_err(|e| anyhow::anyhow!("ANS finish: {e:?}"))? {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    Ok(out)
}

fn ans_decode(coded: &[u8], raw_bytes: usize) -> Result<Vec<u8>> {
    use constriction::stream::Decode;
    let distinct = u16::from_le_bytes(coded.get(..2).context("ANS header")?.try_into()?) as usize;
    let symbols = coded.get(2..2 + distinct).context("ANS symbols")?;
    let mut at = 2 + distinct + 1;
    let counts: Vec<f64> = (0..distinct)
        .map(|i| coded.get(at + 2 * i..at + 2 * i + 2).map(|c| u16::from_le_bytes([c[0], c[1]]) as f64))
        .collect::<Option<_>>()
        .context("ANS counts")?;
    at += 2 * distinct;
    match distinct {
        0 => Ok(Vec::new()),
        1 => Ok(vec![symbols[0]; raw_bytes]),
        _ => {
            let words = coded.get(at..).context("ANS words")?;
            ensure!(words.len() % 4 == 0, "ANS words not whole");
            let words: Vec<u32> = words.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
            let model = constriction::stream::model::DefaultContiguousCategoricalEntropyModel::from_floating_point_probabilities_fast(&counts, None)
                .map_err(|()| anyhow::anyhow!("ANS model"))?;
            let mut coder = constriction::stream::stack::DefaultAnsCoder::from_compressed(words).map_err(|_| anyhow::anyhow!("ANS stream"))?;
            coder
                .decode_iid_symbols(raw_bytes, &model)
                .map(|r| r.map(|s| symbols[s]).map_err(|e| anyhow::anyhow!("ANS decode: {e:?}")))
                .collect()
        }
    }
}

/// The byte streams of the exponent grouping: fp32 → exponent, sign + mantissa[22:16],
/// mantissa[15:8], mantissa[7:0]; bf16 → exponent, sign + mantissa[6:0].
fn group_streams(data: &[u8], f: Format) -> Vec<Vec<u8>> {
    let e = f.elem_bytes();
    let mut streams = vec![Vec::with_capacity(data.len() / e); e];
    for x in data.chunks_exact(e) {
        let v = match f {
            Format::Fp32 => u32::from_le_bytes([x[0], x[1], x[2], x[3]]),
            Format::Bf16 => (u16::from_le_bytes([x[0], x[1]]) as u32) << 16,
        };
        streams[0].push((v >> 23) as u8);
        streams[1].push(((v >> 24) & 0x80) as u8 | ((v >> 16) & 0x7F) as u8);
        if f == Format::Fp32 {
            streams[2].push((v >> 8) as u8);
            streams[3].push(v as u8);
        }
    }
    streams
}

fn ungroup_streams(streams: &[Vec<u8>], f: Format) -> Vec<u8> {
    let n = streams[0].len();
    let mut out = Vec::with_capacity(n * f.elem_bytes());
    for i in 0..n {
        let (exp, top) = (streams[0][i] as u32, streams[1][i] as u32);
        let mut v = ((top & 0x80) << 24) | (exp << 23) | ((top & 0x7F) << 16);
        match f {
            Format::Fp32 => {
                v |= (streams[2][i] as u32) << 8 | streams[3][i] as u32;
                out.extend_from_slice(&v.to_le_bytes());
            }
            Format::Bf16 => out.extend_from_slice(&((v >> 16) as u16).to_le_bytes()),
        }
    }
    out
}

impl ExponentGrouping {
    fn body(data: &[u8], f: Format) -> Result<Vec<u8>> {
        let whole = data.len() / f.elem_bytes() * f.elem_bytes();
        let mut out = Vec::new();
        for s in group_streams(&data[..whole], f) {
            put_substream_long(&mut out, &s, ans_encode)?;
        }
        out.extend_from_slice(&data[whole..]);
        Ok(out)
    }

    fn unbody(body: &[u8], raw_bytes: usize, f: Format) -> Result<Vec<u8>> {
        let e = f.elem_bytes();
        let n = raw_bytes / e;
        let mut at = 0;
        let streams: Vec<Vec<u8>> = (0..e).map(|_| get_substream_long(body, &mut at, n, ans_decode)).collect::<Result<_>>()?;
        let mut out = ungroup_streams(&streams, f);
        out.extend_from_slice(body.get(at..).context("tail")?);
        ensure!(out.len() == raw_bytes, "exponent grouping decoded {} bytes, expected {raw_bytes}", out.len());
        Ok(out)
    }
}

/// [`put_substream`] with a 4-byte length (whole tensors), top bit = raw.
fn put_substream_long(out: &mut Vec<u8>, data: &[u8], code: impl FnOnce(&[u8]) -> Result<Vec<u8>>) -> Result<()> {
    const RAW: u32 = 1 << 31;
    ensure!(data.len() < RAW as usize, "substream too long");
    let coded = code(data)?;
    let (flag, body) = if coded.len() >= data.len() { (RAW, data) } else { (0, &coded[..]) };
    out.extend_from_slice(&(flag | body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    Ok(())
}

fn get_substream_long(stream: &[u8], at: &mut usize, raw_bytes: usize, decode: impl FnOnce(&[u8], usize) -> Result<Vec<u8>>) -> Result<Vec<u8>> {
    const RAW: u32 = 1 << 31;
    let head = stream.get(*at..*at + 4).context("substream header past the end")?;
    let word = u32::from_le_bytes(head.try_into()?);
    let len = (word & !RAW) as usize;
    let body = stream.get(*at + 4..*at + 4 + len).context("substream past the end")?;
    *at += 4 + len;
    let out = if word & RAW != 0 { body.to_vec() } else { decode(body, raw_bytes)? };
    ensure!(out.len() == raw_bytes, "substream decoded to {} bytes, expected {raw_bytes}", out.len());
    Ok(out)
}

impl Codec for ExponentGrouping {
    fn encode(&mut self, data: &[u8], f: Format) -> Result<Vec<u8>> {
        let size = self.chunk.unwrap_or(data.len().max(1));
        let mut out = Vec::new();
        for c in data.chunks(size) {
            let body = Self::body(c, f)?;
            let stored = if body.len() >= c.len() { c } else { &body[..] };
            out.extend_from_slice(&(stored.len() as u32).to_le_bytes()[..self.header_bytes()]);
            out.extend_from_slice(stored);
        }
        Ok(out)
    }

    fn decode(&mut self, stream: &[u8], raw_bytes: usize, f: Format) -> Result<Vec<u8>> {
        let size = self.chunk.unwrap_or(raw_bytes.max(1));
        let h = self.header_bytes();
        let mut out = Vec::with_capacity(raw_bytes);
        let mut at = 0;
        for start in (0..raw_bytes).step_by(size) {
            let raw = (raw_bytes - start).min(size);
            let head = stream.get(at..at + h).context("chunk header past the end")?;
            let mut len_bytes = [0u8; 4];
            len_bytes[..h].copy_from_slice(head);
            let len = u32::from_le_bytes(len_bytes) as usize;
            let body = stream.get(at + h..at + h + len).context("chunk body past the end")?;
            at += h + len;
            if len == raw {
                out.extend_from_slice(body);
            } else {
                out.extend(Self::unbody(body, raw, f)?);
            }
        }
        ensure!(at == stream.len(), "{} trailing bytes", stream.len() - at);
        Ok(out)
    }
}

impl ExponentGrouping {
    /// Chunk length header: 2 bytes at 4 KB (as PlaneZip), 4 for whole tensors.
    fn header_bytes(&self) -> usize {
        if self.chunk.is_some() { CHUNK_HEADER_BYTES } else { 4 }
    }
}

/// BDI (Pekhimenko et al., PACT 2012) at 128-byte blocks, by hand: per block one encoding byte
/// (0 = all zero, 1 = one repeated 8-byte value, 2–7 = base k bytes with d-byte deltas, 8 = raw),
/// then the base, a bit mask choosing the implicit zero base or the explicit one per value, and
/// the deltas. The smallest applicable encoding is chosen.
struct Bdi;

/// (base bytes k, delta bytes d) of encodings 2–7.
const BDI_CONFIGS: [(usize, usize); 6] = [(8, 1), (8, 2), (8, 4), (4, 1), (4, 2), (2, 1)];
/// BDI encoding numbers.
const BDI_ZERO: u8 = 0;
const BDI_REPEAT: u8 = 1;
const BDI_RAW: u8 = 8;

fn read_word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(w)
}

/// Does `v` (a k-byte value) fit as a sign-extended d-byte number?
fn fits(v: u64, k: usize, d: usize) -> bool {
    let shift = 64 - 8 * k as u32;
    let s = ((v << shift) as i64) >> shift;
    let lim = 1i64 << (8 * d - 1);
    (-lim..lim).contains(&s)
}

fn bdi_block(block: &[u8; BLOCK_BYTES], out: &mut Vec<u8>) {
    if block.iter().all(|&b| b == 0) {
        out.push(BDI_ZERO);
        return;
    }
    if block.chunks_exact(8).all(|c| c == &block[..8]) {
        out.push(BDI_REPEAT);
        out.extend_from_slice(&block[..8]);
        return;
    }
    let mut best: Option<(usize, u8)> = None;
    for (i, &(k, d)) in BDI_CONFIGS.iter().enumerate() {
        let mask = if k == 8 { u64::MAX } else { (1u64 << (8 * k)) - 1 };
        let vals: Vec<u64> = block.chunks_exact(k).map(read_word).collect();
        let base = vals.iter().copied().find(|&v| !fits(v, k, d)).unwrap_or(0);
        if vals.iter().all(|&v| fits(v, k, d) || fits(v.wrapping_sub(base) & mask, k, d)) {
            let size = k + vals.len().div_ceil(8) + vals.len() * d;
            if best.is_none_or(|(s, _)| size < s) {
                best = Some((size, i as u8 + 2));
            }
        }
    }
    match best {
        Some((size, enc)) if size < BLOCK_BYTES => {
            let (k, d) = BDI_CONFIGS[enc as usize - 2];
            let mask = if k == 8 { u64::MAX } else { (1u64 << (8 * k)) - 1 };
            let vals: Vec<u64> = block.chunks_exact(k).map(read_word).collect();
            let base = vals.iter().copied().find(|&v| !fits(v, k, d)).unwrap_or(0);
            out.push(enc);
            out.extend_from_slice(&base.to_le_bytes()[..k]);
            let mut bits = vec![0u8; vals.len().div_ceil(8)];
            for (i, &v) in vals.iter().enumerate() {
                if !fits(v, k, d) {
                    bits[i / 8] |= 1 << (i % 8);
                }
            }
            out.extend_from_slice(&bits);
            for (i, &v) in vals.iter().enumerate() {
                let delta = if bits[i / 8] >> (i % 8) & 1 == 1 { v.wrapping_sub(base) & mask } else { v };
                out.extend_from_slice(&delta.to_le_bytes()[..d]);
            }
        }
        _ => {
            out.push(BDI_RAW);
            out.extend_from_slice(block);
        }
    }
}

fn bdi_unblock(stream: &[u8], at: &mut usize) -> Result<[u8; BLOCK_BYTES]> {
    let mut block = [0u8; BLOCK_BYTES];
    let enc = *stream.get(*at).context("BDI header past the end")?;
    *at += BDI_HEADER_BYTES;
    let mut take = |n: usize| -> Result<&[u8]> {
        let s = stream.get(*at..*at + n).context("BDI block past the end")?;
        *at += n;
        Ok(s)
    };
    match enc {
        BDI_ZERO => {}
        BDI_REPEAT => {
            let v = take(8)?.to_vec();
            for c in block.chunks_exact_mut(8) {
                c.copy_from_slice(&v);
            }
        }
        BDI_RAW => block.copy_from_slice(take(BLOCK_BYTES)?),
        2..=7 => {
            let (k, d) = BDI_CONFIGS[enc as usize - 2];
            let n = BLOCK_BYTES / k;
            let mask = if k == 8 { u64::MAX } else { (1u64 << (8 * k)) - 1 };
            let base = read_word(take(k)?);
            let bits = take(n.div_ceil(8))?.to_vec();
            for (i, c) in block.chunks_exact_mut(k).enumerate() {
                let raw = read_word(take(d)?);
                let shift = 64 - 8 * d as u32;
                let delta = (((raw << shift) as i64) >> shift) as u64;
                let v = if bits[i / 8] >> (i % 8) & 1 == 1 { base.wrapping_add(delta) } else { delta } & mask;
                c.copy_from_slice(&v.to_le_bytes()[..k]);
            }
        }
        other => bail!("BDI encoding {other} unknown"),
    }
    Ok(block)
}

impl Codec for Bdi {
    fn encode(&mut self, data: &[u8], _f: Format) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for b in SingleCode::blocks_of(data) {
            bdi_block(&b, &mut out);
        }
        Ok(out)
    }
    fn decode(&mut self, stream: &[u8], raw_bytes: usize, _f: Format) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(raw_bytes + BLOCK_BYTES);
        let mut at = 0;
        while out.len() < raw_bytes {
            out.extend_from_slice(&bdi_unblock(stream, &mut at)?);
        }
        ensure!(at == stream.len(), "{} trailing bytes", stream.len() - at);
        out.truncate(raw_bytes);
        Ok(out)
    }
}

/// Order-0 entropy in bits of the values produced by `keys`.
fn entropy_bits(keys: impl Iterator<Item = u32>) -> f64 {
    let mut hist: HashMap<u32, u64> = HashMap::new();
    let mut n = 0u64;
    for k in keys {
        *hist.entry(k).or_default() += 1;
        n += 1;
    }
    hist.values().map(|&c| -(c as f64) * (c as f64 / n as f64).log2()).sum()
}

/// The symbols of a tensor (w-bit little-endian words).
fn symbols(data: &[u8], f: Format) -> impl Iterator<Item = u32> + '_ {
    data.chunks_exact(f.elem_bytes()).map(move |x| match f {
        Format::Fp32 => u32::from_le_bytes([x[0], x[1], x[2], x[3]]),
        Format::Bf16 => u16::from_le_bytes([x[0], x[1]]) as u32,
    })
}

/// One row of the report: a codec and its figures per format.
#[derive(Debug, Serialize)]
pub struct Row {
    /// Codec name.
    pub codec: String,
    /// Independently decodable unit.
    pub granularity: String,
    /// What the speed columns measure, when not the codec itself.
    pub note: String,
    /// bf16 figures (w = 16).
    pub bf16: Figures,
    /// fp32 figures (w = 32).
    pub fp32: Figures,
}

/// A codec's figures for one element format.
#[derive(Debug, Default, Serialize)]
pub struct Figures {
    /// Ratio (raw bytes / wire bytes) of each model's tensors together.
    pub ratio_by_model: BTreeMap<String, f64>,
    /// Ratio of the tensors of each producing operator type (from the dump's `trace.json`;
    /// `unknown` without one), all models together.
    pub ratio_by_operator: BTreeMap<String, f64>,
    /// Geometric mean of the paper's five models (those present), if any.
    pub geomean_paper: Option<f64>,
    /// Geometric mean over every model given.
    pub geomean_all: Option<f64>,
    /// Compression speed, GB (10^9 bytes of raw tensor) per second of thread CPU time, one core;
    /// `None` for the entropy ceilings.
    pub compress_gbps: Option<f64>,
    /// Decompression speed, as `compress_gbps`.
    pub decompress_gbps: Option<f64>,
}

/// The whole `peers` report.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Models (directory names) and their fp32 tensor bytes.
    pub models: BTreeMap<String, usize>,
    /// Tensors measured (F32 tensors, each also as bf16; BF16/F16 tensors as bf16 only).
    pub tensors: usize,
    /// One row per codec.
    pub rows: Vec<Row>,
    /// The real ZipNN package's column.
    pub zipnn_package: String,
}

/// One tensor to code and the operator type that produced it.
struct Input {
    op: String,
    bytes: Vec<u8>,
}

/// Tensors per model, per format.
type Inputs = BTreeMap<String, [Vec<Input>; 2]>;

/// Raw and wire bytes per model and per producing operator.
#[derive(Default)]
struct Tally {
    per_model: BTreeMap<String, (usize, usize)>,
    per_op: BTreeMap<String, (usize, usize)>,
}

impl Tally {
    fn add(&mut self, model: &str, op: &str, raw: usize, wire: usize) {
        for (map, key) in [(&mut self.per_model, model), (&mut self.per_op, op)] {
            let e = map.entry(key.to_string()).or_default();
            e.0 += raw;
            e.1 += wire;
        }
    }
}

/// Operator type of each op id in the `trace.json` beside a dump file, if there is one.
fn op_types(dir: &Path) -> Result<Vec<String>> {
    let path = crate::dump::trace_path(dir, crate::dump::TRACE_FILE);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let text = planner::trace::read_trace_text(&path)?;
    let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let mut types = Vec::new();
    for op in v["ops"].as_array().with_context(|| format!("{}: no ops list", path.display()))? {
        let id = op["id"].as_u64().with_context(|| format!("{}: op without an id", path.display()))? as usize;
        if types.len() <= id {
            types.resize(id + 1, "unknown".to_string());
        }
        types[id] = op["op_type"].as_str().unwrap_or("unknown").to_string();
    }
    Ok(types)
}

/// The producing op of a dumped tensor named `op<N>:<k>`.
fn op_of(name: &str, types: &[String]) -> String {
    name.strip_prefix("op").and_then(|r| r.split(':').next()).and_then(|n| n.parse::<usize>().ok()).and_then(|n| types.get(n)).cloned().unwrap_or_else(|| "unknown".into())
}

fn model_of(path: &Path, dir: Option<&Path>) -> String {
    let parent = dir.or_else(|| path.parent()).and_then(|p| p.file_name());
    parent.map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "unnamed".into())
}

fn load_inputs(paths: &[PathBuf]) -> Result<(Inputs, usize)> {
    let mut inputs = Inputs::new();
    let mut count = 0;
    for path in paths {
        let files: Vec<(PathBuf, String)> = if path.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("{}: cannot list", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
                .collect();
            v.sort();
            ensure!(!v.is_empty(), "{}: no .safetensors files in this directory", path.display());
            v.into_iter().map(|f| (f, model_of(path, Some(path)))).collect()
        } else {
            vec![(path.clone(), model_of(path, None))]
        };
        for (file, model) in files {
            let types = op_types(file.parent().unwrap_or(Path::new(".")))?;
            let entry = inputs.entry(model).or_default();
            for t in tensors::load(&file)? {
                let op = op_of(&t.name, &types);
                match t.dtype.as_str() {
                    "F32" => {
                        entry[0].push(Input { op: op.clone(), bytes: crate::convert::f32_to_bf16_bytes(&t.bytes) });
                        entry[1].push(Input { op, bytes: t.bytes });
                    }
                    "BF16" | "F16" => entry[0].push(Input { op, bytes: t.bytes }),
                    _ => continue,
                }
                count += 1;
            }
        }
    }
    inputs.retain(|_, t| !t[0].is_empty() || !t[1].is_empty());
    ensure!(!inputs.is_empty(), "no F32/BF16/F16 tensors in {paths:?}");
    Ok((inputs, count))
}

fn geomean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

fn ratios(m: BTreeMap<String, (usize, usize)>) -> BTreeMap<String, f64> {
    m.into_iter().filter(|(_, v)| v.0 > 0).map(|(k, (r, w))| (k, r as f64 / w.max(1) as f64)).collect()
}

/// Ratio per model and operator, geometric means, speeds.
fn figures(tally: Tally, cpu_s: Option<(f64, f64)>) -> Figures {
    let raw: usize = tally.per_model.values().map(|v| v.0).sum();
    let ratio_by_model = ratios(tally.per_model);
    let paper: Vec<f64> = ratio_by_model.iter().filter(|(m, _)| PAPER_MODELS.contains(&m.as_str())).map(|(_, &r)| r).collect();
    let all: Vec<f64> = ratio_by_model.values().copied().collect();
    Figures {
        geomean_paper: geomean(&paper),
        geomean_all: geomean(&all),
        ratio_by_model,
        ratio_by_operator: ratios(tally.per_op),
        compress_gbps: cpu_s.map(|(c, _)| raw as f64 / c / 1e9),
        decompress_gbps: cpu_s.map(|(_, d)| raw as f64 / d / 1e9),
    }
}

/// Runs `codec` on every tensor of `f`: (raw, wire) per model and the CPU seconds of
/// compression and decompression; fails if any stream does not decode to its input.
fn measure(name: &str, inputs: &Inputs, f: Format, codec: &mut dyn Codec) -> Result<Figures> {
    let mut tally = Tally::default();
    let (mut enc_s, mut dec_s) = (0.0, 0.0);
    for (model, tensors) in inputs {
        for t in &tensors[f as usize] {
            let start = ThreadTime::now();
            let stream = codec.encode(&t.bytes, f)?;
            enc_s += start.elapsed().as_secs_f64();
            let start = ThreadTime::now();
            let back = codec.decode(&stream, t.bytes.len(), f)?;
            dec_s += start.elapsed().as_secs_f64();
            ensure!(back == t.bytes, "{name} ({f:?}): a {}-byte tensor of {model} does not round-trip", t.bytes.len());
            tally.add(model, &t.op, t.bytes.len(), stream.len());
        }
    }
    Ok(figures(tally, Some((enc_s, dec_s))))
}

fn measure_single(inputs: &Inputs, f: Format, tag: Tag) -> Result<Figures> {
    let mut tally = Tally::default();
    let (mut enc_s, mut dec_s) = (0.0, 0.0);
    let mut code = SingleCode { tag, blocks: Vec::new() };
    for (model, tensors) in inputs {
        for t in &tensors[f as usize] {
            let start = ThreadTime::now();
            let wire = code.encode_size(&t.bytes, f);
            enc_s += start.elapsed().as_secs_f64();
            let start = ThreadTime::now();
            let back = code.decode_kept(t.bytes.len(), f)?;
            dec_s += start.elapsed().as_secs_f64();
            ensure!(back == t.bytes, "{} alone ({f:?}): a tensor of {model} does not round-trip", tag.name());
            tally.add(model, &t.op, t.bytes.len(), wire);
        }
    }
    Ok(figures(tally, Some((enc_s, dec_s))))
}

/// The order-0 ceiling: wire bits = N × H (symbols) or N × (H(exponent) + w − 8) (exponent),
/// with the histogram of each tensor.
fn measure_entropy(inputs: &Inputs, f: Format, exponent_only: bool) -> Figures {
    let mut tally = Tally::default();
    for (model, tensors) in inputs {
        for t in &tensors[f as usize] {
            let n = t.bytes.len() / f.elem_bytes();
            let w = f.width().bits();
            let bits = if exponent_only {
                entropy_bits(symbols(&t.bytes, f).map(|s| (s >> (w - 9)) & 0xFF)) + n as f64 * (w - 8) as f64
            } else {
                entropy_bits(symbols(&t.bytes, f))
            };
            tally.add(model, &t.op, t.bytes.len(), (bits / 8.0).ceil() as usize);
        }
    }
    figures(tally, None)
}

/// Runs every peer on `args.paths`.
pub fn report(args: &PeersArgs) -> Result<Report> {
    let (inputs, tensors) = load_inputs(&args.paths)?;
    let mut rows = Vec::new();
    let mut row = |codec: &str, granularity: &str, note: &str, per: [Figures; 2]| {
        let [bf16, fp32] = per;
        rows.push(Row { codec: codec.into(), granularity: granularity.into(), note: note.into(), bf16, fp32 });
    };
    let each = |run: &mut dyn FnMut(Format) -> Result<Figures>| -> Result<[Figures; 2]> { Ok([run(Format::Bf16)?, run(Format::Fp32)?]) };
    let chunk_4k = "4 KB chunk";
    let whole = "whole tensor";

    row("PlaneZip", chunk_4k, "engine::fast", each(&mut |f| measure("PlaneZip", &inputs, f, &mut PlaneZip))?);
    for (tag, name) in [(Tag::Zvc, "ZVC (cDMA)"), (Tag::Dbx, "DBX (BPC)"), (Tag::Bx, "BX"), (Tag::Zbx, "ZBX")] {
        row(name, chunk_4k, "golden codec, block by block", each(&mut |f| measure_single(&inputs, f, tag))?);
    }
    for &level in &args.zstd_levels {
        for (gran, chunk) in [(chunk_4k, Some(CHUNK_BYTES)), (whole, None)] {
            let name = format!("zstd-{level}");
            let per = each(&mut |f| measure(&name, &inputs, f, &mut Chunked { frame: Zstd::new(level)?, chunk, layout: Layout::Plain }))?;
            row(&name, gran, "", per);
        }
    }
    for (gran, chunk) in [(chunk_4k, Some(CHUNK_BYTES)), (whole, None)] {
        row("lz4", gran, "lz4_flex", each(&mut |f| measure("lz4", &inputs, f, &mut Chunked { frame: Lz4, chunk, layout: Layout::Plain }))?);
    }
    let shuffle_level = 3;
    for (layout, prefix) in [(Layout::Shuffle, "shuffle"), (Layout::Split, "byte-split")] {
        let name = format!("{prefix} + zstd-{shuffle_level}");
        let per = each(&mut |f| measure(&name, &inputs, f, &mut Chunked { frame: Zstd::new(shuffle_level)?, chunk: Some(CHUNK_BYTES), layout }))?;
        row(&name, chunk_4k, "", per);
        let name = format!("{prefix} + lz4");
        let per = each(&mut |f| measure(&name, &inputs, f, &mut Chunked { frame: Lz4, chunk: Some(CHUNK_BYTES), layout }))?;
        row(&name, chunk_4k, "lz4_flex", per);
    }
    for (gran, chunk) in [(chunk_4k, Some(CHUNK_BYTES)), (whole, None)] {
        let per = each(&mut |f| measure("exponent grouping", &inputs, f, &mut ExponentGrouping { chunk }))?;
        row("ZipNN-style exponent grouping + ANS", gran, "by hand + constriction ANS", per);
    }
    row("BDI", "128 B block", "by hand", each(&mut |f| measure("BDI", &inputs, f, &mut Bdi))?);
    row("order-0 entropy of symbols", whole, "ceiling, no coder", [measure_entropy(&inputs, Format::Bf16, false), measure_entropy(&inputs, Format::Fp32, false)]);
    row("order-0 entropy of the exponent (rest raw)", whole, "ceiling, no coder", [measure_entropy(&inputs, Format::Bf16, true), measure_entropy(&inputs, Format::Fp32, true)]);

    let zipnn_package = match &args.zipnn_json {
        None => "not run (the zipnn Python package is not part of the Rust build; see sim-harness/zipnn/ and BENCHMARKS.md)".to_string(),
        Some(file) => {
            let (package, zipnn_rows) = zipnn_rows(file)?;
            rows.extend(zipnn_rows);
            format!("{package}, measured on this machine by sim-harness/zipnn/zipnn_peer.py ({}): rows \"ZipNN package\"", file.display())
        }
    };
    let models = inputs.iter().map(|(m, t)| (m.clone(), t[1].iter().map(|i| i.bytes.len()).sum())).collect();
    Ok(Report { models, tensors, rows, zipnn_package })
}

/// The rows of a `zipnn_peer.py` result file, and the package it names.
fn zipnn_rows(file: &Path) -> Result<(String, Vec<Row>)> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading the ZipNN figures {}", file.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", file.display()))?;
    let bad = |what: &str| anyhow::anyhow!("{}: {what} missing or malformed (expected zipnn_peer.py's output)", file.display());
    let package = v["package"].as_str().ok_or_else(|| bad("\"package\""))?.to_string();
    let grans = v["granularities"].as_object().ok_or_else(|| bad("\"granularities\""))?;
    let mut rows = Vec::new();
    for (gran, per) in grans {
        let figures = |fmt: &str| -> Result<Figures> {
            let f = &per[fmt];
            let num = |k: &str| f[k].as_f64().ok_or_else(|| bad(&format!("{gran}.{fmt}.{k}")));
            let ratio_by_model = f["ratio_per_model"]
                .as_object()
                .ok_or_else(|| bad(&format!("{gran}.{fmt}.ratio_per_model")))?
                .iter()
                .map(|(m, r)| r.as_f64().map(|r| (m.clone(), r)).ok_or_else(|| bad(&format!("{gran}.{fmt}.ratio_per_model.{m}"))))
                .collect::<Result<_>>()?;
            Ok(Figures {
                ratio_by_model,
                ratio_by_operator: BTreeMap::new(),
                geomean_paper: f["geomean_paper"].as_f64(),
                geomean_all: Some(num("geomean_all")?),
                compress_gbps: Some(num("compress_gbps")?),
                decompress_gbps: Some(num("decompress_gbps")?),
            })
        };
        rows.push(Row { codec: format!("ZipNN package ({package})"), granularity: gran.clone(), note: "measured here: Python, one thread, process CPU time of one call per model with the package's own chunking at the granularity (zipnn_peer.py)".into(), bf16: figures("bf16")?, fp32: figures("fp32")? });
    }
    Ok((package, rows))
}

fn cell(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.3}"))
}

/// The report as a text table.
pub fn table(r: &Report) -> String {
    let mut s = format!("{} tensors from models {:?}; ratio = raw bytes / wire bytes, geomean over models; GB/s = 10^9 raw bytes per second of thread CPU time, one core\n", r.tensors, r.models.keys().collect::<Vec<_>>());
    s += &format!("{:<44} {:<13} {:>9} {:>9} {:>9} {:>9} {:>17} {:>17}\n", "codec", "granularity", "bf16 pap", "bf16 all", "fp32 pap", "fp32 all", "comp bf16/fp32", "decomp bf16/fp32");
    for row in &r.rows {
        s += &format!(
            "{:<44} {:<13} {:>9} {:>9} {:>9} {:>9} {:>8}/{:<8} {:>8}/{:<8}\n",
            row.codec,
            row.granularity,
            cell(row.bf16.geomean_paper),
            cell(row.bf16.geomean_all),
            cell(row.fp32.geomean_paper),
            cell(row.fp32.geomean_all),
            cell(row.bf16.compress_gbps),
            cell(row.fp32.compress_gbps),
            cell(row.bf16.decompress_gbps),
            cell(row.fp32.decompress_gbps),
        );
    }
    s += &format!("ZipNN package: {}\n", r.zipnn_package);
    s
}

/// `sim-harness peers`.
pub fn run(args: &PeersArgs) -> Result<()> {
    let r = report(args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", table(&r));
    }
    Ok(())
}
