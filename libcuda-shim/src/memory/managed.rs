//! Managed memory's advice and prefetch state, and the calls that read or add to it:
//! `cuMemRangeGetAttribute(s)`, `cuMemPrefetchBatchAsync`, `cuMemDiscardBatchAsync`,
//! `cuMemDiscardAndPrefetchBatchAsync` (`cuMemAdvise` and `cuMemPrefetchAsync`, in `pool`,
//! record into it).
//!
//! Host and device share managed memory here, so advice and prefetches move nothing; what a
//! program can observe of them is what `cuMemRangeGetAttribute` reports, which is kept per
//! CPU page as the driver keeps it ("the start address and end address of the memory range
//! will be rounded down and rounded up respectively to be aligned to CPU page size"): read
//! duplication, the preferred location, the devices with accessed-by advice and the last
//! location the program asked to prefetch to. Discarding leaves the contents as they are (the
//! documentation makes later reads of discarded memory indeterminate).

use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::batch::{batch_stream, groups};
use crate::{device, memory, stream};
use abi::*;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::ffi::c_void;

/// A memory location as advice and prefetches name it (`CUmemLocation` without the union).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub kind: CUmemLocationType,
    pub id: i32,
}

const CU_DEVICE_CPU: i32 = -1;
const CU_DEVICE_INVALID: i32 = -2;

impl Loc {
    /// A legacy device argument: a device ordinal or CU_DEVICE_CPU.
    pub fn from_device(dev: CUdevice) -> Loc {
        if dev == CU_DEVICE_CPU {
            Loc {
                kind: CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST,
                id: 0,
            }
        } else {
            Loc {
                kind: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: dev,
            }
        }
    }

    pub fn from_location(l: &CUmemLocation) -> Loc {
        // SAFETY: every member of the union is a 32-bit integer id.
        let id = unsafe { l.__bindgen_anon_1.id };
        Loc { kind: l.type_, id }
    }

    /// Validates a location an operation names: a device of this system or the host (a host
    /// NUMA node must be a node of this system, which has none: CUDA_ERROR_INVALID_VALUE).
    pub fn check(self) -> CuResult {
        use CUmemLocationType as L;
        match self.kind {
            L::CU_MEM_LOCATION_TYPE_DEVICE => device::check(self.id),
            L::CU_MEM_LOCATION_TYPE_HOST | L::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT => Ok(()),
            _ => Err(INVALID_VALUE),
        }
    }

    /// As the legacy attributes report it: a device ordinal or CU_DEVICE_CPU.
    fn legacy(self) -> i32 {
        if self.kind == CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE {
            self.id
        } else {
            CU_DEVICE_CPU
        }
    }

    /// As the _TYPE/_ID attributes report it: the current host NUMA node is the host.
    fn reported(self) -> Loc {
        if self.kind == CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT {
            Loc::from_device(CU_DEVICE_CPU)
        } else {
            self
        }
    }
}

/// The state of one page (pages without any are absent from [`PAGES`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Advice {
    read_mostly: bool,
    preferred: Option<Loc>,
    /// Legacy device ids (CU_DEVICE_CPU for the host) with accessed-by advice, ascending.
    accessed_by: Vec<i32>,
    last_prefetch: Option<Loc>,
}

/// Disjoint runs of pages with the same state: start -> (end, state), byte addresses.
static PAGES: Lazy<Mutex<BTreeMap<u64, (u64, Advice)>>> = Lazy::new(Default::default);

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

/// `[ptr, ptr + count)` widened to whole CPU pages.
fn pages(ptr: u64, count: usize) -> (u64, u64) {
    let p = page_size();
    let start = ptr / p * p;
    let end = (ptr + count as u64).div_ceil(p) * p;
    (start, end)
}

/// Splits the run containing `at` so that a run starts there.
fn split(m: &mut BTreeMap<u64, (u64, Advice)>, at: u64) {
    let hit = m
        .range(..at)
        .next_back()
        .filter(|(_, (end, _))| *end > at)
        .map(|(s, v)| (*s, v.clone()));
    if let Some((start, (end, st))) = hit {
        m.insert(start, (at, st.clone()));
        m.insert(at, (end, st));
    }
}

