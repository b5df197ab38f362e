//! Several emulated devices (`CUDA_SHIM_DEVICES`), `CUDA_VISIBLE_DEVICES` and
//! `CUDA_DEVICE_ORDER`: tests/cuda/devices.cu and tests/cuda/devices_halo.cu, whose expected
//! values come from the CUDA documentation or a CPU computation in the program.

use std::path::PathBuf;
use std::process::Output;
use std::sync::OnceLock;
use tests::*;

fn devices_exe() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let lib = lib_dir();
        nvcc(
            "devices",
            "devices",
            &["-L", lib.to_str().unwrap(), "-lcuda"],
        )
    })
}

fn run(args: &[&str], envs: &[(&str, &str)]) -> Output {
    std::process::Command::new(devices_exe())
        .args(args)
        .env("LD_PRELOAD", &shim().library)
        .env_remove("CUDA_VISIBLE_DEVICES")
        .env_remove("CUDA_DEVICE_ORDER")
        .envs(envs.iter().copied())
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An array split over 2 and over 4 devices, halos exchanged by peer copies each step: the
/// result equals the CPU's stencil over the whole array.
#[test]
fn halo_exchange_over_two_and_four_devices() {
    let exe = nvcc("devices_halo", "devices_halo", &[]);
    for n in ["2", "4"] {
        let out = std::process::Command::new(&exe)
            .arg(n)
            .env("LD_PRELOAD", &shim().library)
            .env("CUDA_SHIM_DEVICES", n)
            .output()
            .unwrap();
        assert_pass(&format!("devices_halo over {n} devices"), &out);
    }
}

/// Count, UUIDs, PCI ids, the peer matrix, peer access codes, per-device memory budgets,
/// pointer attributes, contexts and threads on several devices.
#[test]
fn device_queries_and_peer_access() {
    for n in ["2", "3"] {
        let out = run(&["query", n], &[("CUDA_SHIM_DEVICES", n)]);
        assert_pass(&format!("devices query with {n} devices"), &out);
    }
}

/// A kernel on device 0 reads device 1's memory through its pointer after peer access is
/// enabled, and device 1 adds atomically into device 0's.
#[test]
fn kernels_use_peer_pointers() {
    let out = run(&["peer"], &[("CUDA_SHIM_DEVICES", "2")]);
    assert_pass("devices peer", &out);
}

/// Without peer access a kernel faults on another device's memory (as a GPU does) but reads
/// managed memory; the fault is reported naming the device.
#[test]
fn kernels_fault_on_another_devices_memory_without_peer_access() {
    let out = run(&["nopeer"], &[("CUDA_SHIM_DEVICES", "2")]);
    assert_pass("devices nopeer", &out);
    assert!(
        stderr(&out).contains("peer access is not enabled"),
        "{}",
        stderr(&out)
    );
}

/// The devices' UUID and PCI lines, unrestricted, in ordinal order.
fn all_devices(n: &str) -> Vec<String> {
    let out = run(&["uuids"], &[("CUDA_SHIM_DEVICES", n)]);
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// CUDA_VISIBLE_DEVICES selects and reorders devices by index or UUID (documented: the
/// ordinals are the listed devices in the listed order); the list ends at its first entry
/// that names no device, which is reported; a list naming none leaves no device.
#[test]
fn visible_devices_select_and_reorder() {
    let all = all_devices("4");
    assert_eq!(all.len(), 4, "{all:?}");
    let lines = |idx: &[usize]| {
        idx.iter()
            .map(|&i| all[i].clone())
            .collect::<Vec<_>>()
            .join(";")
    };
    // Device 3's whole UUID (the devices' UUIDs differ only in their last byte, so a short
    // prefix would name several: an invalid entry).
    let uuid3 = format!("GPU-{}", all[3].split(' ').next().unwrap());
    for (list, want, complains) in [
        ("2,0", vec![2, 0], false),
        ("3", vec![3], false),
        (&*format!("{uuid3},1"), vec![3, 1], false),
        ("1,9,0", vec![1], true),
        ("0,x", vec![0], true),
        ("1,1,2", vec![1], true),
        ("2,GPU-", vec![2], true),
    ] {
        let n = want.len().to_string();
        let out = run(
            &["visible", &n, &lines(&want)],
            &[("CUDA_SHIM_DEVICES", "4"), ("CUDA_VISIBLE_DEVICES", list)],
        );
        assert_pass(&format!("CUDA_VISIBLE_DEVICES={list}"), &out);
        assert_eq!(
            stderr(&out).contains("CUDA_VISIBLE_DEVICES"),
            complains,
            "CUDA_VISIBLE_DEVICES={list}: {}",
            stderr(&out)
        );
    }
    for list in ["", "-1", "4", "GPU-ffff"] {
        let out = run(
            &["nodevice"],
            &[("CUDA_SHIM_DEVICES", "4"), ("CUDA_VISIBLE_DEVICES", list)],
        );
        assert_pass(&format!("CUDA_VISIBLE_DEVICES={list:?}"), &out);
    }
}

/// CUDA_DEVICE_ORDER: both orders the driver knows give ordinal order (the emulated devices
/// are identical and numbered by PCI bus); any other value is reported at cuInit.
#[test]
fn device_order() {
    let all = all_devices("3").join(";");
    for order in ["FASTEST_FIRST", "PCI_BUS_ID"] {
        let out = run(
            &["visible", "3", &all],
            &[("CUDA_SHIM_DEVICES", "3"), ("CUDA_DEVICE_ORDER", order)],
        );
        assert_pass(&format!("CUDA_DEVICE_ORDER={order}"), &out);
        assert!(
            !stderr(&out).contains("CUDA_DEVICE_ORDER"),
            "{}",
            stderr(&out)
        );
    }
    let out = run(
        &["visible", "3", &all],
        &[
            ("CUDA_SHIM_DEVICES", "3"),
            ("CUDA_DEVICE_ORDER", "SLOWEST_FIRST"),
        ],
    );
    assert_pass("CUDA_DEVICE_ORDER=SLOWEST_FIRST", &out);
    assert!(
        stderr(&out).contains("CUDA_DEVICE_ORDER"),
        "{}",
        stderr(&out)
    );
}

/// A bad CUDA_SHIM_DEVICES (0, too many, not a number) is reported at startup and one device
/// is emulated, as by default.
#[test]
fn bad_device_counts_are_reported() {
    let one = all_devices("1");
    assert_eq!(one.len(), 1);
    for bad in ["0", "17", "many"] {
        let out = run(&["visible", "1", &one[0]], &[("CUDA_SHIM_DEVICES", bad)]);
        assert_pass(&format!("CUDA_SHIM_DEVICES={bad}"), &out);
        assert!(
            stderr(&out).contains("CUDA_SHIM_DEVICES"),
            "CUDA_SHIM_DEVICES={bad}: {}",
            stderr(&out)
        );
    }
}
