//! Occupancy (`cuOccupancy*`): how many blocks of a function fit on one SM of the profile,
//! computed with NVIDIA's documented occupancy formula (the one `cuda_occupancy.h` spells out
//! for compute capability 8.0 and later):
//!
//! - warps: `floor(max threads per SM / 32 / ceil(block / 32))`;
//! - registers: registers per warp rounded up to the allocation unit (256), warps per SM
//!   sub-partition (4 of them) `floor(regs per SM / 4 / regs per warp)`, blocks
//!   `floor(4 * that / warps per block)`; none when the block's registers, with its warps
//!   rounded up to the sub-partitions, exceed the per-block register file;
//! - shared memory: static + dynamic + the driver's reserved bytes per block, rounded up to
//!   the allocation unit (128 bytes), against the carveout (the shared memory the SM is
//!   configured with: all of it by default, else the preference rounded up to a supported
//!   size); none above the per-block limit or the function's maximum dynamic size;
//! - the blocks-per-SM limit of the architecture.
//!
//! Clusters (`cuOccupancyMaxPotentialClusterSize`, `cuOccupancyMaxActiveClusters`) use the
//! profile's GPC layout: a cluster's blocks must be co-resident on the SMs of one GPC.

use crate::config;
use crate::errors::{CuResult, INVALID_VALUE, NOT_SUPPORTED};
use crate::module;
use crate::module::Function;
use crate::profile::{round_up, Profile, MAX_REGS_PER_THREAD, REG_UNIT, SUB_PARTITIONS, WARP};
use abi::*;
use std::ffi::{c_int, c_uint};
use std::sync::atomic::Ordering;

/// Shared memory allocation unit on compute capability 8.0 and later.
const SMEM_UNIT: i64 = 128;

/// What the formula needs to know about a function.
#[derive(Clone, Copy, Debug)]
pub struct FuncUsage {
    pub num_regs: i64,
    pub static_shared: i64,
    pub max_dynamic_shared: i64,
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`.
    pub max_threads: i64,
    /// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT` (-1: none).
    pub carveout: i32,
    /// `cuFuncSetCacheConfig` (a `CUfunc_cache`), used when no carveout is set.
    pub cache_config: i32,
}

impl FuncUsage {
    pub fn of(f: &Function) -> FuncUsage {
        FuncUsage {
            num_regs: f.num_regs as i64,
            static_shared: f.kernel.static_shared_bytes as i64,
            max_dynamic_shared: f.max_dynamic_shared.load(Ordering::Acquire) as i64,
            max_threads: crate::module::max_threads_per_block(f) as i64,
            carveout: f.carveout.load(Ordering::Acquire),
            cache_config: f.cache_config.load(Ordering::Acquire),
        }
    }
}

/// The shared memory sizes an SM can be configured with, per compute capability (KiB).
fn carveout_sizes(p: &Profile) -> &'static [i64] {
    match (p.cc_major, p.cc_minor) {
        (8, 0) | (8, 7) => &[0, 8, 16, 32, 64, 100, 132, 164],
        (8, _) => &[0, 8, 16, 32, 64, 100],
        _ => &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
    }
}

/// `bytes` rounded up to a supported SM shared memory configuration.
fn align_up_carveout(p: &Profile, bytes: i64) -> i64 {
    carveout_sizes(p)
        .iter()
        .map(|k| k * 1024)
        .find(|&s| s >= bytes)
        .unwrap_or(p.shared_per_sm as i64)
}

/// The shared memory the SM is configured with for this function (its carveout preference).
fn smem_preference(p: &Profile, f: &FuncUsage) -> i64 {
    let percent = match f.carveout {
        -1 => match f.cache_config {
            1 => 100, // CU_FUNC_CACHE_PREFER_SHARED
            2 => 0,   // CU_FUNC_CACHE_PREFER_L1
            3 => 50,  // CU_FUNC_CACHE_PREFER_EQUAL
            _ => return p.shared_per_sm as i64,
        },
        c => c as i64,
    };
    align_up_carveout(p, percent * p.shared_per_sm as i64 / 100)
}

/// The per-block shared memory limit (with the driver's reserved bytes) for a block using
/// `usage` bytes: the opt-in limit once the default one is exceeded.
fn smem_limit_per_block(p: &Profile, usage: i64) -> i64 {
    let limit = if usage > p.shared_per_block as i64 {
        p.shared_per_block_optin
    } else {
        p.shared_per_block
    };
    limit as i64 + p.reserved_shared_per_block as i64
}