/// The runs covering `[start, end)`, gaps as default state, removed from the map.
fn take(m: &mut BTreeMap<u64, (u64, Advice)>, start: u64, end: u64) -> Vec<(u64, u64, Advice)> {
    split(m, start);
    split(m, end);
    let keys: Vec<u64> = m.range(start..end).map(|(k, _)| *k).collect();
    let mut out = Vec::new();
    let mut pos = start;
    for k in keys {
        let (e, st) = m.remove(&k).expect("listed key");
        if pos < k {
            out.push((pos, k, Advice::default()));
        }
        out.push((k, e, st));
        pos = e;
    }
    if pos < end {
        out.push((pos, end, Advice::default()));
    }
    out
}

/// Applies `f` to the state of every page of the managed range `[ptr, ptr + count)`.
fn update(ptr: u64, count: usize, f: impl Fn(&mut Advice)) {
    let (start, end) = pages(ptr, count);
    let mut m = PAGES.lock();
    for (s, e, mut st) in take(&mut m, start, end) {
        f(&mut st);
        if st != Advice::default() {
            m.insert(s, (e, st));
        }
    }
}

/// The states of the pages of `[ptr, ptr + count)`, one per run.
fn states(ptr: u64, count: usize) -> Vec<Advice> {
    let (start, end) = pages(ptr, count);
    let mut m = PAGES.lock();
    let runs = take(&mut m, start, end);
    let out = runs.iter().map(|(_, _, st)| st.clone()).collect();
    for (s, e, st) in runs {
        if st != Advice::default() {
            m.insert(s, (e, st));
        }
    }
    out
}

/// Whether `[ptr, ptr + count)` lies in one managed allocation (advice is kept for those only).
fn is_managed_range(ptr: u64, count: usize) -> bool {
    count > 0
        && memory::check_device(ptr, count).is_ok()
        && engine::mem::find(ptr).is_some_and(|a| memory::is_managed(a.base))
}

/// Records `cuMemAdvise` (arguments validated by the caller).
pub(crate) fn advise(ptr: u64, count: usize, advice: CUmem_advise, loc: Loc) {
    if !is_managed_range(ptr, count) {
        return;
    }
    use CUmem_advise as A;
    match advice {
        A::CU_MEM_ADVISE_SET_READ_MOSTLY => update(ptr, count, |s| s.read_mostly = true),
        A::CU_MEM_ADVISE_UNSET_READ_MOSTLY => update(ptr, count, |s| s.read_mostly = false),
        A::CU_MEM_ADVISE_SET_PREFERRED_LOCATION => {
            update(ptr, count, |s| s.preferred = Some(loc.reported()))
        }
        A::CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION => update(ptr, count, |s| s.preferred = None),
        A::CU_MEM_ADVISE_SET_ACCESSED_BY => update(ptr, count, |s| {
            if let Err(i) = s.accessed_by.binary_search(&loc.legacy()) {
                s.accessed_by.insert(i, loc.legacy());
            }
        }),
        A::CU_MEM_ADVISE_UNSET_ACCESSED_BY => {
            update(ptr, count, |s| s.accessed_by.retain(|d| *d != loc.legacy()))
        }
        _ => {}
    }
}

/// Records a prefetch request (cuMemPrefetchAsync and the batch forms), at the call: the
/// attribute "simply returns the last location that the application requested to prefetch
/// the memory range to".
pub(crate) fn prefetched(ptr: u64, count: usize, loc: Loc) {
    if is_managed_range(ptr, count) {
        update(ptr, count, |s| s.last_prefetch = Some(loc.reported()));
    }
}

/// Forgets the state of a freed allocation, so a later one at the same address starts clean.
pub(crate) fn forget(base: u64, size: u64) {
    if size == 0 {
        return;
    }
    let (start, end) = pages(base, size as usize);
    // Only pages wholly inside the allocation: neighbours may share its first or last page.
    let p = page_size();
    let (start, end) = (
        start.max(base.div_ceil(p) * p),
        end.min((base + size) / p * p),
    );
    if start < end {
        let mut m = PAGES.lock();
        take(&mut m, start, end);
    }
}

