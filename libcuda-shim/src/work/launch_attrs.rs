//! The launch attributes a kernel node keeps.

use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;

/// The launch attributes of a kernel node, as `cuGraphKernelNode{Get,Set}Attribute` and
/// `cuGraphKernelNodeCopyAttributes` see them: the last value set for each attribute a kernel
/// node takes. A replay runs with the cluster shape set here (an explicit one, 1x1x1 included,
/// makes `%is_explicit_cluster` true); the others are scheduling hints on one emulated device
/// (priority, cluster scheduling policy, access policy window, memory sync domain, carveout),
/// stored and reported back but without effect.
#[derive(Clone, Default)]
pub struct LaunchAttrs(Vec<(CUlaunchAttributeID, CUlaunchAttributeValue)>);

impl LaunchAttrs {
    /// Whether a kernel node takes attribute `id` with `value`. Launch-only attributes
    /// (synchronization policy, programmatic serialization and events, launch completion event:
    /// graphs express these as edges) and unknown ids are CUDA_ERROR_INVALID_VALUE, as the driver
    /// documents for node attributes; a cooperative or device-updatable node, which this driver
    /// cannot replay, is CUDA_ERROR_NOT_SUPPORTED rather than recorded and run wrongly.
    pub fn check(id: CUlaunchAttributeID, value: &CUlaunchAttributeValue) -> CuResult {
        use CUlaunchAttributeID as A;
        match id {
            A::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
            | A::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            | A::CU_LAUNCH_ATTRIBUTE_PRIORITY
            | A::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP
            | A::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN
            | A::CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION
            | A::CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
            | A::CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING
            | A::CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE
            | A::CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE => Ok(()),
            A::CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => {
                // SAFETY: the member this id selects; every bit pattern is a valid u32 enum.
                let p = unsafe { value.clusterSchedulingPolicyPreference };
                // DEFAULT, SPREAD, LOAD_BALANCING, RUBIN_DSMEM_LOCALITY.
                if p.0 <= 3 {
                    Ok(())
                } else {
                    Err(INVALID_VALUE)
                }
            }
            // SAFETY (both): the member the id selects, a plain integer.
            A::CU_LAUNCH_ATTRIBUTE_COOPERATIVE if unsafe { value.cooperative } == 0 => Ok(()),
            A::CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE
                if unsafe { value.deviceUpdatableKernelNode.deviceUpdatable } == 0 =>
            {
                Ok(())
            }
            A::CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            | A::CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE => {
                Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
            }
            _ => Err(INVALID_VALUE),
        }
    }

    /// Sets `id` (already [`check`](Self::check)ed).
    pub fn set(&mut self, id: CUlaunchAttributeID, value: CUlaunchAttributeValue) {
        match self.0.iter_mut().find(|(i, _)| *i == id) {
            Some(slot) => slot.1 = value,
            None => self.0.push((id, value)),
        }
    }

    /// The value of `id`: the one set, else zero (the attribute's default: no cluster shape,
    /// priority 0, default policies).
    pub fn get(&self, id: CUlaunchAttributeID) -> CUlaunchAttributeValue {
        self.0
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, v)| *v)
            // SAFETY: the union is plain data; all-zero bytes are a valid value of each member.
            .unwrap_or_else(|| unsafe { std::mem::zeroed() })
    }

    /// The attributes of a `cuLaunchKernelEx` configuration a kernel node keeps, as stream
    /// capture records them; launch-only ones are dropped (the capture's edges already order
    /// the node after the preceding work, a stronger ordering than programmatic serialization).
    pub fn from_launch(attrs: &[CUlaunchAttribute]) -> LaunchAttrs {
        let mut out = LaunchAttrs::default();
        for a in attrs {
            if LaunchAttrs::check(a.id, &a.value).is_ok() {
                out.set(a.id, a.value);
            }
        }
        out
    }

    /// The cluster shape set (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), None when unset or
    /// all zero (no shape named: the function's required one, else single-CTA clusters).
    pub fn cluster(&self) -> Option<[u32; 3]> {
        let id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        self.0.iter().find(|(i, _)| *i == id).and_then(|(_, v)| {
            // SAFETY: `clusterDim` is the member this attribute uses.
            let d = unsafe { v.clusterDim };
            let d = [d.x, d.y, d.z];
            (d != [0, 0, 0]).then_some(d)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(
        id: CUlaunchAttributeID,
        set: impl FnOnce(&mut CUlaunchAttributeValue),
    ) -> CUlaunchAttribute {
        // SAFETY: an all-zero union of plain data is valid.
        let mut value: CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
        set(&mut value);
        CUlaunchAttribute {
            id,
            pad: [0; 4],
            value,
        }
    }

    /// What a kernel node keeps of a launch configuration: the cluster shape (last one wins,
    /// all-zero meaning none) and hints such as the priority; launch-only attributes dropped.
    #[test]
    fn launch_attributes_a_kernel_node_keeps() {
        use CUlaunchAttributeID as A;
        let cluster = |x, y, z| {
            attr(A::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, |v| {
                v.clusterDim.x = x;
                v.clusterDim.y = y;
                v.clusterDim.z = z;
            })
        };
        assert_eq!(LaunchAttrs::from_launch(&[]).cluster(), None);
        let a = LaunchAttrs::from_launch(&[
            cluster(4, 1, 1),
            attr(A::CU_LAUNCH_ATTRIBUTE_PRIORITY, |v| v.priority = -2),
            attr(
                A::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                |v| v.programmaticStreamSerializationAllowed = 1,
            ),
            cluster(2, 1, 4),
        ]);
        assert_eq!(a.cluster(), Some([2, 1, 4]));
        // SAFETY: the member each id selects.
        unsafe {
            assert_eq!(a.get(A::CU_LAUNCH_ATTRIBUTE_PRIORITY).priority, -2);
            let p = a.get(A::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
            assert_eq!(p.programmaticStreamSerializationAllowed, 0);
        }
        assert_eq!(a.0.len(), 2);
        assert_eq!(
            LaunchAttrs::from_launch(&[cluster(0, 0, 0)]).cluster(),
            None
        );
        assert_eq!(
            LaunchAttrs::from_launch(&[cluster(1, 1, 1)]).cluster(),
            Some([1, 1, 1])
        );
        let check = |a: CUlaunchAttribute| LaunchAttrs::check(a.id, &a.value);
        assert_eq!(check(cluster(2, 1, 1)), Ok(()));
        let policy = |p| {
            attr(
                A::CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
                |v| v.clusterSchedulingPolicyPreference = CUclusterSchedulingPolicy(p),
            )
        };
        assert_eq!(check(policy(1)), Ok(()));
        assert_eq!(check(policy(9)), Err(INVALID_VALUE));
        let coop = |c| attr(A::CU_LAUNCH_ATTRIBUTE_COOPERATIVE, |v| v.cooperative = c);
        assert_eq!(check(coop(0)), Ok(()));
        assert_eq!(check(coop(1)), Err(CUresult::CUDA_ERROR_NOT_SUPPORTED));
        let sync = attr(A::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, |_| {});
        assert_eq!(check(sync), Err(INVALID_VALUE));
        assert_eq!(
            check(attr(CUlaunchAttributeID(0), |_| {})),
            Err(INVALID_VALUE)
        );
        assert_eq!(
            check(attr(CUlaunchAttributeID(99), |_| {})),
            Err(INVALID_VALUE)
        );
    }
}