/// Blocks of `block_size` threads with `dynamic` bytes of dynamic shared memory that are
/// active on one SM at once.
pub fn active_blocks(p: &Profile, f: &FuncUsage, block_size: i64, dynamic: i64) -> i64 {
    let warps = (block_size + WARP - 1) / WARP;
    if block_size <= 0 || block_size > p.max_threads_per_block as i64 || block_size > f.max_threads
    {
        return 0;
    }
    // Warps.
    let by_warps = p.max_threads_per_sm as i64 / WARP / warps;
    // Registers.
    let regs_per_warp = round_up(f.num_regs * WARP, REG_UNIT);
    let regs_per_block = regs_per_warp * warps;
    let regs_assumed = regs_per_warp * round_up(warps, SUB_PARTITIONS);
    let by_regs = if regs_assumed > p.regs_per_block as i64
        || regs_per_block > p.regs_per_block as i64
        || f.num_regs > MAX_REGS_PER_THREAD
    {
        0
    } else if regs_per_warp == 0 {
        i64::MAX
    } else {
        let warps_per_partition = p.regs_per_sm as i64 / SUB_PARTITIONS / regs_per_warp;
        warps_per_partition * SUB_PARTITIONS / warps
    };
    // Shared memory.
    let fixed = f.static_shared + p.reserved_shared_per_block as i64;
    let allocated = round_up(fixed + dynamic, SMEM_UNIT);
    let limit = smem_limit_per_block(p, fixed + f.max_dynamic_shared);
    let by_smem = if dynamic > f.max_dynamic_shared || allocated > limit {
        0
    } else {
        let preference = smem_preference(p, f);
        let per_sm = if preference >= allocated {
            preference
        } else {
            align_up_carveout(p, allocated)
        };
        per_sm / allocated
    };
    by_warps
        .min(by_regs)
        .min(by_smem)
        .min(p.max_blocks_per_sm as i64)
}

/// The most dynamic shared memory per block that still lets `blocks` blocks of `block_size`
/// threads be active on one SM; `None` when not even that many fit without any.
pub fn available_dynamic_smem(
    p: &Profile,
    f: &FuncUsage,
    blocks: i64,
    block_size: i64,
) -> Option<i64> {
    if blocks <= 0 || active_blocks(p, f, block_size, 0) < blocks {
        return None;
    }
    let limit = smem_limit_per_block(p, p.shared_per_sm as i64);
    let per_sm = if blocks == 1 {
        limit
    } else {
        match smem_preference(p, f) {
            0 => align_up_carveout(p, 1),
            pref => pref,
        }
    };
    let avail = (per_sm / blocks / SMEM_UNIT * SMEM_UNIT).min(limit)
        - f.static_shared
        - p.reserved_shared_per_block as i64;
    Some(avail.min(f.max_dynamic_shared).max(0))
}

/// The block size with the highest occupancy in threads (the largest on ties) and the grid
/// that fills the device with it: (min grid size, block size).
pub fn potential_block_size(
    p: &Profile,
    f: &FuncUsage,
    dynamic: impl Fn(i64) -> i64,
    block_size_limit: i64,
) -> (i64, i64) {
    let mut limit = (p.max_threads_per_block as i64).min(f.max_threads);
    if block_size_limit > 0 {
        limit = limit.min(block_size_limit);
    }
    let (mut best_block, mut best_blocks, mut best_threads) = (0, 0, 0);
    let mut aligned = round_up(limit, WARP);
    while aligned > 0 {
        let block = limit.min(aligned);
        let blocks = active_blocks(p, f, block, dynamic(block));
        if block * blocks > best_threads {
            (best_block, best_blocks, best_threads) = (block, blocks, block * blocks);
        }
        if best_threads == p.max_threads_per_sm as i64 {
            break;
        }
        aligned -= WARP;
    }
    (best_blocks * p.sm_count as i64, best_block)
}

/// SMs per GPC: a cluster's blocks are co-scheduled on one GPC.
fn sms_per_gpc(p: &Profile) -> i64 {
    p.sm_count as i64 / p.gpc_count as i64
}

/// The largest cluster whose blocks can be co-resident on one GPC, within the portable (8) or,
/// when the function allows it, non-portable (16) limit.
pub fn max_cluster_size(
    p: &Profile,
    f: &FuncUsage,
    non_portable: bool,
    block: i64,
    dynamic: i64,
) -> i64 {
    let cap = if non_portable { 16 } else { 8 };
    (active_blocks(p, f, block, dynamic) * sms_per_gpc(p)).min(cap)
}

