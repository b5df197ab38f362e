//! The device queries, all answered from the profile. There are `CUDA_SHIM_DEVICES` emulated
//! devices of one profile (default 1), of which `CUDA_VISIBLE_DEVICES` makes some visible: a
//! `CUdevice` is an ordinal among the visible ones, and [`emulated`] names which emulated
//! device it is (that decides its UUID and PCI bus id, so they follow it when reordered).

use crate::config;
use crate::errors::{CuResult, INVALID_DEVICE, INVALID_VALUE};
use abi::*;
use std::ffi::{c_char, c_int};

/// The first device ordinal, the one a single-device program uses.
pub const DEVICE: CUdevice = 0;

/// How many devices the program sees.
pub fn count() -> usize {
    config::visible_devices().len()
}

/// `CUDA_ERROR_INVALID_DEVICE` unless `dev` is the ordinal of a visible device.
pub fn check(dev: CUdevice) -> CuResult {
    if dev >= 0 && (dev as usize) < count() {
        Ok(())
    } else {
        Err(INVALID_DEVICE)
    }
}

/// Which emulated device the ordinal `dev` (checked) is.
pub fn emulated(dev: CUdevice) -> usize {
    config::visible_devices()
        .get(dev as usize)
        .copied()
        .unwrap_or(0)
}

pub(crate) unsafe fn get(device: *mut CUdevice, ordinal: c_int) -> CuResult {
    if device.is_null() {
        return Err(INVALID_VALUE);
    }
    check(ordinal)?;
    // SAFETY: checked non-null.
    unsafe { *device = ordinal };
    Ok(())
}

pub(crate) unsafe fn get_count(count: *mut c_int) -> CuResult {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    unsafe { *count = self::count() as c_int };
    Ok(())
}

/// Copies `text` NUL-terminated into `out[..len]`, truncating as the driver does.
unsafe fn write_c_string(out: *mut c_char, len: c_int, text: &str) -> CuResult {
    if out.is_null() || len <= 0 {
        return Err(INVALID_VALUE);
    }
    let n = text.len().min(len as usize - 1);
    // SAFETY: `out` is non-null with room for `len` bytes (the API contract); n + 1 <= len.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), out as *mut u8, n);
        *out.add(n) = 0;
    }
    Ok(())
}

