//! The emulated devices: one profile per GPU (A100, H100, B200), from which every device query
//! (`cuDeviceGetAttribute`, name, memory, UUID, PCI ids) is answered, so a program takes the
//! code paths it would take on that GPU. `CUDA_SHIM_DEVICE` chooses one ([`crate::config::profile`]);
//! this table is plain data and imports nothing of the driver.

use abi::CUdevice_attribute as A;
use std::fmt;

/// Everything the driver reports about the emulated device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The `CUDA_SHIM_DEVICE` value that selects it.
    pub key: &'static str,
    /// `cuDeviceGetName`.
    pub name: &'static str,
    pub cc_major: i32,
    pub cc_minor: i32,
    pub sm_count: i32,
    /// Graphics processing clusters: a thread-block cluster runs on the SMs of one GPC.
    pub gpc_count: i32,
    /// Device memory in bytes (`cuDeviceTotalMem`).
    pub total_mem: u64,
    pub clock_khz: i32,
    pub mem_clock_khz: i32,
    pub mem_bus_width: i32,
    pub l2_bytes: i32,
    pub max_persisting_l2_bytes: i32,
    /// Default per-block limit without opting in (48 KiB on every recent GPU).
    pub shared_per_block: i32,
    /// `cudaFuncSetAttribute(MaxDynamicSharedMemorySize)` may raise a kernel's limit up to this.
    pub shared_per_block_optin: i32,
    pub shared_per_sm: i32,
    pub reserved_shared_per_block: i32,
    pub regs_per_block: i32,
    pub regs_per_sm: i32,
    pub max_threads_per_block: i32,
    pub max_threads_per_sm: i32,
    pub max_blocks_per_sm: i32,
    pub pci_domain: i32,
    pub pci_bus: i32,
    pub pci_device: i32,
    /// PCI vendor/device id as `GPU_PCI_DEVICE_ID` reports it (device << 16 | vendor).
    pub pci_device_id: u32,
    pub pci_subsystem_id: u32,
    pub uuid: [u8; 16],
}

/// Every profile `CUDA_SHIM_DEVICE` can name; the first is the default.
pub static PROFILES: [Profile; 3] = [
    Profile {
        key: "h100",
        name: "NVIDIA H100 80GB HBM3 (libcuda-shim)",
        cc_major: 9,
        cc_minor: 0,
        sm_count: 132,
        gpc_count: 8,
        total_mem: 80 << 30,
        clock_khz: 1_980_000,
        mem_clock_khz: 2_619_000,
        mem_bus_width: 5120,
        l2_bytes: 50 << 20,
        // An H100 SXM (driver 580.159) reports 32768000.
        max_persisting_l2_bytes: 32_768_000,
        shared_per_block: 48 << 10,
        shared_per_block_optin: 227 << 10,
        shared_per_sm: 228 << 10,
        reserved_shared_per_block: 1024,
        regs_per_block: 65536,
        regs_per_sm: 65536,
        max_threads_per_block: 1024,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        pci_domain: 0,
        pci_bus: 0x1b,
        pci_device: 0,
        pci_device_id: 0x2330_10de,
        pci_subsystem_id: 0x16c1_10de,
        uuid: *b"shim-h100-sm90\0\x01",
    },
    Profile {
        key: "a100",
        name: "NVIDIA A100-SXM4-40GB (libcuda-shim)",
        cc_major: 8,
        cc_minor: 0,
        sm_count: 108,
        gpc_count: 8,
        total_mem: 40 << 30,
        clock_khz: 1_410_000,
        mem_clock_khz: 1_215_000,
        mem_bus_width: 5120,
        l2_bytes: 40 << 20,
        max_persisting_l2_bytes: 30 << 20,
        shared_per_block: 48 << 10,
        shared_per_block_optin: 163 << 10,
        shared_per_sm: 164 << 10,
        reserved_shared_per_block: 1024,
        regs_per_block: 65536,
        regs_per_sm: 65536,
        max_threads_per_block: 1024,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        pci_domain: 0,
        pci_bus: 0x07,
        pci_device: 0,
        pci_device_id: 0x20b0_10de,
        pci_subsystem_id: 0x134f_10de,
        uuid: *b"shim-a100-sm80\0\x01",
    },
    Profile {
        key: "b200",
        name: "NVIDIA B200 (libcuda-shim)",
        cc_major: 10,
        cc_minor: 0,
        sm_count: 148,
        gpc_count: 8,
        total_mem: 180 << 30,
        clock_khz: 1_965_000,
        mem_clock_khz: 3_996_000,
        mem_bus_width: 8192,
        l2_bytes: 126 << 20,
        max_persisting_l2_bytes: 79 << 20,
        shared_per_block: 48 << 10,
        shared_per_block_optin: 227 << 10,
        shared_per_sm: 228 << 10,
        reserved_shared_per_block: 1024,
        regs_per_block: 65536,
        regs_per_sm: 65536,
        max_threads_per_block: 1024,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        pci_domain: 0,
        pci_bus: 0x18,
        pci_device: 0,
        pci_device_id: 0x2901_10de,
        pci_subsystem_id: 0x1999_10de,
        uuid: *b"shim-b200-sm100\x01",
    },
];

