//! One 128-byte block (FORMAT.md §4): the four codes, raw, and the choice between them.
//!
//! A block goes on the wire as a 3-bit [`Tag`] followed by its payload. The encoder computes the
//! payload size of every code with the [size model](crate::golden::size), keeps the smallest
//! (ties: lowest tag; raw only if strictly smaller than every code) and writes that code's bits.

pub mod bx;
pub mod dbx;
pub mod planes;
pub mod zbx;
pub mod zvc;

use super::bits::{BitReader, BitWriter};
use planes::{PlaneCase, classify_planes};
use super::error::DecodeError;
use super::size::block_sizes;
use super::width::{BLOCK_BYTES, MAX_SYMBOLS, SymbolWidth};

/// Bits of the block tag.
pub const TAG_BITS: u32 = 3;
/// Payload bits of a raw block.
pub const RAW_BITS: u32 = (BLOCK_BYTES * 8) as u32;

/// The 3-bit tag in front of every block; its value is also the tie-break order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum Tag {
    /// Zero-value compression, tag `000`.
    Zvc = 0,
    /// Delta bit-plane XOR (BPC), tag `001`.
    Dbx = 1,
    /// Bit-plane XOR without delta, tag `010`.
    Bx = 2,
    /// Zero mask + BX over the compacted nonzeros, tag `011`.
    Zbx = 3,
    /// The 128 bytes verbatim, tag `100`.
    Raw = 4,
}

impl Tag {
    /// All five tags in tie-break order.
    pub const ALL: [Tag; 5] = [Tag::Zvc, Tag::Dbx, Tag::Bx, Tag::Zbx, Tag::Raw];
    /// The four compressing codes in tie-break order.
    pub const CODES: [Tag; 4] = [Tag::Zvc, Tag::Dbx, Tag::Bx, Tag::Zbx];

    /// Parses a 3-bit tag value; 5, 6 and 7 are reserved.
    pub fn from_bits(v: u32) -> Result<Tag, DecodeError> {
        match v {
            0 => Ok(Tag::Zvc),
            1 => Ok(Tag::Dbx),
            2 => Ok(Tag::Bx),
            3 => Ok(Tag::Zbx),
            4 => Ok(Tag::Raw),
            _ => Err(DecodeError::ReservedTag { tag: v as u8 }),
        }
    }

    /// Short upper-case name (`"ZVC"`, …) as used in reports and test vectors.
    pub fn name(self) -> &'static str {
        match self {
            Tag::Zvc => "ZVC",
            Tag::Dbx => "DBX",
            Tag::Bx => "BX",
            Tag::Zbx => "ZBX",
            Tag::Raw => "RAW",
        }
    }
}

/// A block's encoding without its tag: what the HDL lane emits as (tag, length, payload).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockEncoding {
    /// The code used.
    pub tag: Tag,
    /// Payload length in bits (the tag's 3 bits not included).
    pub payload_bits: u32,
    /// Payload bits MSB-first, zero-padded to whole bytes.
    pub payload: Vec<u8>,
}

/// Encodes one block with the code the format chooses (smallest payload, ties to the lowest tag).
pub fn encode_block(block: &[u8; BLOCK_BYTES], width: SymbolWidth) -> BlockEncoding {
    encode_block_with(block, width, block_sizes(block, width).choice().0)
}

/// Encodes one block with a given code, whether or not the format would choose it.
pub fn encode_block_with(block: &[u8; BLOCK_BYTES], width: SymbolWidth, tag: Tag) -> BlockEncoding {
    let mut w = BitWriter::new();
    write_payload(&mut w, block, width, tag);
    let payload_bits = w.len_bits() as u32;
    BlockEncoding { tag, payload_bits, payload: w.into_bytes() }
}

/// Appends tag + payload of the chosen code to `w` and returns the tag (used by the chunk packer).
pub fn write_block(w: &mut BitWriter, block: &[u8; BLOCK_BYTES], width: SymbolWidth) -> Tag {
    let tag = block_sizes(block, width).choice().0;
    w.put(tag as u32, TAG_BITS);
    write_payload(w, block, width, tag);
    tag
}

fn write_payload(w: &mut BitWriter, block: &[u8; BLOCK_BYTES], width: SymbolWidth, tag: Tag) {
    let mut syms = [0u32; MAX_SYMBOLS];
    width.load(block, &mut syms);
    let syms = &syms[..width.symbols()];
    match tag {
        Tag::Zvc => zvc::encode(w, syms, width),
        Tag::Dbx => dbx::encode(w, syms, width),
        Tag::Bx => bx::encode(w, syms, width),
        Tag::Zbx => zbx::encode(w, syms, width),
        Tag::Raw => {
            for &b in block {
                w.put(b as u32, 8);
            }
        }
    }
}

/// How each plane of `tag`'s encoding of `block` is coded, top plane first (empty for ZVC, raw,
/// and ZBX of an all-zero block). Used to check that test vectors cover every prefix-code case.
pub fn plane_cases(block: &[u8; BLOCK_BYTES], width: SymbolWidth, tag: Tag) -> Vec<PlaneCase> {
    let mut syms = [0u32; MAX_SYMBOLS];
    width.load(block, &mut syms);
    let syms = &syms[..width.symbols()];
    let planes = match tag {
        Tag::Dbx => Some(dbx::planes(syms, width)),
        Tag::Bx => Some(bx::planes(syms, width)),
        Tag::Zbx => zbx::planes(syms, width),
        Tag::Zvc | Tag::Raw => None,
    };
    let mut cases = Vec::new();
    if let Some((p, geo)) = planes {
        classify_planes(&p, geo, |case, _| cases.push(case));
    }
    cases
}

/// Decodes one block (tag + payload) from `r`.
pub fn read_block(r: &mut BitReader, width: SymbolWidth) -> Result<[u8; BLOCK_BYTES], DecodeError> {
    let tag = Tag::from_bits(r.get(TAG_BITS)?)?;
    read_payload(r, width, tag)
}

/// Decodes a tag-less block payload (as in [`BlockEncoding`]).
pub fn decode_block(enc: &BlockEncoding, width: SymbolWidth) -> Result<[u8; BLOCK_BYTES], DecodeError> {
    let mut r = BitReader::with_len(&enc.payload, enc.payload_bits as usize);
    let block = read_payload(&mut r, width, enc.tag)?;
    if r.remaining_bits() != 0 {
        return Err(DecodeError::SizeMismatch { chunk: 0, header: enc.payload.len(), used_bits: r.pos_bits() });
    }
    Ok(block)
}

fn read_payload(r: &mut BitReader, width: SymbolWidth, tag: Tag) -> Result<[u8; BLOCK_BYTES], DecodeError> {
    let mut block = [0u8; BLOCK_BYTES];
    if tag == Tag::Raw {
        for b in block.iter_mut() {
            *b = r.get(8)? as u8;
        }
        return Ok(block);
    }
    let mut syms = [0u32; MAX_SYMBOLS];
    let syms = &mut syms[..width.symbols()];
    match tag {
        Tag::Zvc => zvc::decode(r, width, syms)?,
        Tag::Dbx => dbx::decode(r, width, syms)?,
        Tag::Bx => bx::decode(r, width, syms)?,
        Tag::Zbx => zbx::decode(r, width, syms)?,
        Tag::Raw => unreachable!("handled above"),
    }
    width.store(syms, &mut block);
    Ok(block)
}
