//! Fatbin containers (see the contract): the host-side wrapper (magic 0x466243B1) that points to
//! a fatbin (0xBA55ED50) holding PTX and ELF entries, possibly compressed (zstd or raw LZ4
//! blocks). We pick the best PTX entry for the emulated device and return its text.

use std::fmt;

pub const WRAPPER_MAGIC: u32 = 0x466243B1;
pub const FATBIN_MAGIC: u32 = 0xBA55ED50;
pub const FATBIN_HEADER_BYTES: usize = 16;
pub const ENTRY_HEADER_BYTES: usize = 64;

pub const KIND_PTX: u16 = 1;
pub const KIND_ELF: u16 = 2;
pub const FLAG_LZ4: u64 = 0x2000;
pub const FLAG_ZSTD: u64 = 0x8000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FatbinError {
    /// Not a fatbin, or a truncated or inconsistent one (CUDA_ERROR_INVALID_IMAGE).
    Malformed(String),
    /// No PTX the device can run: the SASS targets present, the PTX targets present
    /// (CUDA_ERROR_NO_BINARY_FOR_GPU).
    NoPtx {
        sass: Vec<u32>,
        ptx: Vec<u32>,
        device_sm: u32,
    },
    /// A compression the driver cannot undo, or a corrupt payload (CUDA_ERROR_INVALID_IMAGE).
    Decompress(String),
}