/// The location all states agree on, else none.
fn common(states: &[Advice], f: impl Fn(&Advice) -> Option<Loc>) -> Option<Loc> {
    let first = f(states.first()?)?;
    states.iter().all(|s| f(s) == Some(first)).then_some(first)
}

const LOCATION_TYPE_SIZE: usize = std::mem::size_of::<CUmemLocationType>();

/// Writes one attribute of the range's pages into `data` (`size` bytes).
///
/// # Safety
/// `data` is non-null and holds `size` writable bytes.
unsafe fn write_attribute(
    data: *mut c_void,
    size: usize,
    attr: CUmem_range_attribute,
    states: &[Advice],
) -> CuResult {
    use CUmem_range_attribute as R;
    let invalid = Loc {
        kind: CUmemLocationType::CU_MEM_LOCATION_TYPE_INVALID,
        id: CU_DEVICE_INVALID,
    };
    let int = |v: i32| -> CuResult {
        if size != 4 {
            return Err(INVALID_VALUE);
        }
        // SAFETY: per the contract, 4 bytes.
        unsafe { (data as *mut i32).write_unaligned(v) };
        Ok(())
    };
    let kind = |k: CUmemLocationType| -> CuResult {
        if size != LOCATION_TYPE_SIZE {
            return Err(INVALID_VALUE);
        }
        // SAFETY: per the contract, sizeof(CUmemLocationType) bytes.
        unsafe { (data as *mut CUmemLocationType).write_unaligned(k) };
        Ok(())
    };
    let preferred = common(states, |s| s.preferred);
    let prefetch = common(states, |s| s.last_prefetch);
    match attr {
        R::CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY => {
            int(i32::from(states.iter().all(|s| s.read_mostly)))
        }
        R::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION => {
            int(preferred.map_or(CU_DEVICE_INVALID, Loc::legacy))
        }
        R::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION => {
            int(prefetch.map_or(CU_DEVICE_INVALID, Loc::legacy))
        }
        R::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE => {
            kind(preferred.unwrap_or(invalid).kind)
        }
        R::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID => int(preferred.unwrap_or(invalid).id),
        R::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE => {
            kind(prefetch.unwrap_or(invalid).kind)
        }
        R::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID => int(prefetch.unwrap_or(invalid).id),
        R::CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY => {
            if size == 0 || !size.is_multiple_of(4) {
                return Err(INVALID_VALUE);
            }
            // Devices with the advice on every page of the range, then CU_DEVICE_INVALID.
            let all: Vec<i32> = states.first().map_or(Vec::new(), |first| {
                first
                    .accessed_by
                    .iter()
                    .copied()
                    .filter(|d| states.iter().all(|s| s.accessed_by.contains(d)))
                    .collect()
            });
            for i in 0..size / 4 {
                let v = all.get(i).copied().unwrap_or(CU_DEVICE_INVALID);
                // SAFETY: per the contract, `size` bytes.
                unsafe { (data as *mut i32).add(i).write_unaligned(v) };
            }
            Ok(())
        }
        _ => Err(INVALID_VALUE),
    }
}

/// The range a query names must be managed memory.
fn check_query_range(ptr: CUdeviceptr, count: usize) -> CuResult {
    if is_managed_range(ptr, count) {
        Ok(())
    } else {
        Err(INVALID_VALUE)
    }
}

pub(crate) unsafe fn range_get_attribute(
    data: *mut c_void,
    size: usize,
    attr: CUmem_range_attribute,
    ptr: CUdeviceptr,
    count: usize,
) -> CuResult {
    if data.is_null() {
        return Err(INVALID_VALUE);
    }
    check_query_range(ptr, count)?;
    // SAFETY: checked non-null; the caller provides `size` bytes.
    unsafe { write_attribute(data, size, attr, &states(ptr, count)) }
}

