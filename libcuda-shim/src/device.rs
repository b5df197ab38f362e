//! `cuInit`, the driver version and the device queries, all answered from the profile.

use crate::config;
use crate::errors::{CuResult, INVALID_DEVICE, INVALID_VALUE};
use abi::*;
use std::ffi::{c_char, c_int};

/// The only device ordinal.
pub const DEVICE: CUdevice = 0;

/// `CUDA_ERROR_INVALID_DEVICE` unless `dev` names the emulated device.
pub fn check(dev: CUdevice) -> CuResult {
    if dev == DEVICE {
        Ok(())
    } else {
        Err(INVALID_DEVICE)
    }
}

pub(crate) unsafe fn get(device: *mut CUdevice, ordinal: c_int) -> CuResult {
    if device.is_null() {
        return Err(INVALID_VALUE);
    }
    if ordinal != 0 {
        return Err(INVALID_DEVICE);
    }
    // SAFETY: checked non-null.
    unsafe { *device = DEVICE };
    Ok(())
}

pub(crate) unsafe fn get_count(count: *mut c_int) -> CuResult {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    unsafe { *count = 1 };
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
    let bytes = config::profile().uuid.map(|b| b as c_char);
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
    let v = match attrib {
        // 1 with a watchdog (CUDA_SHIM_KERNEL_TIMEOUT), as a display GPU reports it.
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT => {
            i32::from(config::kernel_timeout().is_some())
        }
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

/// `0000:1b:00.0`, the format `cuDeviceGetPCIBusId` uses.
pub fn pci_bus_id() -> String {
    let p = config::profile();
    format!(
        "{:04x}:{:02x}:{:02x}.0",
        p.pci_domain, p.pci_bus, p.pci_device
    )
}

pub(crate) unsafe fn get_pci_bus_id(bus_id: *mut c_char, len: c_int, dev: CUdevice) -> CuResult {
    if bus_id.is_null() || len <= 0 {
        return Err(INVALID_VALUE);
    }
    check(dev)?;
    // SAFETY: forwarded contract.
    unsafe { write_c_string(bus_id, len, &pci_bus_id()) }
}

pub(crate) unsafe fn get_by_pci_bus_id(dev: *mut CUdevice, bus_id: *const c_char) -> CuResult {
    if dev.is_null() || bus_id.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the API takes a NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr(bus_id) }
        .to_string_lossy()
        .to_ascii_lowercase();
    let ours = pci_bus_id();
    // Accept the short form without the domain, as the real driver does.
    if text == ours || ours.ends_with(&text) && text.len() >= 7 {
        // SAFETY: checked non-null.
        unsafe { *dev = DEVICE };
        Ok(())
    } else {
        Err(INVALID_DEVICE)
    }
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

/// cuDeviceGetP2PAttribute: there is one emulated device, so no pair of distinct devices exists;
/// the documented answer for the same device twice (or an invalid one) is
/// CUDA_ERROR_INVALID_DEVICE. The value and attribute are checked first.
pub(crate) unsafe fn get_p2p_attribute(
    value: *mut c_int,
    attrib: CUdevice_P2PAttribute,
    src: CUdevice,
    dst: CUdevice,
) -> CuResult {
    // Attributes 1 (performance rank) to 5 (only partial native atomics).
    if value.is_null() || !(1..=5).contains(&attrib.0) {
        return Err(INVALID_VALUE);
    }
    check(src)?;
    check(dst)?;
    Err(INVALID_DEVICE)
}
