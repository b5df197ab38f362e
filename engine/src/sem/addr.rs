//! The generic address encoding: where shared, local, cluster-shared and function addresses
//! sit in the 64-bit address space (what cvta, isspacep, mapa and function pointers compute).

/// Generic-address windows for shared and local memory: non-canonical on every 64-bit host, so
/// they can never collide with a device (host) address. The low 32 bits are the offset in the
/// window, so truncating a generic shared address to 32 bits yields the shared address as on
/// hardware.
pub const SHARED_WINDOW: u64 = 0xC000_0000_0000_0000;
pub const LOCAL_WINDOW: u64 = 0xD000_0000_0000_0000;
pub const WINDOW_SIZE: u64 = 1 << 32;

/// `.shared::cluster` addresses (and generic ones: [`SHARED_WINDOW`] plus such an address) name
/// a CTA of the cluster in bits 24..32 and the byte offset in that CTA's shared memory in bits
/// 0..24: `((rank + 1) << CLUSTER_RANK_SHIFT) | offset`. A rank field of 0 is the executing
/// CTA, so every `.shared::cta` address is also the `.shared::cluster` address of the same byte
/// of the executing CTA, as the ISA requires (5.1.6), and cvta/truncation to 32 bits keep
/// working. The encoding fits 32-bit `.shared::cluster` registers (`mapa.shared::cluster.u32`,
/// `mbarrier.arrive.shared::cluster` with a 32-bit address), which a layout above bit 32 would
/// not. It bounds a CTA's shared memory to 16 MiB (hardware: 228 KiB) and a cluster to 254 CTAs
/// (hardware: 16); a field naming no CTA of the cluster makes any access through it an illegal
/// address.
pub const CLUSTER_RANK_SHIFT: u32 = 24;
/// The offset bits of a `.shared::cluster` address (see [`CLUSTER_RANK_SHIFT`]).
pub const CLUSTER_OFFSET_MASK: u64 = (1 << CLUSTER_RANK_SHIFT) - 1;
/// The most CTAs a cluster may have (the non-portable limit of compute capability 9.0/10.0).
pub const MAX_CLUSTER_CTAS: usize = 16;

/// The `.shared::cluster` address (32 bits) of `offset` in the shared memory of cluster CTA
/// `rank` (ranks past the field saturate to a field that names no CTA).
pub fn cluster_shared_addr(rank: u64, offset: u64) -> u64 {
    (rank.saturating_add(1).min(0xff) << CLUSTER_RANK_SHIFT) | (offset & CLUSTER_OFFSET_MASK)
}
/// The cluster CTA a 32-bit `.shared::cluster` address names: its rank field, or `own` (the
/// executing CTA's rank) where the field is 0.
#[inline(always)]
pub fn cluster_rank(addr: u64, own: u64) -> u64 {
    match (addr >> CLUSTER_RANK_SHIFT) & 0xff {
        0 => own,
        f => f - 1,
    }
}

/// Function "addresses" (what `mov.u64 %rd, func` and vtable initializers yield): a third
/// non-canonical window, so a function pointer can never alias data. Module-wide: function
/// `fidx` of the module is at `FUNC_WINDOW + 16 * (fidx + 1)` (never 0, so null stays null).
pub const FUNC_WINDOW: u64 = 0xE000_0000_0000_0000;

pub fn func_addr(fidx: usize) -> u64 {
    FUNC_WINDOW + 16 * (fidx as u64 + 1)
}