/// Clusters of `cluster` blocks that can be active on the device at once.
pub fn active_clusters(p: &Profile, f: &FuncUsage, cluster: i64, block: i64, dynamic: i64) -> i64 {
    let per_gpc = active_blocks(p, f, block, dynamic) * sms_per_gpc(p) / cluster;
    per_gpc * p.gpc_count as i64
}

// ---- Entry points.

pub(crate) unsafe fn max_active_blocks(
    blocks: *mut c_int,
    func: CUfunction,
    block_size: c_int,
    dynamic_shared: usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { max_active_blocks_with_flags(blocks, func, block_size, dynamic_shared, 0) }
}

pub(crate) unsafe fn max_active_blocks_with_flags(
    blocks: *mut c_int,
    func: CUfunction,
    block_size: c_int,
    dynamic_shared: usize,
    flags: c_uint,
) -> CuResult {
    if blocks.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = module::function(func)?;
    // CU_OCCUPANCY_DEFAULT or CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE (which only matters for
    // the partitioned global caching of compute capability 5.2 and 6.x).
    if flags > 1 || block_size <= 0 {
        return Err(INVALID_VALUE);
    }
    let n = active_blocks(
        config::profile(),
        &FuncUsage::of(&f),
        block_size as i64,
        dynamic_shared as i64,
    );
    // SAFETY: checked non-null.
    unsafe { *blocks = n.min(i32::MAX as i64) as c_int };
    Ok(())
}

pub(crate) unsafe fn available_dynamic_smem_per_block(
    bytes: *mut usize,
    func: CUfunction,
    blocks_per_sm: c_int,
    block_size: c_int,
) -> CuResult {
    if bytes.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = module::function(func)?;
    let v = available_dynamic_smem(
        config::profile(),
        &FuncUsage::of(&f),
        blocks_per_sm as i64,
        block_size as i64,
    )
    .ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *bytes = v as usize };
    Ok(())
}

pub(crate) unsafe fn max_potential_block_size(
    min_grid: *mut c_int,
    block: *mut c_int,
    func: CUfunction,
    to_dynamic: CUoccupancyB2DSize,
    dynamic_shared: usize,
    block_size_limit: c_int,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        max_potential_block_size_with_flags(
            min_grid,
            block,
            func,
            to_dynamic,
            dynamic_shared,
            block_size_limit,
            0,
        )
    }
}

pub(crate) unsafe fn max_potential_block_size_with_flags(
    min_grid: *mut c_int,
    block: *mut c_int,
    func: CUfunction,
    to_dynamic: CUoccupancyB2DSize,
    dynamic_shared: usize,
    block_size_limit: c_int,
    flags: c_uint,
) -> CuResult {
    if min_grid.is_null() || block.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = module::function(func)?;
    if flags > 1 || block_size_limit < 0 {
        return Err(INVALID_VALUE);
    }
    let usage = FuncUsage::of(&f);
    let dynamic = |b: i64| match to_dynamic {
        // SAFETY: the caller's callback maps a block size to its dynamic shared memory.
        Some(cb) => (unsafe { cb(b as c_int) }) as i64,
        None => dynamic_shared as i64,
    };
    let (grid, b) =
        potential_block_size(config::profile(), &usage, dynamic, block_size_limit as i64);
    // SAFETY: both checked non-null.
    unsafe {
        *min_grid = grid as c_int;
        *block = b as c_int;
    }
    Ok(())
}

/// Block size, dynamic shared memory and requested cluster dimensions of a launch config.
unsafe fn launch_shape(config: *const CUlaunchConfig) -> CuResult<(i64, i64, Option<i64>)> {
    if config.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUlaunchConfig.
    let c = unsafe { &*config };
    if c.numAttrs > 0 && c.attrs.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut cluster = None;
    for i in 0..c.numAttrs as usize {
        // SAFETY: `attrs` holds numAttrs entries.
        let a = unsafe { &*c.attrs.add(i) };
        if a.id == CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {
            // SAFETY: the id says the value is the cluster dimension.
            let d = unsafe { a.value.clusterDim };
            cluster = Some(d.x as i64 * d.y as i64 * d.z as i64);
        }
    }
    let block = c.blockDimX as i64 * c.blockDimY as i64 * c.blockDimZ as i64;
    Ok((block, c.sharedMemBytes as i64, cluster))
}

