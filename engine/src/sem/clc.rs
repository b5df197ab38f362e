//! The response of `clusterlaunchcontrol.try_cancel` (ISA 9.7.13.17), which the ISA leaves
//! opaque: 16 bytes that `clusterlaunchcontrol.query_cancel` (9.7.13.18) decodes after a
//! `ld.shared.b128`. Here they are four little-endian 32-bit words, the canceled cluster's
//! first CTA's `ctaid` x, y and z, then 1 when a cluster was canceled (0 when none was left to
//! cancel, the ctaid words then 0). `get_first_ctaid.v4` therefore unpacks the four words as
//! they are (its fourth element, unspecified in the ISA, is that flag), and in the `.b128`
//! register (two 64-bit halves, `lower::b128`) the flag is the high half's upper word.

/// The response to a request that canceled the cluster whose first CTA is `first`, or that
/// found none left (`None`).
pub fn response(first: Option<[u32; 3]>) -> [u8; 16] {
    let words = match first {
        Some([x, y, z]) => [x, y, z, 1],
        None => [0; 4],
    };
    let mut r = [0u8; 16];
    for (k, w) in words.iter().enumerate() {
        r[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    r
}

/// The high half of a `.b128` response is at least this when a cluster was canceled.
pub const CANCELED_HIGH: u64 = 1 << 32;
