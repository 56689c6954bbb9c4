//! The one beat packer of the hardware: bytes as 32-byte beats of eight little-endian words (the
//! data bus of every exported top), and the `$readmemh` text layout of such a beat, used by the
//! rust-hdl drivers, the Verilator drivers and the Icarus testbenches alike.

/// Bytes per beat of the 256-bit data bus.
pub const BEAT_BYTES: usize = 32;

/// 32-bit words per beat.
pub const BEAT_WORDS: usize = BEAT_BYTES / 4;

/// Packs `bytes` into beats: word `k` of a beat holds its bytes `4k..4k+3`, little-endian; the
/// last beat is zero-padded. No beat for empty `bytes`.
pub fn beat_words(bytes: &[u8]) -> Vec<[u32; BEAT_WORDS]> {
    bytes
        .chunks(BEAT_BYTES)
        .map(|c| {
            let mut words = [0u32; BEAT_WORDS];
            for (w, quad) in words.iter_mut().zip(c.chunks(4)) {
                let mut le = [0u8; 4];
                le[..quad.len()].copy_from_slice(quad);
                *w = u32::from_le_bytes(le);
            }
            words
        })
        .collect()
}

/// One `$readmemh` line of a beat: `control` (hex digits of the fields above the data, most
/// significant first, as the testbench's memory declares them; may be empty) followed by the
/// eight words, word 7 first, 8 hex digits each, so that word `k` lands in bits `32k+31:32k`.
pub fn readmemh_line(control: &str, words: &[u32; BEAT_WORDS]) -> String {
    let mut line = String::with_capacity(control.len() + 8 * BEAT_WORDS + 1);
    line.push_str(control);
    for w in words.iter().rev() {
        line.push_str(&format!("{w:08x}"));
    }
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_little_endian_and_the_tail_zero_padded() {
        let bytes: Vec<u8> = (1..=37).collect();
        let beats = beat_words(&bytes);
        assert_eq!(beats.len(), 2);
        assert_eq!(beats[0][0], 0x0403_0201);
        assert_eq!(beats[0][7], 0x201f_1e1d);
        assert_eq!(beats[1], [0x2423_2221, 0x25, 0, 0, 0, 0, 0, 0]);
        assert!(beat_words(&[]).is_empty());
    }

    #[test]
    fn readmemh_puts_word_seven_first() {
        let line = readmemh_line("1f", &[0, 1, 2, 3, 4, 5, 6, 0xdead_beef]);
        assert_eq!(line, "1fdeadbeef000000060000000500000004000000030000000200000001".to_string() + "00000000\n");
    }
}