pub(crate) unsafe fn max_potential_cluster_size(
    size: *mut c_int,
    func: CUfunction,
    config: *const CUlaunchConfig,
) -> CuResult {
    if size.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = module::function(func)?;
    // SAFETY: forwarded contract.
    let (block, dynamic, _) = unsafe { launch_shape(config) }?;
    let p = config::profile();
    if p.cc_major < 9 {
        return Err(NOT_SUPPORTED);
    }
    let non_portable = f.non_portable_cluster.load(Ordering::Acquire) != 0;
    let n = max_cluster_size(p, &FuncUsage::of(&f), non_portable, block, dynamic);
    // SAFETY: checked non-null.
    unsafe { *size = n as c_int };
    Ok(())
}

pub(crate) unsafe fn max_active_clusters(
    clusters: *mut c_int,
    func: CUfunction,
    config: *const CUlaunchConfig,
) -> CuResult {
    if clusters.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = module::function(func)?;
    // SAFETY: forwarded contract.
    let (block, dynamic, requested) = unsafe { launch_shape(config) }?;
    let p = config::profile();
    if p.cc_major < 9 {
        return Err(NOT_SUPPORTED);
    }
    // The config's cluster size, else the function's required one; one of them must be set.
    let required: i64 = f
        .cluster_dims
        .iter()
        .map(|d| d.load(Ordering::Acquire) as i64)
        .product();
    let cluster = match (requested, required) {
        (Some(r), q) if q > 0 && r != q => return Err(INVALID_VALUE),
        (Some(r), _) if r > 0 => r,
        (None, q) if q > 0 => q,
        _ => return Err(INVALID_VALUE),
    };
    let n = active_clusters(p, &FuncUsage::of(&f), cluster, block, dynamic);
    // SAFETY: checked non-null.
    unsafe { *clusters = n as c_int };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::PROFILES;

    fn h100() -> &'static Profile {
        PROFILES.iter().find(|p| p.key == "h100").unwrap()
    }
    fn a100() -> &'static Profile {
        PROFILES.iter().find(|p| p.key == "a100").unwrap()
    }

    fn usage(num_regs: i64, static_shared: i64) -> FuncUsage {
        FuncUsage {
            num_regs,
            static_shared,
            max_dynamic_shared: 48 * 1024 - static_shared,
            max_threads: 1024,
            carveout: -1,
            cache_config: 0,
        }
    }

    // Expected values worked out by hand from the formula (module comment) for the H100
    // profile: 2048 threads, 65536 registers, 32 blocks, 228 KiB shared memory per SM, 1 KiB
    // reserved per block, 48 KiB default / 227 KiB opt-in per block.
    #[test]
    fn active_blocks_by_hand() {
        let p = h100();
        // 32 regs, 256 threads: warps 2048/32/8 = 8; regs/warp 1024, 16 warps per
        // sub-partition, 64/8 = 8; smem (0+1024) -> 228K/1K = 228; blocks 32. -> 8.
        assert_eq!(active_blocks(p, &usage(32, 0), 256, 0), 8);
        // 64 regs, 256 threads: regs/warp 2048, 8 warps per sub-partition -> 32/8 = 4.
        assert_eq!(active_blocks(p, &usage(64, 0), 256, 0), 4);
        // 40 regs: 1280 rounds to 1280 (a multiple of 256); 16384/1280 = 12 warps per
        // partition, 48/8 = 6.
        assert_eq!(active_blocks(p, &usage(40, 0), 256, 0), 6);
        // 33 regs: 1056 -> 1280, same as 40.
        assert_eq!(active_blocks(p, &usage(33, 0), 256, 0), 6);
        // Small blocks: 32 threads, 8 regs: warps 64, regs 64*..., blocks limit 32.
        assert_eq!(active_blocks(p, &usage(8, 0), 32, 0), 32);
        // Shared memory: 16 KiB static + 16 KiB dynamic + 1 KiB = 33 KiB -> 228/33 = 6.
        assert_eq!(active_blocks(p, &usage(16, 16 * 1024), 128, 16 * 1024), 6);
        // 40 KiB dynamic + 1 KiB: 228/41 = 5.
        assert_eq!(active_blocks(p, &usage(16, 0), 128, 40 * 1024), 5);
        // Above the function's maximum dynamic size (48 KiB by default): none.
        assert_eq!(active_blocks(p, &usage(16, 0), 128, 48 * 1024 + 1), 0);
        let mut big = usage(16, 0);
        big.max_dynamic_shared = 227 * 1024;
        // 100 KiB + 1 KiB = 101 KiB: 228/101 = 2.
        assert_eq!(active_blocks(p, &big, 128, 100 * 1024), 2);
        // 255 regs, 1024 threads: 8160 -> 8192 per warp, 32 warps = 262144 > 65536: none.
        assert_eq!(active_blocks(p, &usage(255, 0), 1024, 0), 0);
        // 64 regs, 1024 threads: 2048 * 32 = 65536 fits; 8 warps per partition * 4 / 32 = 1.
        assert_eq!(active_blocks(p, &usage(64, 0), 1024, 0), 1);
        // 72 regs, 32 threads: regs/warp 2304; per partition 16384/2304 = 7 warps, 28 blocks.
        assert_eq!(active_blocks(p, &usage(72, 0), 32, 0), 28);
        // Carveout 25%: 57 KiB rounds up to the 64 KiB configuration; 33 KiB blocks: 1.
        let mut c = usage(16, 16 * 1024);
        c.carveout = 25;
        assert_eq!(active_blocks(p, &c, 128, 16 * 1024), 1);
        // A100: 164 KiB; 33 KiB blocks: 4.
        assert_eq!(
            active_blocks(a100(), &usage(16, 16 * 1024), 128, 16 * 1024),
            4
        );
    }

    #[test]
    fn available_dynamic_smem_by_hand() {
        let p = h100();
        // 2 blocks: 228K/2 = 116736, minus 1 KiB reserved = 115712, capped at the function's
        // 48 KiB default maximum.
        assert_eq!(
            available_dynamic_smem(p, &usage(16, 0), 2, 128),
            Some(48 * 1024)
        );
        let mut big = usage(16, 4096);
        big.max_dynamic_shared = 227 * 1024 - 4096;
        // Opted in: 116736 - 4096 static - 1024 = 111616.
        assert_eq!(available_dynamic_smem(p, &big, 2, 128), Some(111_616));
        // 1 block: the per-block limit 227K + 1K, minus static and reserved: 227K - 4K.
        assert_eq!(
            available_dynamic_smem(p, &big, 1, 128),
            Some(227 * 1024 - 4096)
        );
        // 3 blocks: 233472/3 = 77824 (a multiple of 128) - 4096 - 1024 = 72704.
        assert_eq!(available_dynamic_smem(p, &big, 3, 128), Some(72_704));
        // More blocks than fit at all: 9 blocks of 256 threads exceed 2048 threads.
        assert_eq!(available_dynamic_smem(p, &usage(16, 0), 9, 256), None);
    }

    #[test]
    fn potential_block_size_by_hand() {
        let p = h100();
        // 32 regs: 1024 threads x 2 blocks = 2048 = full occupancy at the first try.
        assert_eq!(
            potential_block_size(p, &usage(32, 0), |_| 0, 0),
            (264, 1024)
        );
        // 64 regs: 1024 -> 1 block (1024 threads); 992 -> 31 warps, regs 2048*32 (rounded to
        // 32 warps) = 65536 fits, 32/31 = 1 block: 992; ... 512: 2 blocks = 1024 threads.
        // No size beats 1024 threads, and the largest size reaching it is 1024.
        assert_eq!(
            potential_block_size(p, &usage(64, 0), |_| 0, 0),
            (132, 1024)
        );
        // A block-size limit of 200 (not a multiple of 32): 200 threads are 7 warps, 64/7 = 9
        // blocks = 1800 threads; 192 -> 64/6 = 10 blocks = 1920; 160 -> 12 blocks = 1920 (not
        // more); 128 -> 16 blocks = 2048: full.
        assert_eq!(
            potential_block_size(p, &usage(32, 0), |_| 0, 200),
            (16 * 132, 128)
        );
        // Dynamic shared memory of 64 bytes per thread: above 768 threads more than the 48 KiB
        // maximum: 0 blocks; 768: 49 KiB with the reserved 1 KiB, 228/49 = 4, but warps
        // 64/24 = 2: 1536 threads; 672 (21 warps): 43 KiB -> 5, warps 3: 2016 threads; 640:
        // 3 blocks = 1920; ... 512: 33 KiB -> 6, warps 4: 2048 threads: full.
        assert_eq!(
            potential_block_size(p, &usage(32, 0), |b| b * 64, 0),
            (4 * 132, 512)
        );
    }

    #[test]
    fn clusters_by_hand() {
        let p = h100();
        // 8 GPCs of 132/8 = 16 SMs. 256-thread blocks of 32 regs: 8 per SM, 128 per GPC.
        assert_eq!(max_cluster_size(p, &usage(32, 0), false, 256, 0), 8);
        assert_eq!(max_cluster_size(p, &usage(32, 0), true, 256, 0), 16);
        // Clusters of 8: 128/8 = 16 per GPC, 128 on the device.
        assert_eq!(active_clusters(p, &usage(32, 0), 8, 256, 0), 128);
        // 1024-thread blocks of 64 regs: 1 per SM, 16 per GPC; clusters of 4: 4 per GPC.
        assert_eq!(active_clusters(p, &usage(64, 0), 4, 1024, 0), 32);
    }
}

