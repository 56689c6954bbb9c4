//! The shared test vectors (`engine/tests/vectors/w16.txt`, `w32.txt`; format in FORMAT.md §11):
//! the corner-case blocks, one text line per block, readable both by Rust tests and by Verilog
//! testbenches with `$readmemh` (every field is hex, `//` starts a comment).
//!
//! Regenerate with `cargo run -p engine --example gen_vectors`.

use crate::golden::block::planes::{PlaneGeometry, from_planes};
use crate::golden::block::{BlockEncoding, Tag, bx, dbx, encode_block};
use crate::golden::{BLOCK_BYTES, BlockSizes, SymbolWidth, block_sizes};
use crate::synth::{Family, activation_block, family_block};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Corner-case blocks generated per width (the worked examples of FORMAT.md come on top).
pub const CORNER_BLOCKS: usize = 2000;

/// One line of a vector file: a block and its golden encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vector {
    /// Symbol width the block is coded with.
    pub width: SymbolWidth,
    /// The 128 input bytes, in memory order.
    pub input: [u8; BLOCK_BYTES],
    /// Payload bits of ZVC, DBX, BX and ZBX (tag excluded).
    pub sizes: BlockSizes,
    /// The chosen code and its payload.
    pub encoding: BlockEncoding,
}

impl Vector {
    /// The golden encoder's vector for `input`.
    pub fn of(input: [u8; BLOCK_BYTES], width: SymbolWidth) -> Vector {
        Vector { width, input, sizes: block_sizes(&input, width), encoding: encode_block(&input, width) }
    }

    /// The file line: `WW INPUT T ZVC DBX BX ZBX RAW LEN PAYLOAD`, all hex (FORMAT.md §11).
    pub fn to_line(&self) -> String {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let digits = (self.encoding.payload_bits as usize).div_ceil(4);
        let payload_hex: String = hex(&self.encoding.payload).chars().take(digits).collect();
        format!(
            "{:02x} {} {:x} {:03x} {:03x} {:03x} {:03x} {:03x} {:03x} {}",
            self.width.bits(),
            hex(&self.input),
            self.encoding.tag as u8,
            self.sizes.zvc,
            self.sizes.dbx,
            self.sizes.bx,
            self.sizes.zbx,
            self.sizes.get(Tag::Raw),
            self.encoding.payload_bits,
            payload_hex
        )
    }

    /// Parses a line written by [`Vector::to_line`] (the stored, expected values — not recomputed).
    pub fn parse(line: &str) -> Result<Vector, String> {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 10 {
            return Err(format!("expected 10 fields, found {}", f.len()));
        }
        let num = |s: &str| u32::from_str_radix(s, 16).map_err(|e| format!("bad hex field {s:?}: {e}"));
        let width = SymbolWidth::from_bits(num(f[0])?).ok_or_else(|| format!("bad width {}", f[0]))?;
        let input: [u8; BLOCK_BYTES] = unhex(f[1])?.try_into().map_err(|_| "input must be 128 bytes".to_string())?;
        let tag = Tag::from_bits(num(f[2])?).map_err(|e| e.to_string())?;
        let sizes = BlockSizes { zvc: num(f[3])?, dbx: num(f[4])?, bx: num(f[5])?, zbx: num(f[6])? };
        if num(f[7])? != 1024 {
            return Err("raw size must be 400 (1024 bits)".into());
        }
        let payload_bits = num(f[8])?;
        if f[9].len() != (payload_bits as usize).div_ceil(4) {
            return Err(format!("payload has {} hex digits, length {payload_bits} bits needs {}", f[9].len(), payload_bits.div_ceil(4)));
        }
        let mut digits = f[9].to_string();
        if digits.len() % 2 == 1 {
            digits.push('0');
        }
        Ok(Vector { width, input, sizes, encoding: BlockEncoding { tag, payload_bits, payload: unhex(&digits)? } })
    }
}

/// Parses a hex string into bytes.
pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd number of hex digits in {s:?}"));
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("bad hex {s:?}: {e}"))).collect()
}

