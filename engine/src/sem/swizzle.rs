//! The shared-memory swizzles of tensor copies and warpgroup matrix operands (ISA 5.5.7,
//! 9.7.15.5.1): 16-, 32- or 64-byte units of a 32-, 64- or 128-byte span exchanged by the index
//! of the 128-byte row they are in; the 96-byte swizzle exchanges 16-byte units as the 32-byte
//! one does.

/// Where byte `addr` of a shared-memory box lands under a swizzle mode (ISA 5.5.7): the index
/// of the `atom`-byte unit inside its span, XORed with the index of the 128-byte row the
/// address is in, for spans of 32, 64 and 128 bytes (`mode` 1, 2, 3). The pattern follows the
/// address's own bits, so the buffer must be aligned as the ISA asks (256, 512, 1024 bytes).
/// The 96-byte swizzle (`mode` 4, 16-byte units only) is the 32-byte one's pattern under rows
/// of up to 96 bytes: figure 31 packs the box's 96-byte rows back to back and swaps the 16-byte
/// units of every odd 128-byte line in pairs, whose base offset the ISA gives as the 32-byte
/// swizzle's, `(dstMem / 128) % 2`.
/// `atomicity` 0 keeps 16-byte units, 1 and 2 32-byte units (2 also swaps the 8-byte halves
/// of each 16 bytes in odd rows), 3 64-byte units.
pub fn swizzle(addr: u64, mode: u8, atomicity: u8) -> u64 {
    let span_bits = match mode {
        1 | 4 => 5,
        2 => 6,
        3 => 7,
        _ => return addr,
    };
    let atom_bits = match atomicity {
        1 | 2 => 5,
        3 => 6,
        _ => 4,
    };
    if atom_bits >= span_bits {
        return addr;
    }
    let n = span_bits - atom_bits;
    let row = (addr >> 7) & ((1 << n) - 1);
    let mut a = addr ^ (row << atom_bits);
    if atomicity == 2 && (addr >> 7) & 1 == 1 {
        a ^= 8;
    }
    a
}