/// Whether clusters of `dims` can run on the profile, as the driver checks a launch: each
/// dimension positive and dividing the grid; on compute capability 9.0 or later (else
/// CUDA_ERROR_NOT_SUPPORTED, as the cluster occupancy queries answer there); at most 8 CTAs
/// (the portable size), or 16 when the function allows non-portable sizes; and no more CTAs
/// than can be co-resident on one GPC ([`max_cluster_size`], so that a launch succeeds exactly
/// when `cuOccupancyMaxPotentialClusterSize` says the size fits). Every misconfiguration is
/// CUDA_ERROR_INVALID_CLUSTER_SIZE, the one error code the driver API has for it.
pub(crate) fn check_cluster(
    p: &Profile,
    f: &FuncUsage,
    non_portable: bool,
    dims: [u32; 3],
    grid: [u32; 3],
    block: i64,
    dynamic: i64,
) -> CuResult {
    let bad = Err(CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE);
    if dims.iter().zip(grid).any(|(&c, g)| c == 0 || g % c != 0) {
        return bad;
    }
    let size = dims.iter().map(|&d| d as i64).product::<i64>();
    if size == 1 {
        return Ok(());
    }
    if p.cc_major < 9 {
        return Err(NOT_SUPPORTED);
    }
    if size > max_cluster_size(p, f, non_portable, block, dynamic) {
        return bad;
    }
    Ok(())
}