/// Reads every vector of a vector file (comments and blank lines skipped).
pub fn parse_file(text: &str) -> Result<Vec<Vector>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
        .map(|(i, l)| Vector::parse(l).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

/// The corner-case blocks of one width, deterministic: constant blocks, a single nonzero symbol
/// and byte at each position, ReLU-like interleaved zeros, integer and float ramps, shared
/// exponents, alternating signs, ±0, NaN/Inf, subnormals, max/min finite, blocks built plane by
/// plane so every prefix-code case occurs in DBX, BX and ZBX, and random activation-like blocks.
pub fn corner_blocks(width: SymbolWidth) -> Vec<[u8; BLOCK_BYTES]> {
    let mut rng = ChaCha8Rng::seed_from_u64(0xC0DE_0000 + width.bits() as u64);
    let n = width.symbols();
    let w = width.bits();
    let mask = width.mask();
    let mut out: Vec<[u8; BLOCK_BYTES]> = Vec::new();
    let mut push = |syms: &[u32]| {
        let mut b = [0u8; BLOCK_BYTES];
        width.store(syms, &mut b);
        out.push(b);
    };
    let one = if w == 16 { 0x3F80 } else { 0x3F80_0000 };
    let sign = 1u32 << (w - 1);
    let float = |x: f32| if w == 16 { half::bf16::from_f32(x).to_bits() as u32 } else { x.to_bits() };

    for v in [0, mask, 0x0101_0101 & mask, 1, one, sign, mask >> 1] {
        push(&vec![v; n]);
    }
    for i in 0..n {
        for v in [1, mask, sign, one, 0x5A5A_5A5A & mask] {
            let mut s = vec![0; n];
            s[i] = v;
            push(&s);
        }
    }
    for byte in 0..BLOCK_BYTES {
        let mut b = [0u8; BLOCK_BYTES];
        b[byte] = 0x80;
        let mut s = [0u32; 64];
        width.load(&b, &mut s);
        push(&s[..n]);
    }
    for stride in 2..=8 {
        for phase in 0..stride.min(3) {
            let s: Vec<u32> = (0..n).map(|i| if i % stride == phase { float(1.0 + rng.gen_range(0.0..0.5)) } else { 0 }).collect();
            push(&s);
        }
    }
    for _ in 0..40 {
        let keep = rng.gen_range(0.1..0.9);
        let s: Vec<u32> = (0..n).map(|_| if rng.gen_bool(keep) { float(rng.gen_range(0.5..2.0)) } else { 0 }).collect();
        push(&s);
    }
    for b in [-3i64, -2, -1, 1, 2, 3, 7, 8, 127, 128, -129, 40_000, -70_000] {
        for a in [0i64, 5, mask as i64 - 4, sign as i64, rng.gen_range(0..=mask as i64)] {
            let s: Vec<u32> = (0..n as i64).map(|i| (a + b * i).rem_euclid(mask as i64 + 1) as u32).collect();
            push(&s);
        }
    }
    for _ in 0..50 {
        let (a, b) = (rng.gen_range(-10.0..10.0f32), rng.gen_range(-0.1..0.1f32));
        let s: Vec<u32> = (0..n).map(|i| float(a + b * i as f32)).collect();
        push(&s);
    }
    for _ in 0..60 {
        let fam = [Family::SharedExponent, Family::AlternatingSigns, Family::Specials][rng.gen_range(0..3)];
        let b = family_block(&mut rng, width, fam);
        let mut s = [0u32; 64];
        width.load(&b, &mut s);
        push(&s[..n]);
    }
    // ±0, NaN/Inf, subnormals, max/min finite, as symbol patterns of this width.
    let (pinf, nan, maxf, minsub) = if w == 16 { (0x7F80, 0x7FC1, 0x7F7F, 0x0001) } else { (0x7F80_0000, 0x7FC0_0001, 0x7F7F_FFFF, 0x0000_0001) };
    let specials = [0, sign, pinf, pinf | sign, nan, nan | sign, maxf, maxf | sign, minsub, minsub | sign, minsub + 7, mask];
    for _ in 0..120 {
        let k = rng.gen_range(1..=4);
        let pick: Vec<u32> = (0..k).map(|_| specials[rng.gen_range(0..specials.len())]).collect();
        let s: Vec<u32> = (0..n).map(|i| if rng.gen_bool(0.7) { pick[i % k] } else { pick[rng.gen_range(0..k)] }).collect();
        push(&s);
    }
    for _ in 0..20 {
        let s: Vec<u32> = (0..n).map(|_| rng.r#gen::<u32>() & mask).collect();
        push(&s);
    }

    plane_targeted(width, &mut rng, &mut push);

    while out.len() < CORNER_BLOCKS {
        out.push(activation_block(&mut rng, width));
    }
    out
}

/// XORed planes (top plane first) → pre-XOR planes `p[0..P]`.
fn unxor(dbx_top_first: &[u64]) -> Vec<u64> {
    let mut p = vec![0u64; dbx_top_first.len()];
    let mut above = 0;
    for (i, &x) in dbx_top_first.iter().enumerate() {
        above ^= x;
        p[dbx_top_first.len() - 1 - i] = above;
    }
    p
}

/// XORed-plane patterns (top first) that put every prefix-code case at many planes and positions.
fn plane_patterns(geo: PlaneGeometry, rng: &mut ChaCha8Rng) -> Vec<Vec<u64>> {
    let (pl, l) = (geo.planes as usize, geo.plane_bits);
    let ones = geo.ones();
    let rand_plane = |rng: &mut ChaCha8Rng| rng.r#gen::<u64>() & ones;
    let mut pats = Vec::new();
    // Zero runs of every length k, framed by nonzero planes.
    for k in 1..=pl {
        for start in [0, pl - k] {
            let mut d: Vec<u64> = (0..pl).map(|_| rand_plane(rng) | 1).collect();
            d[start..start + k].fill(0);
            pats.push(d);
        }
    }
    // One one and two adjacent ones at every position, on a few planes.
    for pos in 0..l {
        for (j, x) in [(1usize, 1u64 << pos), (pl / 2, 1u64 << pos), (pl - 2, 3u64.checked_shl(pos).unwrap_or(0) & ones)] {
            if x.count_ones() >= 1 {
                let mut d = vec![0u64; pl];
                d[j] = x;
                d[0] = rand_plane(rng);
                pats.push(d);
            }
        }
    }
    // All-ones planes and DBP = 0 planes (XORed plane equal to the plane above).
    for j in 1..pl {
        let mut d = vec![0u64; pl];
        d[j] = ones;
        pats.push(d);
        let mut d = vec![0u64; pl];
        d[j - 1] = rand_plane(rng) | 1;
        d[j] = d[j - 1];
        pats.push(d);
    }
    // Dense random planes (verbatim).
    for _ in 0..8 {
        pats.push((0..pl).map(|_| rand_plane(rng)).collect());
    }
    pats
}

fn plane_targeted(width: SymbolWidth, rng: &mut ChaCha8Rng, push: &mut impl FnMut(&[u32])) {
    let n = width.symbols();
    let w = width.bits() as usize;
    // BX: the planes of the symbols themselves.
    for d in plane_patterns(bx::geometry(width, n), rng) {
        let mut s = vec![0u32; n];
        from_planes(&unxor(&d), width, &mut s);
        push(&s);
    }
    // DBX: planes of the deltas; keep the blocks whose deltas stay in the symbol range.
    for d in plane_patterns(dbx::geometry(width), rng) {
        let p = unxor(&d);
        let mut low = vec![0u32; n - 1];
        from_planes(&p, width, &mut low);
        let borrow = p[w];
        let mut walk = vec![0i64];
        for k in 1..n {
            let b = (borrow >> (n - 1 - k)) & 1;
            walk.push(walk[k - 1] + low[k - 1] as i64 - ((b as i64) << w));
        }
        let (lo, hi) = (*walk.iter().min().unwrap(), *walk.iter().max().unwrap());
        if hi - lo <= width.mask() as i64 {
            let s: Vec<u32> = walk.iter().map(|v| (v - lo) as u32).collect();
            push(&s);
        }
    }
    // ZBX: planes of n compacted nonzeros, scattered over random positions.
    for count in [1usize, 2, 3, 5, 9, n / 2 + 1, n - 1] {
        for d in plane_patterns(bx::geometry(width, count), rng) {
            let mut packed = vec![0u32; count];
            from_planes(&unxor(&d), width, &mut packed);
            if packed.contains(&0) {
                continue;
            }
            let mut positions: Vec<usize> = (0..n).collect();
            for i in 0..count {
                let j = rng.gen_range(i..n);
                positions.swap(i, j);
            }
            let mut chosen = positions[..count].to_vec();
            chosen.sort();
            let mut s = vec![0u32; n];
            for (v, &at) in packed.iter().zip(&chosen) {
                s[at] = *v;
            }
            push(&s);
        }
    }
}