impl fmt::Display for FatbinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FatbinError::Malformed(m) => write!(f, "malformed fatbin: {m}"),
            FatbinError::Decompress(m) => write!(f, "cannot decompress a fatbin entry: {m}"),
            FatbinError::NoPtx {
                sass,
                ptx,
                device_sm,
            } => {
                let list = |v: &Vec<u32>| {
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.iter()
                            .map(|s| format!("sm_{s}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                };
                write!(
                    f,
                    "no PTX for the emulated sm_{device_sm} device in this binary (SASS: {}; PTX: {}). \
                     libcuda-shim runs PTX only: rebuild with \
                     `-gencode arch=compute_XX,code=compute_XX` for an XX <= {device_sm} \
                     (e.g. `-gencode arch=compute_80,code=compute_80`)",
                    list(sass),
                    list(ptx)
                )?;
                if !ptx.is_empty() {
                    write!(
                        f,
                        "; its newer PTX is not run because CUDA_SHIM_STRICT_ARCH=1 asks for a \
                         GPU driver's refusal"
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// One entry of a fatbin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub kind: u16,
    pub sm: u32,
    /// `major << 16 | minor` for PTX.
    pub ptx_version: u32,
    pub flags: u64,
    pub compressed_size: u32,
    pub uncompressed_size: u64,
    pub payload: &'a [u8],
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

/// The total length (header + entries) of the fatbin starting at `header` (16 bytes).
pub fn fatbin_len(header: &[u8]) -> Result<usize, FatbinError> {
    if header.len() < FATBIN_HEADER_BYTES || u32_at(header, 0) != FATBIN_MAGIC {
        return Err(FatbinError::Malformed("bad fatbin magic".into()));
    }
    let hsize = u16_at(header, 6) as usize;
    let size = u64_at(header, 8) as usize;
    hsize
        .checked_add(size)
        .filter(|_| hsize >= FATBIN_HEADER_BYTES && size < (1 << 34))
        .ok_or_else(|| FatbinError::Malformed("implausible fatbin size".into()))
}

/// Parses the entries of a whole fatbin (header included).
pub fn parse(fatbin: &[u8]) -> Result<Vec<Entry<'_>>, FatbinError> {
    let total = fatbin_len(fatbin)?;
    if fatbin.len() < total {
        return Err(FatbinError::Malformed("truncated fatbin".into()));
    }
    let hsize = u16_at(fatbin, 6) as usize;
    let mut entries = Vec::new();
    let mut at = hsize;
    while at + ENTRY_HEADER_BYTES <= total {
        let e = &fatbin[at..total];
        let header_size = u32_at(e, 4) as usize;
        let payload_size = u64_at(e, 8) as usize;
        if header_size < ENTRY_HEADER_BYTES || header_size.saturating_add(payload_size) > e.len() {
            return Err(FatbinError::Malformed(format!(
                "entry at offset {at} overruns the fatbin"
            )));
        }
        entries.push(Entry {
            kind: u16_at(e, 0),
            compressed_size: u32_at(e, 16),
            ptx_version: u32_at(e, 24),
            sm: u32_at(e, 28),
            flags: u64_at(e, 40),
            uncompressed_size: u64_at(e, 56),
            payload: &e[header_size..header_size + payload_size],
        });
        at += header_size + payload_size;
    }
    Ok(entries)
}

/// The PTX entry with the highest sm <= the device's, as a GPU driver chooses; when there is
/// none and `allow_newer`, the PTX entry closest above the device (the one with the fewest
/// instructions the device may lack). A program built for a newer GPU carries SASS for it and
/// PTX only for its newest architecture (CuPy's prebuilt thrust/CUB library: SASS sm_75 to
/// sm_120, PTX compute_120), and SASS cannot run here; instructions of that PTX that the engine
/// does not implement are still refused at load, each named with its line.
pub fn select_ptx_policy<'a, 'b>(
    entries: &'b [Entry<'a>],
    device_sm: u32,
    allow_newer: bool,
) -> Result<&'b Entry<'a>, FatbinError> {
    let ptx = || entries.iter().filter(|e| e.kind == KIND_PTX);
    ptx()
        .filter(|e| e.sm <= device_sm)
        .max_by_key(|e| e.sm)
        .or_else(|| ptx().filter(|_| allow_newer).min_by_key(|e| e.sm))
        .ok_or_else(|| FatbinError::NoPtx {
            sass: entries
                .iter()
                .filter(|e| e.kind == KIND_ELF)
                .map(|e| e.sm)
                .collect(),
            ptx: entries
                .iter()
                .filter(|e| e.kind == KIND_PTX)
                .map(|e| e.sm)
                .collect(),
            device_sm,
        })
}

/// [`select_ptx_policy`] with newer PTX allowed unless `CUDA_SHIM_STRICT_ARCH=1` asks for the
/// real driver's refusal.
pub fn select_ptx<'a, 'b>(
    entries: &'b [Entry<'a>],
    device_sm: u32,
) -> Result<&'b Entry<'a>, FatbinError> {
    select_ptx_policy(entries, device_sm, !crate::config::strict_arch())
}

/// The entry's payload, decompressed, up to its first NUL (PTX text is NUL-terminated).
pub fn payload_bytes(e: &Entry<'_>) -> Result<Vec<u8>, FatbinError> {
    let mut data = payload_bytes_raw(e)?;
    if let Some(nul) = data.iter().position(|&b| b == 0) {
        data.truncate(nul);
    }
    Ok(data)
}

/// The PTX text for the device from a whole fatbin.
pub fn ptx_for_device(fatbin: &[u8], device_sm: u32) -> Result<(String, u32), FatbinError> {
    let entries = parse(fatbin)?;
    let e = select_ptx(&entries, device_sm)?;
    if e.sm > device_sm {
        crate::trace::trace!(
            "  no PTX for sm_{device_sm} or below in this fatbin: running its compute_{} PTX on \
             the emulated sm_{device_sm} device (CUDA_SHIM_STRICT_ARCH=1 refuses it, as a GPU \
             driver does)",
            e.sm
        );
    }
    let bytes = payload_bytes(e)?;
    // A byte that is not UTF-8 becomes U+FFFD, which the parser refuses as non-ASCII with its
    // line, as the driver refuses any non-ASCII byte of PTX.
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok((text, e.sm))
}

/// Whether a fatbin is NVIDIA's device runtime (`libcudadevrt.a`'s `cuda_device_runtime.o`):
/// `-rdc=true` programs and `nvcc -dlink` link it into every image, as SASS for each real
/// architecture and PTX for the newest one only. Its symbol names (in the ELF entries, which
/// are compressed) carry the translation unit's name, `cuda_device_runtime_cu`.
pub fn is_device_runtime(entries: &[Entry<'_>]) -> bool {
    const MARK: &[u8] = b"cuda_device_runtime_cu";
    entries
        .iter()
        .filter(|e| e.kind == KIND_ELF)
        .take(1)
        .any(|e| payload_bytes_raw(e).is_ok_and(|b| b.windows(MARK.len()).any(|w| w == MARK)))
}

/// The fatbins embedded in a host object or an archive of them (`.nv_fatbin` and
/// `__nv_relfatbin` sections): found by their magic and a consistent header.
pub fn embedded_fatbins(data: &[u8]) -> Vec<&[u8]> {
    let magic = FATBIN_MAGIC.to_le_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = data[at..].windows(4).position(|w| w == magic) {
        let start = at + i;
        let ok = fatbin_len(&data[start..])
            .ok()
            .filter(|&n| start + n <= data.len())
            .filter(|&n| parse(&data[start..start + n]).is_ok());
        match ok {
            Some(n) => {
                out.push(&data[start..start + n]);
                at = start + n.max(4);
            }
            None => at = start + 4,
        }
    }
    out
}

/// A fatbin holding one uncompressed PTX entry: the image libcuda-shim hands out where a
/// run-time compiler would return a SASS cubin (see `module::jit_compilers`). The entry's sm and PTX
/// version come from the text's `.target` and `.version` directives (sm 0 and version 0.0 when
/// they are missing; the loader then reads the text's own directives and reports any fault).
pub fn ptx_only(text: &str) -> Vec<u8> {
    let directive = |name: &str| {
        text.lines()
            .map(str::trim_start)
            .find_map(|l| l.strip_prefix(name))
            .map(|rest| rest.split_whitespace().next().unwrap_or("").to_string())
    };
    // `.target sm_90a, debug` -> 90; `.version 9.5` -> 9 << 16 | 5.
    let sm: u32 = directive(".target").map_or(0, |t| {
        let digits: String = t
            .trim_start_matches("sm_")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap_or(0)
    });
    let version: u32 = directive(".version").map_or(0, |v| {
        let (major, minor) = v.split_once('.').unwrap_or((&v, "0"));
        (major.parse::<u32>().unwrap_or(0) << 16) | minor.parse::<u32>().unwrap_or(0)
    });
    let mut payload = text.as_bytes().to_vec();
    payload.push(0);
    while !payload.len().is_multiple_of(8) {
        payload.push(0);
    }
    let mut entry = vec![0u8; ENTRY_HEADER_BYTES];
    entry[0..2].copy_from_slice(&KIND_PTX.to_le_bytes());
    entry[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
    entry[4..8].copy_from_slice(&(ENTRY_HEADER_BYTES as u32).to_le_bytes());
    entry[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    entry[24..28].copy_from_slice(&version.to_le_bytes());
    entry[28..32].copy_from_slice(&sm.to_le_bytes());
    // 64-bit addresses (0x1), Linux host (0x10), as nvcc's entries say.
    entry[40..48].copy_from_slice(&0x11u64.to_le_bytes());
    let mut f = Vec::with_capacity(FATBIN_HEADER_BYTES + entry.len() + payload.len());
    f.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
    f.extend_from_slice(&1u16.to_le_bytes());
    f.extend_from_slice(&(FATBIN_HEADER_BYTES as u16).to_le_bytes());
    f.extend_from_slice(&((entry.len() + payload.len()) as u64).to_le_bytes());
    f.extend_from_slice(&entry);
    f.extend_from_slice(&payload);
    f
}

/// The entry's payload, decompressed, whole (ELF images hold NULs).
fn payload_bytes_raw(e: &Entry<'_>) -> Result<Vec<u8>, FatbinError> {
    if e.flags & (FLAG_ZSTD | FLAG_LZ4) == 0 {
        return Ok(e.payload.to_vec());
    }
    let n = if e.compressed_size > 0 {
        (e.compressed_size as usize).min(e.payload.len())
    } else {
        e.payload.len()
    };
    let src = &e.payload[..n];
    let want = usize::try_from(e.uncompressed_size)
        .ok()
        .filter(|&w| w < (1 << 32))
        .ok_or_else(|| FatbinError::Decompress("implausible uncompressed size".into()))?;
    if e.flags & FLAG_ZSTD != 0 {
        zstd::bulk::decompress(src, want.max(1))
            .map_err(|err| FatbinError::Decompress(format!("zstd: {err}")))
    } else {
        lz4_flex::block::decompress(src, want)
            .map_err(|err| FatbinError::Decompress(format!("lz4: {err}")))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Builds a fatbin with the given entries: (kind, sm, flags, payload, uncompressed size).
    pub fn build(entries: &[(u16, u32, u64, Vec<u8>, u64)]) -> Vec<u8> {
        let mut body = Vec::new();
        for (kind, sm, flags, payload, usize_) in entries {
            let mut p = payload.clone();
            let compressed = if flags & (FLAG_LZ4 | FLAG_ZSTD) != 0 {
                p.len() as u32
            } else {
                0
            };
            while p.len() % 8 != 0 {
                p.push(0);
            }
            let mut h = vec![0u8; 64];
            h[0..2].copy_from_slice(&kind.to_le_bytes());
            h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
            h[4..8].copy_from_slice(&64u32.to_le_bytes());
            h[8..12].copy_from_slice(&(p.len() as u32).to_le_bytes());
            h[16..20].copy_from_slice(&compressed.to_le_bytes());
            h[24..28].copy_from_slice(&((8u32 << 16) | 5).to_le_bytes());
            h[28..32].copy_from_slice(&sm.to_le_bytes());
            h[40..48].copy_from_slice(&(flags | 0x11).to_le_bytes());
            h[56..64].copy_from_slice(&usize_.to_le_bytes());
            body.extend_from_slice(&h);
            body.extend_from_slice(&p);
        }
        let mut f = Vec::new();
        f.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        f.extend_from_slice(&1u16.to_le_bytes());
        f.extend_from_slice(&16u16.to_le_bytes());
        f.extend_from_slice(&(body.len() as u64).to_le_bytes());
        f.extend_from_slice(&body);
        f
    }

    const PTX: &str = ".version 8.5\n.target sm_80\n.address_size 64\n";

    fn nul(s: &str) -> Vec<u8> {
        let mut v = s.as_bytes().to_vec();
        v.push(0);
        v
    }

    #[test]
    fn picks_best_ptx_at_or_below_device() {
        let f = build(&[
            (KIND_ELF, 90, 0, vec![0x7f, b'E', b'L', b'F'], 0),
            (KIND_PTX, 75, 0, nul("sm75"), 0),
            (KIND_PTX, 86, 0, nul("sm86"), 0),
            (KIND_PTX, 100, 0, nul("sm100"), 0),
        ]);
        assert_eq!(ptx_for_device(&f, 90).unwrap(), ("sm86".to_string(), 86));
        assert_eq!(ptx_for_device(&f, 80).unwrap(), ("sm75".to_string(), 75));
        assert_eq!(ptx_for_device(&f, 100).unwrap().1, 100);
    }

    #[test]
    fn newer_ptx_runs_only_when_nothing_older_exists_and_not_in_strict_mode() {
        let f = build(&[
            (KIND_ELF, 90, 0, vec![0x7f, b'E', b'L', b'F'], 0),
            (KIND_PTX, 120, 0, nul("sm120"), 0),
            (KIND_PTX, 100, 0, nul("sm100"), 0),
        ]);
        let entries = parse(&f).unwrap();
        assert_eq!(select_ptx_policy(&entries, 90, true).unwrap().sm, 100);
        assert_eq!(select_ptx_policy(&entries, 110, true).unwrap().sm, 100);
        let err = select_ptx_policy(&entries, 90, false).unwrap_err();
        assert!(matches!(&err, FatbinError::NoPtx { ptx, .. } if ptx == &vec![120, 100]));
    }

    #[test]
    fn sass_only_is_no_binary_with_advice() {
        let f = build(&[(KIND_ELF, 75, 0, vec![1, 2, 3], 0)]);
        let err = ptx_for_device(&f, 90).unwrap_err();
        assert!(matches!(&err, FatbinError::NoPtx { sass, .. } if sass == &vec![75]));
        assert!(err.to_string().contains("-gencode arch=compute_"));
    }

    #[test]
    fn decompresses_zstd_and_lz4() {
        let z = zstd::bulk::compress(PTX.as_bytes(), 3).unwrap();
        let l = lz4_flex::block::compress(&nul(PTX));
        let f = build(&[
            (KIND_PTX, 80, FLAG_ZSTD, z, PTX.len() as u64),
            (KIND_PTX, 70, FLAG_LZ4, l, PTX.len() as u64 + 1),
        ]);
        let entries = parse(&f).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(payload_bytes(&entries[0]).unwrap(), PTX.as_bytes());
        assert_eq!(payload_bytes(&entries[1]).unwrap(), PTX.as_bytes());
    }

    #[test]
    fn ptx_only_fatbin_reads_back() {
        let text = "//\n.version 9.5\n.target sm_90a\n.address_size 64\n";
        let f = ptx_only(text);
        let entries = parse(&f).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!((entries[0].kind, entries[0].sm), (KIND_PTX, 90));
        assert_eq!(entries[0].ptx_version, (9 << 16) | 5);
        assert_eq!(ptx_for_device(&f, 90).unwrap(), (text.to_string(), 90));
        assert_eq!(fatbin_len(&f).unwrap(), f.len());
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse(b"not a fatbin at all").is_err());
        let mut f = build(&[(KIND_PTX, 80, 0, nul(PTX), 0)]);
        f.truncate(f.len() - 8);
        assert!(matches!(parse(&f), Err(FatbinError::Malformed(_))));
        let mut f = build(&[(KIND_PTX, 80, 0, nul(PTX), 0)]);
        f[16 + 8] = 0xff; // entry payload size overruns
        assert!(parse(&f).is_err());
    }
}
