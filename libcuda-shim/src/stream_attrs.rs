//! Stream attributes (what `cuStreamGetAttribute`, `cuStreamSetAttribute` and
//! `cuStreamCopyAttributes` read and write): the attributes `cuda.h` marks "valid for streams" (access policy
//! window, synchronization policy, priority, memory synchronization domain and its map, NVLink
//! utilization-centric scheduling), validated as documented, stored per stream and reported
//! back. Priority is the stream's priority (`cuStreamGetPriority` reads it). The others are
//! hints to a GPU's caches, its scheduler or the host thread's way of waiting: on a CPU device
//! they change nothing observable, so storing them is their whole effect.

use crate::config;
use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;

/// A stream's attributes: the value last set for each, else the stream's default.
#[derive(Clone)]
pub struct StreamAttrs(Vec<(CUlaunchAttributeID, CUlaunchAttributeValue)>);

// SAFETY: the values are plain data; the access policy window's base pointer is a program
// address kept as a value, never dereferenced.
unsafe impl Send for StreamAttrs {}

impl StreamAttrs {
    /// The attributes of a new stream created with `priority` (already clamped).
    pub fn new(priority: i32) -> StreamAttrs {
        let mut a = StreamAttrs(Vec::new());
        a.set(
            A::CU_LAUNCH_ATTRIBUTE_PRIORITY,
            value(|v| v.priority = priority),
        );
        a
    }

    pub fn priority(&self) -> i32 {
        // SAFETY: the member this attribute uses.
        unsafe { self.get(A::CU_LAUNCH_ATTRIBUTE_PRIORITY).priority }
    }

    pub(crate) fn set(&mut self, id: CUlaunchAttributeID, v: CUlaunchAttributeValue) {
        match self.0.iter_mut().find(|(i, _)| *i == id) {
            Some(slot) => slot.1 = v,
            None => self.0.push((id, v)),
        }
    }

    /// The value set, else the default: no access policy window, automatic synchronization
    /// policy, priority 0, the default domain mapped to domain 0 and the remote domain to
    /// domain 1 where the device has more than one domain (the programming guide's "by
    /// default, kernels are launched in domain 0" and "remote ... a different domain ID").
    pub(crate) fn get(&self, id: CUlaunchAttributeID) -> CUlaunchAttributeValue {
        if let Some((_, v)) = self.0.iter().find(|(i, _)| *i == id) {
            return *v;
        }
        match id {
            A::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY => {
                value(|v| v.syncPolicy = CUsynchronizationPolicy::CU_SYNC_POLICY_AUTO)
            }
            A::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP => value(|v| {
                v.memSyncDomainMap = CUlaunchMemSyncDomainMap {
                    default_: 0,
                    remote: u8::from(domain_count() > 1),
                }
            }),
            _ => value(|_| {}),
        }
    }
}

/// A requested priority clamped to the range cuCtxGetStreamPriorityRange reports, as the
/// driver does.
pub(crate) fn clamp_priority(p: i32) -> i32 {
    p.clamp(-5, 0)
}

use CUlaunchAttributeID as A;

/// An all-zero attribute value with `f` applied.
fn value(f: impl FnOnce(&mut CUlaunchAttributeValue)) -> CUlaunchAttributeValue {
    // SAFETY: the union is plain data; all-zero bytes are a valid value of each member.
    let mut v: CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
    f(&mut v);
    v
}

fn domain_count() -> i32 {
    let p = config::profile();
    p.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT)
        .unwrap_or(1)
}

/// Whether `id` is a stream attribute and `v` a valid value of it (CUDA_ERROR_INVALID_VALUE
/// otherwise). The access policy window is bounded as `CUaccessPolicyWindow` documents: at
/// most CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE bytes, a hit ratio in [0, 1], a hit
/// property among NORMAL/STREAMING/PERSISTING and a miss property NORMAL or STREAMING.
pub(crate) fn check(id: CUlaunchAttributeID, v: &CUlaunchAttributeValue) -> CuResult {
    let p = config::profile();
    // SAFETY (each arm): the member the id selects, plain data.
    let ok = match id {
        A::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW => {
            let w = unsafe { v.accessPolicyWindow };
            let max = p
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE)
                .unwrap_or(0) as usize;
            w.num_bytes <= max
                && (0.0..=1.0).contains(&w.hitRatio)
                && w.hitProp.0 <= 2
                && w.missProp.0 <= 1
        }
        A::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY => {
            (1..=4).contains(&unsafe { v.syncPolicy }.0)
        }
        // Any priority is accepted and clamped to cuCtxGetStreamPriorityRange, as at creation.
        A::CU_LAUNCH_ATTRIBUTE_PRIORITY => true,
        A::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP => {
            let m = unsafe { v.memSyncDomainMap };
            let n = domain_count();
            i32::from(m.default_) < n && i32::from(m.remote) < n
        }
        A::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN => (unsafe { v.memSyncDomain }).0 <= 1,
        A::CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING => {
            (unsafe { v.nvlinkUtilCentricScheduling }) <= 1
        }
        // Launch-only and graph-node-only attributes, and unknown ids.
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(INVALID_VALUE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_stored_and_defaulted() {
        let mut a = StreamAttrs::new(-3);
        assert_eq!(a.priority(), -3);
        let sync = A::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY;
        // SAFETY: the member each attribute uses.
        unsafe {
            assert_eq!(a.get(sync).syncPolicy.0, 1);
            assert!(check(sync, &value(|v| v.syncPolicy.0 = 5)).is_err());
            let yield_ = value(|v| v.syncPolicy.0 = 3);
            assert!(check(sync, &yield_).is_ok());
            a.set(sync, yield_);
            assert_eq!(a.get(sync).syncPolicy.0, 3);
        }
        // Graph-node and launch-only attributes are not stream attributes.
        assert!(check(A::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &value(|_| {})).is_err());
        assert!(check(A::CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &value(|_| {})).is_err());
        let window = |hit: f32, miss: u32| {
            value(|v| {
                v.accessPolicyWindow.num_bytes = 1 << 20;
                v.accessPolicyWindow.hitRatio = hit;
                v.accessPolicyWindow.missProp.0 = miss;
            })
        };
        let apw = A::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
        assert!(check(apw, &window(0.6, 1)).is_ok());
        assert!(check(apw, &window(1.5, 1)).is_err());
        // A miss property must be NORMAL or STREAMING.
        assert!(check(apw, &window(0.6, 2)).is_err());
    }
}
