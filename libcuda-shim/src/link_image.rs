//! The link image: what `cuLinkComplete` hands back as its "cubin" (and the NVRTC/nvJitLink
//! interposer for a cubin request). Not a cubin, since nothing is compiled, but a
//! self-contained image holding the inputs' PTX, which `cuModuleLoadData`,
//! `cuModuleLoadDataEx` and `cuLibraryLoadData` accept (they link it again; linking is cheap).
//! It has no pointers, so it may be saved to a file and loaded later (`cuModuleLoad`). Layout,
//! little-endian: the 8 bytes `LCSHLINK`, u32 format version 1, u32 sm of the PTX, u32 input
//! count, u32 register limit per thread (`CU_JIT_MAX_REGISTERS` of the link, 0 for none); then
//! per input u32 name length, u32 PTX length, the name, the PTX (neither NUL-terminated).
//!
//! The format alone lives here, below module loading (which reads it) and the linker (which
//! writes it).

use std::ffi::c_void;

const IMAGE_MAGIC: &[u8; 8] = b"LCSHLINK";
/// The first 4 bytes of [`IMAGE_MAGIC`] as a little-endian word (how loaders dispatch).
pub(crate) const IMAGE_MAGIC_WORD: u32 = u32::from_le_bytes(*b"LCSH");
const IMAGE_VERSION: u32 = 1;
const IMAGE_HEADER: usize = 24;

/// A link image holding `inputs` (PTX, name) for `sm`.
pub(crate) fn encode(inputs: &[(String, String)], sm: u32, max_registers: Option<u32>) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(IMAGE_MAGIC);
    let regs = max_registers.unwrap_or(0);
    for w in [IMAGE_VERSION, sm, inputs.len() as u32, regs] {
        v.extend_from_slice(&w.to_le_bytes());
    }
    for (ptx, name) in inputs {
        v.extend_from_slice(&(name.len() as u32).to_le_bytes());
        v.extend_from_slice(&(ptx.len() as u32).to_le_bytes());
        v.extend_from_slice(name.as_bytes());
        v.extend_from_slice(ptx.as_bytes());
    }
    v
}

/// The register limit a link image's kernels were linked under.
///
/// # Safety
/// `image` must point to a whole link image.
pub(crate) unsafe fn max_registers(image: *const c_void) -> Option<u32> {
    // SAFETY: the header is whole (caller's contract).
    let w = unsafe { std::slice::from_raw_parts((image as *const u8).add(20), 4) };
    Some(u32::from_le_bytes(w.try_into().unwrap())).filter(|&r| r > 0)
}

/// Reads a link image: its inputs and the sm of its PTX.
///
/// # Safety
/// `image` must point to a whole link image (its lengths say how far it extends).
pub(crate) unsafe fn decode(image: *const c_void) -> Result<(Vec<(String, String)>, u32), String> {
    let at = |off: usize, len: usize| {
        // SAFETY: within the image, as its header and length fields say (caller's contract).
        unsafe { std::slice::from_raw_parts((image as *const u8).add(off), len) }
    };
    let word = |off: usize| u32::from_le_bytes(at(off, 4).try_into().unwrap());
    if at(0, 8) != IMAGE_MAGIC {
        return Err("bad magic".into());
    }
    if word(8) != IMAGE_VERSION {
        return Err(format!("unknown format version {}", word(8)));
    }
    let (sm, count) = (word(12), word(16));
    let mut off = IMAGE_HEADER;
    let mut inputs = Vec::new();
    for _ in 0..count {
        let (nl, pl) = (word(off) as usize, word(off + 4) as usize);
        off += 8;
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).map_err(|_| "not UTF-8".to_string());
        let name = text(at(off, nl))?;
        let ptx = text(at(off + nl, pl))?;
        off += nl + pl;
        inputs.push((ptx, name));
    }
    Ok((inputs, sm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_images_round_trip() {
        let inputs = vec![
            ("ptx one".to_string(), "a.ptx".to_string()),
            (String::new(), "empty".to_string()),
        ];
        let img = encode(&inputs, 80, Some(40));
        assert_eq!(
            u32::from_le_bytes(img[..4].try_into().unwrap()),
            IMAGE_MAGIC_WORD
        );
        // SAFETY: a whole image.
        let (back, sm) = unsafe { decode(img.as_ptr() as *const c_void) }.unwrap();
        assert_eq!((back, sm), (inputs, 80));
        // SAFETY: a whole image.
        let regs = unsafe { max_registers(img.as_ptr() as *const c_void) };
        assert_eq!(regs, Some(40));
    }
}