/// Threads per warp.
pub const WARP: i64 = 32;
/// Register allocation unit (registers per warp are rounded up to it).
pub const REG_UNIT: i64 = 256;
/// Warp schedulers (register file partitions) per SM.
pub const SUB_PARTITIONS: i64 = 4;
/// Most registers a thread can have.
pub const MAX_REGS_PER_THREAD: i64 = 255;
/// Most local memory a thread can have, in bytes: 512 KiB (the CUDA programming guide's
/// per-thread limit) less 576 the driver keeps. A kernel whose `.local` frame
/// (`CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`) is larger loads, but every launch of it is
/// CUDA_ERROR_INVALID_VALUE, whatever the stack limit; and `CU_LIMIT_STACK_SIZE` cannot be set
/// above it. Measured on an H100 and an H200, driver 580.159 (523712 launches, 523720 does not;
/// a stack limit of 523712 is taken, 523713 refused): scripts/ground-truth/results/
/// limits-and-stale-h200.txt. The A100 and B200 profiles are assumed to share it (the guide's
/// 512 KiB holds for every compute capability).
pub const MAX_LOCAL_PER_THREAD: u64 = 523_712;

/// `x` (not negative) rounded up to a multiple of `m`.
pub fn round_up(x: i64, m: i64) -> i64 {
    (x + m - 1) / m * m
}

/// Looks a profile up by its `CUDA_SHIM_DEVICE` key (case-insensitive).
pub fn by_key(key: &str) -> Option<usize> {
    PROFILES
        .iter()
        .position(|p| p.key.eq_ignore_ascii_case(key))
}

impl Profile {
    /// `sm_XY` as a number (90 for sm_90), for choosing the fatbin entry.
    /// The UUID of the `index`th emulated device of this profile (`CUDA_SHIM_DEVICES`): the
    /// last byte counts up from the first device's, so every device's is distinct.
    pub fn uuid_of(&self, index: usize) -> [u8; 16] {
        let mut u = self.uuid;
        u[15] = u[15].wrapping_add(index as u8);
        u
    }

    /// The PCI bus of the `index`th emulated device: one bus per device, counting up, so the
    /// devices' bus ids are distinct and PCI bus order is ordinal order.
    pub fn pci_bus_of(&self, index: usize) -> i32 {
        self.pci_bus + index as i32
    }

    pub fn sm(&self) -> u32 {
        (self.cc_major * 10 + self.cc_minor) as u32
    }

    /// Whether a block of `threads` threads of `num_regs` registers each fits the per-block
    /// register file as the hardware checks it at launch (`cuda_occupancy.h`: registers per
    /// warp rounded up to the allocation unit, the block's warps rounded up to the
    /// sub-partitions, "for historical reasons"), and the per-thread limit. Module loading
    /// (a function's thread limit), launches and the occupancy formula all ask it.
    pub fn regs_fit(&self, num_regs: u32, threads: u64) -> bool {
        let per_warp = round_up(num_regs as i64 * WARP, REG_UNIT);
        let warps = round_up((threads as i64 + WARP - 1) / WARP, SUB_PARTITIONS);
        num_regs as i64 <= MAX_REGS_PER_THREAD && per_warp * warps <= self.regs_per_block as i64
    }