pub(crate) unsafe fn get_name(name: *mut c_char, len: c_int, dev: CUdevice) -> CuResult {
    if name.is_null() {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    // SAFETY: forwarded contract.
    unsafe { write_c_string(name, len, config::profile().name) }
}

pub(crate) unsafe fn get_uuid(uuid: *mut CUuuid, dev: CUdevice) -> CuResult {
    if uuid.is_null() {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    let bytes = config::profile()
        .uuid_of(emulated(dev))
        .map(|b| b as c_char);
    // SAFETY: checked non-null; CUuuid is 16 bytes.
    unsafe { (*uuid).bytes = bytes };
    Ok(())
}

pub(crate) unsafe fn total_mem(bytes: *mut usize, dev: CUdevice) -> CuResult {
    if bytes.is_null() {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    // SAFETY: checked non-null.
    unsafe { *bytes = config::profile().total_mem as usize };
    Ok(())
}

pub(crate) unsafe fn get_attribute(
    value: *mut c_int,
    attrib: CUdevice_attribute,
    dev: CUdevice,
) -> CuResult {
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    use CUdevice_attribute as A;
    let v = match attrib {
        // 1 with a watchdog (CUDA_SHIM_KERNEL_TIMEOUT), as a display GPU reports it.
        A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT => i32::from(config::kernel_timeout().is_some()),
        A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID => config::profile().pci_bus_of(emulated(dev)),
        // Each emulated device is a board of its own (MULTI_GPU_BOARD stays 0), so each has a
        // board group of its own.
        A::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID => emulated(dev) as i32,
        _ => config::profile().attribute(attrib).ok_or(INVALID_VALUE)?,
    };
    // SAFETY: checked non-null.
    unsafe { *value = v };
    Ok(())
}

pub(crate) unsafe fn get_properties(prop: *mut CUdevprop, dev: CUdevice) -> CuResult {
    if prop.is_null() {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    let p = config::profile();
    let a = |x| p.attribute(x).unwrap_or(0);
    use CUdevice_attribute as A;
    let props = CUdevprop {
        maxThreadsPerBlock: p.max_threads_per_block,
        maxThreadsDim: [
            a(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
            a(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
            a(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
        ],
        maxGridSize: [
            a(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
            a(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
            a(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
        ],
        sharedMemPerBlock: p.shared_per_block,
        totalConstantMemory: a(A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY),
        SIMDWidth: 32,
        memPitch: a(A::CU_DEVICE_ATTRIBUTE_MAX_PITCH),
        regsPerBlock: p.regs_per_block,
        clockRate: p.clock_khz,
        textureAlign: a(A::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT),
    };
    // SAFETY: checked non-null.
    unsafe { *prop = props };
    Ok(())
}

pub(crate) unsafe fn compute_capability(
    major: *mut c_int,
    minor: *mut c_int,
    dev: CUdevice,
) -> CuResult {
    if major.is_null() || minor.is_null() {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    let p = config::profile();
    // SAFETY: both checked non-null.
    unsafe {
        *major = p.cc_major;
        *minor = p.cc_minor;
    }
    Ok(())
}

/// `0000:1b:00.0`, the format `cuDeviceGetPCIBusId` uses, of the device `dev` (checked).
pub fn pci_bus_id(dev: CUdevice) -> String {
    let p = config::profile();
    format!(
        "{:04x}:{:02x}:{:02x}.0",
        p.pci_domain,
        p.pci_bus_of(emulated(dev)),
        p.pci_device
    )
}

pub(crate) unsafe fn get_pci_bus_id(bus_id: *mut c_char, len: c_int, dev: CUdevice) -> CuResult {
    if bus_id.is_null() || len <= 0 {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    // SAFETY: forwarded contract.
    unsafe { write_c_string(bus_id, len, &pci_bus_id(dev)) }
}

pub(crate) unsafe fn get_by_pci_bus_id(dev: *mut CUdevice, bus_id: *const c_char) -> CuResult {
    if dev.is_null() || bus_id.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the API takes a NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr(bus_id) }
        .to_string_lossy()
        .to_ascii_lowercase();
    // Accept the short form without the domain, as the real driver does.
    let found = (0..count() as CUdevice).find(|&d| {
        let ours = pci_bus_id(d);
        text == ours || ours.ends_with(&text) && text.len() >= 7
    });
    let found = found.ok_or(INVALID_DEVICE)?;
    // SAFETY: checked non-null.
    unsafe { *dev = found };
    Ok(())
}

pub(crate) unsafe fn module_loading_mode(mode: *mut CUmoduleLoadingMode) -> CuResult {
    if mode.is_null() {
        return Err(INVALID_VALUE);
    }
    // Lazy (2) is what a real driver reports by default; cudart then registers modules at
    // their first use, which is the sequence the contract documents.
    // SAFETY: checked non-null.
    unsafe { *mode = CUmoduleLoadingMode::CU_MODULE_LAZY_LOADING };
    Ok(())
}

/// cuDeviceCanAccessPeer: every emulated device reaches every other one (they share the
/// host's memory), and none is its own peer: a real H200 answers 0 for (0, 0)
/// (scripts/ground-truth/results, driver 580.159).
pub(crate) unsafe fn can_access_peer(can: *mut c_int, dev: CUdevice, peer: CUdevice) -> CuResult {
    if can.is_null() {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    check(peer)?;
    // SAFETY: checked non-null.
    unsafe { *can = c_int::from(dev != peer) };
    Ok(())
}

/// cuDeviceGetP2PAttribute for two distinct devices (the same device twice is
/// CUDA_ERROR_INVALID_DEVICE, as documented). The emulated devices are connected as GPUs on
/// one NVLink switch: access and native atomics supported, CUDA arrays too, one performance
/// rank for every pair. The value and attribute are checked first.
pub(crate) unsafe fn get_p2p_attribute(
    value: *mut c_int,
    attrib: CUdevice_P2PAttribute,
    src: CUdevice,
    dst: CUdevice,
) -> CuResult {
    use CUdevice_P2PAttribute as P;
    // Attributes 1 (performance rank) to 5 (only partial native atomics).
    if value.is_null() || !(1..=5).contains(&attrib.0) {
        return Err(INVALID_VALUE);
    }
    check(src)?;
    check(dst)?;
    if src == dst {
        return Err(INVALID_DEVICE);
    }
    let v = match attrib {
        P::CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK => 0,
        P::CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED => 0,
        // Access, native atomics, CUDA array access.
        _ => 1,
    };
    // SAFETY: checked non-null.
    unsafe { *value = v };
    Ok(())
}