pub(crate) unsafe fn range_get_attributes(
    data: *mut *mut c_void,
    sizes: *mut usize,
    attrs: *mut CUmem_range_attribute,
    n: usize,
    ptr: CUdeviceptr,
    count: usize,
) -> CuResult {
    if n == 0 || data.is_null() || sizes.is_null() || attrs.is_null() {
        return Err(INVALID_VALUE);
    }
    check_query_range(ptr, count)?;
    let st = states(ptr, count);
    for i in 0..n {
        // SAFETY: the three arrays hold `n` entries (API contract).
        let (d, size, attr) = unsafe { (*data.add(i), *sizes.add(i), *attrs.add(i)) };
        if d.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: checked non-null; the caller provides `size` bytes.
        unsafe { write_attribute(d, size, attr, &st)? };
    }
    Ok(())
}

/// The validated ranges of a batch: each non-empty and managed.
unsafe fn batch_ranges(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    flags: u64,
) -> CuResult<Vec<(u64, usize)>> {
    if count == 0 || dptrs.is_null() || sizes.is_null() || flags != 0 {
        return Err(INVALID_VALUE);
    }
    (0..count)
        .map(|i| {
            // SAFETY: both arrays hold `count` entries (API contract).
            let (p, n) = unsafe { (*dptrs.add(i), *sizes.add(i)) };
            if is_managed_range(p, n) {
                Ok((p, n))
            } else {
                Err(INVALID_VALUE)
            }
        })
        .collect()
}

/// The prefetch location of each operation of a batch (see `copy_batch::groups`).
unsafe fn batch_locations(
    locs: *mut CUmemLocation,
    idxs: *mut usize,
    n: usize,
    count: usize,
) -> CuResult<Vec<Loc>> {
    if locs.is_null() || idxs.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: `idxs` holds `n` entries (API contract), checked non-null.
    let idxs = unsafe { std::slice::from_raw_parts(idxs, n) };
    let group = groups(idxs, count)?;
    let all = (0..n)
        // SAFETY: `locs` holds `n` entries.
        .map(|i| Loc::from_location(unsafe { &*locs.add(i) }))
        .collect::<Vec<_>>();
    for l in &all {
        l.check()?;
    }
    Ok(group.into_iter().map(|g| all[g]).collect())
}

unsafe fn discard_and_prefetch(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    prefetch: Option<(*mut CUmemLocation, *mut usize, usize)>,
    flags: u64,
    s: CUstream,
) -> CuResult {
    let t = batch_stream(s)?;
    // SAFETY: forwarded contract.
    let ranges = unsafe { batch_ranges(dptrs, sizes, count, flags)? };
    if let Some((locs, idxs, n)) = prefetch {
        // SAFETY: forwarded contract.
        let locs = unsafe { batch_locations(locs, idxs, n, count)? };
        for ((p, n), l) in ranges.iter().zip(locs) {
            prefetched(*p, *n, l);
        }
    }
    // Ordered in the stream like any work, though it moves nothing.
    stream::submit(&t, Vec::new(), Box::new(|_| {}));
    Ok(())
}

#[allow(clippy::too_many_arguments)] // the driver API's parameter list
pub(crate) unsafe fn prefetch_batch(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    locs: *mut CUmemLocation,
    idxs: *mut usize,
    n: usize,
    flags: u64,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { discard_and_prefetch(dptrs, sizes, count, Some((locs, idxs, n)), flags, s) }
}

pub(crate) unsafe fn discard_batch(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    flags: u64,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { discard_and_prefetch(dptrs, sizes, count, None, flags, s) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_split_merge_and_answer_per_page() {
        let p = page_size();
        let mut m = BTreeMap::new();
        let st = Advice {
            read_mostly: true,
            ..Default::default()
        };
        m.insert(10 * p, (20 * p, st.clone()));
        let runs = take(&mut m, 5 * p, 12 * p);
        assert_eq!(
            runs,
            vec![
                (5 * p, 10 * p, Advice::default()),
                (10 * p, 12 * p, st.clone())
            ]
        );
        // What was outside the window stays.
        assert_eq!(m.get(&(12 * p)), Some(&(20 * p, st)));
        assert_eq!(m.len(), 1);
        assert_eq!(pages(p + 1, 1), (p, 2 * p));
        assert_eq!(pages(p, p as usize), (p, 2 * p));
    }
}