#[cfg(test)]
mod launch_attribute_tests {
    use super::*;

    fn h100() -> &'static Profile {
        crate::profile::PROFILES
            .iter()
            .find(|p| p.key == "h100")
            .unwrap()
    }

    fn a100() -> &'static Profile {
        crate::profile::PROFILES
            .iter()
            .find(|p| p.key == "a100")
            .unwrap()
    }

    /// 256-thread blocks of 32 registers on the H100 profile: 8 per SM, 128 per GPC (see
    /// `occupancy_tests::clusters_by_hand`), so the size limits are 8 and 16.
    #[test]
    fn cluster_limits() {
        let f = FuncUsage {
            num_regs: 32,
            static_shared: 0,
            max_dynamic_shared: 48 * 1024,
            max_threads: 1024,
            carveout: -1,
            cache_config: 0,
        };
        let check = |p, np, dims, grid| check_cluster(p, &f, np, dims, grid, 256, 0);
        let bad = Err(CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE);
        assert_eq!(check(h100(), false, [1, 1, 1], [7, 3, 1]), Ok(()));
        assert_eq!(check(h100(), false, [2, 1, 1], [8, 2, 2]), Ok(()));
        assert_eq!(check(h100(), false, [2, 2, 2], [8, 2, 2]), Ok(()));
        // Not dividing the grid, or zero.
        assert_eq!(check(h100(), false, [3, 1, 1], [8, 2, 2]), bad);
        assert_eq!(check(h100(), false, [0, 1, 1], [8, 2, 2]), bad);
        // Above the portable size unless non-portable sizes are allowed; never above 16.
        assert_eq!(check(h100(), false, [16, 1, 1], [32, 1, 1]), bad);
        assert_eq!(check(h100(), true, [16, 1, 1], [32, 1, 1]), Ok(()));
        assert_eq!(check(h100(), true, [32, 1, 1], [32, 1, 1]), bad);
        // No clusters before compute capability 9.0.
        assert_eq!(
            check(a100(), false, [2, 1, 1], [8, 1, 1]),
            Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
        );
    }
}