    /// The value `cuDeviceGetAttribute` reports, or `None` for an attribute this driver does
    /// not know (CUDA_ERROR_INVALID_VALUE, as the real driver answers an out-of-range one).
    pub fn attribute(&self, attr: A) -> Option<i32> {
        Some(match attr {
            A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK => self.max_threads_per_block,
            A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X | A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y => 1024,
            A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z => 64,
            A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X => i32::MAX,
            A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y | A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z => 65535,
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK => self.shared_per_block,
            A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY => 65536,
            A::CU_DEVICE_ATTRIBUTE_WARP_SIZE => 32,
            A::CU_DEVICE_ATTRIBUTE_MAX_PITCH => i32::MAX,
            A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK => self.regs_per_block,
            A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE => self.clock_khz,
            A::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT => 512,
            A::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP => 1,
            A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT => self.sm_count,
            // No watchdog on the device itself: `device::get_attribute` reports the one
            // CUDA_SHIM_KERNEL_TIMEOUT sets.
            A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT => 0,
            A::CU_DEVICE_ATTRIBUTE_INTEGRATED => 0,
            A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY => 1,
            A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE => 0,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH => 131072,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH => 131072,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT => 65536,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH => 16384,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS => 2048,
            A::CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT => 512,
            A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS => 1,
            A::CU_DEVICE_ATTRIBUTE_ECC_ENABLED => 0,
            A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID => self.pci_bus,
            A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID => self.pci_device,
            A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID => self.pci_domain,
            A::CU_DEVICE_ATTRIBUTE_TCC_DRIVER => 0,
            A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE => self.mem_clock_khz,
            A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH => self.mem_bus_width,
            A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE => self.l2_bytes,
            A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR => self.max_threads_per_sm,
            A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT => 2,
            A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING => 1,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS => 2048,
            A::CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER => 1,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE => 8192,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE => 32768,
            A::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT => 32,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS => 2046,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH => 131072,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT => 65536,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH => 16384,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH => 16384,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS => 2048,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS => 2048,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH
            | A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS => 2046,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH => 268_435_456,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH => 131072,
            // What an H100 (driver 580.159) reports.
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT => 65000,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH => 2_097_120,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH => 32768,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT => 32768,
            A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR => self.cc_major,
            A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR => self.cc_minor,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH => 32768,
            A::CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => self.shared_per_sm,
            A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR => self.regs_per_sm,
            // Device memory is host memory: managed memory works, and the host may touch it.
            A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY => 1,
            A::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD => 0,
            A::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID => 0,
            A::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO => 2,
            A::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS => 0,
            A::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS => 1,
            A::CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM => 1,
            // Stream memory operations (memory/memops.rs), v1 and v2 APIs alike: 64-bit operands,
            // the NOR condition and, host memory being device memory, the flush of remote
            // writes and atomic reductions. (An H100 under driver 580 reports 0 for the v1
            // attributes, whose API needs a kernel-module option there.)
            A::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1
            | A::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1
            | A::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 => 1,
            A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH => 1,
            // cuLaunchCooperativeKernelMultiDevice works (launch::kernel), as an H200 reports
            // (scripts/ground-truth/results/coop-multi-h200.txt).
            A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH => 1,
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN => self.shared_per_block_optin,
            A::CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES => 1,
            A::CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES => 0,
            A::CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST => 0,
            // cuMemAddressReserve/cuMemCreate/cuMemMap work, and physical allocations export
            // as POSIX file descriptors (memfds).
            A::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED
            | A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR => self.max_blocks_per_sm,
            A::CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE => self.max_persisting_l2_bytes,
            // 128 MiB on an H100 (driver 580.159); 128 MiB - 4 KiB on earlier GPUs.
            A::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE => {
                if self.cc_major >= 9 {
                    134_217_728
                } else {
                    134_213_632
                }
            }
            A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK => {
                self.reserved_shared_per_block
            }
            A::CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED => 0,
            // cuMemHostRegister accepts CU_MEMHOSTREGISTER_READ_ONLY.
            A::CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED => 0,
            // Stream-ordered allocation and device memory pools work (memory/pool.rs); a pool can
            // be exported as a POSIX file descriptor (memory/pool_ipc.rs).
            A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS => 0,
            A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING => 0,
            A::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES => {
                abi::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.0 as i32
            }
            A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH => i32::from(self.cc_major >= 9),
            A::CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS
            | A::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR
            | A::CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED => 0,
            // Interprocess events work between processes running the shim (memory/ipc.rs).
            A::CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT => {
                if self.cc_major >= 9 {
                    4
                } else {
                    1
                }
            }
            A::CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED => i32::from(self.cc_major >= 9),
            A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS => 0,
            A::CU_DEVICE_ATTRIBUTE_NUMA_CONFIG => 0,
            A::CU_DEVICE_ATTRIBUTE_NUMA_ID => -1,
            A::CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED => 0,
            A::CU_DEVICE_ATTRIBUTE_MPS_ENABLED => 0,
            A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID => -1,
            A::CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID => self.pci_device_id as i32,
            A::CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID => self.pci_subsystem_id as i32,
            A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED => 0,
            // cuMemCreate takes host and host-NUMA locations (memory/vmm.rs); memory pools take
            // device locations only.
            A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
            | A::CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED
            | A::CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED => 0,
            a if a.0 < A::CU_DEVICE_ATTRIBUTE_MAX.0 && a.0 > 0 => 0,
            _ => return None,
        })
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gib = self.total_mem as f64 / (1u64 << 30) as f64;
        writeln!(f, "device 0: {} (profile `{}`)", self.name, self.key)?;
        writeln!(
            f,
            "  compute capability {}.{} (sm_{}), {} SMs at {} MHz",
            self.cc_major,
            self.cc_minor,
            self.sm(),
            self.sm_count,
            self.clock_khz / 1000
        )?;
        writeln!(
            f,
            "  memory {gib:.0} GiB, L2 {} MiB, bus {} bits",
            self.l2_bytes >> 20,
            self.mem_bus_width
        )?;
        writeln!(
            f,
            "  per block: {} threads, {} KiB shared ({} KiB opt-in), {} registers",
            self.max_threads_per_block,
            self.shared_per_block >> 10,
            self.shared_per_block_optin >> 10,
            self.regs_per_block
        )?;
        writeln!(
            f,
            "  per SM: {} threads, {} blocks, {} KiB shared, {} registers",
            self.max_threads_per_sm,
            self.max_blocks_per_sm,
            self.shared_per_sm >> 10,
            self.regs_per_sm
        )?;
        writeln!(
            f,
            "  PCI {:04x}:{:02x}:{:02x}.0, UUID {}",
            self.pci_domain,
            self.pci_bus,
            self.pci_device,
            uuid_string(&self.uuid)
        )?;
        let v = abi::DRIVER_VERSION;
        write!(
            f,
            "  driver version {} (CUDA {}.{}); other profiles: {}",
            v,
            v / 1000,
            (v % 1000) / 10,
            PROFILES
                .iter()
                .map(|p| p.key)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, as nvidia-smi prints a UUID.
pub fn uuid_string(u: &[u8; 16]) -> String {
    let h: Vec<String> = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        h[0..4].concat(),
        h[4..6].concat(),
        h[6..8].concat(),
        h[8..10].concat(),
        h[10..16].concat()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cudart_init_attribute_is_answered() {
        for p in &PROFILES {
            for a in 1..A::CU_DEVICE_ATTRIBUTE_MAX.0 {
                assert!(p.attribute(A(a)).is_some(), "{} attr {a}", p.key);
            }
            assert_eq!(p.attribute(A(0)), None);
            assert_eq!(p.attribute(A::CU_DEVICE_ATTRIBUTE_MAX), None);
        }
    }

    #[test]
    fn display_names_the_device() {
        let s = PROFILES[0].to_string();
        assert!(
            s.contains("H100") && s.contains("9.0") && s.contains("132 SMs"),
            "{s}"
        );
    }
}
