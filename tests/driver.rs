//! The driver surface with the real driver's semantics: streams and events (asynchronous, the
//! default streams' synchronisation rules), memory (2D/3D copies, memsets, managed and pinned
//! memory, stream-ordered allocation), errors (sticky faults, reset) and the export table
//! (every function `cuda.h` declares). Expected values come from the CUDA documentation.

use std::process::Command;
use tests::*;

#[test]
fn streams_and_events_legacy_default_stream() {
    let exe = nvcc("streams", "streams", &[]);
    assert_pass("streams legacy", &run_preloaded(&exe, &[]));
    let out = Command::new(&exe)
        .arg("legacy")
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    assert_pass("streams legacy", &out);
}

#[test]
fn streams_and_events_per_thread_default_stream() {
    // nvcc's per-thread mode makes cudart call the `_ptsz`/`_ptds` entry points.
    let exe = nvcc(
        "streams",
        "streams_ptds",
        &["--default-stream", "per-thread"],
    );
    let out = Command::new(&exe)
        .arg("ptds")
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    assert_pass("streams ptds", &out);
}

#[test]
fn device_reset_clears_the_sticky_error() {
    let exe = nvcc("sticky_reset", "sticky_reset", &[]);
    let out = run_preloaded(&exe, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "sticky_reset crashed: {stderr}");
    assert_eq!(stdout.trim(), STICKY_RESET_STDOUT, "stderr:\n{stderr}");
}

#[test]
fn every_function_in_cuda_h_is_exported_by_the_library() {
    // The dynamic symbol table of the built library against the names bindgen found in the
    // pinned cuda.h (abi/src/functions.rs).
    let functions = std::fs::read_to_string(repo().join("abi/src/functions.rs")).unwrap();
    let declared: Vec<&str> = functions
        .split("pub fn ")
        .skip(1)
        .map(|rest| &rest[..rest.find('(').unwrap()])
        .collect();
    assert!(declared.len() > 400);
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&shim().library)
        .output()
        .expect("cannot run nm");
    assert!(out.status.success());
    let symbols = String::from_utf8_lossy(&out.stdout);
    let exported: std::collections::HashSet<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let missing: Vec<_> = declared
        .iter()
        .filter(|f| !exported.contains(**f))
        .collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    // The per-thread variants cuda.h names through __CUDA_API_PTDS/__CUDA_API_PTSZ.
    for name in [
        "cuMemcpyHtoD_v2_ptds",
        "cuMemcpy2DAsync_v2_ptsz",
        "cuMemcpyAtoH_v2_ptds",
        "cuLaunchKernel_ptsz",
        "cuStreamGetCtx_ptsz",
    ] {
        assert!(exported.contains(name), "{name} not exported");
    }
}

#[test]
fn pitched_2d_3d_peer_managed_registered_and_pooled_memory() {
    let exe = nvcc("memory2d", "memory2d", &[]);
    assert_pass("memory2d", &run_preloaded(&exe, &[]));
}

#[test]
fn virtual_memory_management_aliases_views_and_faults_unmapped_access() {
    let lib = lib_dir();
    let exe = nvcc("vmm", "vmm", &["-L", lib.to_str().unwrap(), "-lcuda"]);
    let out = run_preloaded(&exe, &[]);
    assert_pass("vmm", &out);
    // The fault report names the kernel.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("fill"), "stderr:\n{stderr}");
}

#[test]
fn function_attributes_and_occupancy_follow_the_documented_formula() {
    let lib = lib_dir();
    let exe = nvcc(
        "occupancy",
        "occupancy",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("occupancy", &run_preloaded(&exe, &[]));
}

#[test]
fn registers_and_function_attributes_as_ptxas_and_the_gpu_report_them() {
    // Registers per thread against `ptxas -v`, the launches they allow or refuse, the JIT
    // register limit, constSizeBytes and ptxVersion (see the program's header comment).
    let lib = lib_dir();
    let exe = nvcc(
        "registers",
        "registers",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("registers", &run_preloaded(&exe, &[]));
}

#[test]
fn modules_libraries_memory_accounting_and_pointer_attributes() {
    let lib = lib_dir();
    let exe = nvcc(
        "modules_memory",
        "modules_memory",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("modules_memory", &run_preloaded(&exe, &[]));
}

#[test]
fn cuda_arrays_every_kind_and_copy_form() {
    let lib = lib_dir();
    let exe = nvcc("arrays", "arrays", &["-L", lib.to_str().unwrap(), "-lcuda"]);
    assert_pass("arrays", &run_preloaded(&exe, &[]));
}

#[test]
fn remaining_queries_answer_as_documented_for_one_device() {
    let lib = lib_dir();
    let exe = nvcc(
        "queries",
        "queries",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("queries", &run_preloaded(&exe, &[]));
}

#[test]
fn stream_attributes_memory_operations_range_attributes_and_batched_copies() {
    let lib = lib_dir();
    let exe = nvcc(
        "stream_memops",
        "stream_memops",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("stream_memops", &run_preloaded(&exe, &[]));
    // The same calls through their `_ptsz` variants (cuda.h maps the names to them in
    // per-thread default stream mode).
    let exe = nvcc(
        "stream_memops",
        "stream_memops_ptds",
        &[
            "-L",
            lib.to_str().unwrap(),
            "-lcuda",
            "--default-stream",
            "per-thread",
        ],
    );
    assert_pass("stream_memops ptds", &run_preloaded(&exe, &[]));
}

/// Module variables read zeros past their initializers (and wholly without one) even when
/// the module reuses memory an unloaded module left dirty (numba-cuda's `.const` arrays with
/// short initializers).
#[test]
fn module_variables_are_zero_filled_past_their_initializers() {
    let lib = lib_dir();
    let exe = nvcc(
        "globals_zero_fill",
        "globals_zero_fill",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("globals_zero_fill", &run_preloaded(&exe, &[]));
}

/// Fault injection (`CUDA_SHIM_INJECT`, README), from a program built with nvcc and cudart:
/// failing calls, a memory budget, kernel faults that surface as real ones do (at the next
/// synchronisation, sticky), and a seeded rate that repeats. Expected codes: cudart's mapping
/// of each driver error; see tests/cuda/fault_injection.cu.
#[test]
fn fault_injection() {
    let exe = nvcc("fault_injection", "fault_injection", &[]);
    let run = |rules: &str, args: &[&str]| {
        let out = Command::new(&exe)
            .args(args)
            .env("LD_PRELOAD", &shim().library)
            .env("CUDA_SHIM_INJECT", rules)
            .output()
            .unwrap();
        assert_pass(&format!("fault_injection {args:?} with {rules:?}"), &out)
    };
    run("cuMemAlloc:nth=2:error=OUT_OF_MEMORY", &["alloc"]);
    for fault in [
        "illegal-address",
        "misaligned",
        "trap",
        "assert",
        "stack-overflow",
        "hardware-stack",
        "illegal-instruction",
        "timeout",
    ] {
        let rule = format!("kernel=scale:nth=2:fault={fault}:block=1:thread=3");
        run(&rule, &["kernel", fault]);
    }
    run("alloc-budget=64M", &["budget"]);
    let rate = "cuEventQuery:rate=0.25:seed=3:error=NOT_READY";
    let first = run(rate, &["rate"]);
    assert_eq!(
        first,
        run(rate, &["rate"]),
        "a seeded rate must repeat exactly"
    );
    // The trace says what was injected, and where.
    let trace = build_dir().join("fault_injection.trace");
    let out = Command::new(&exe)
        .arg("alloc")
        .env("LD_PRELOAD", &shim().library)
        .env("CUDA_SHIM_INJECT", "cuMemAlloc:nth=2:error=OUT_OF_MEMORY")
        .env("CUDA_SHIM_TRACE", &trace)
        .output()
        .unwrap();
    assert_pass("fault_injection traced", &out);
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(
        trace.contains(
            "injected CUDA_ERROR_OUT_OF_MEMORY into cuMemAlloc_v2 (its call 2 matching rule \
             \"cuMemAlloc:nth=2:error=OUT_OF_MEMORY\")"
        ),
        "{trace}"
    );
    // `cuda-shim run --inject` is the same; a bad rule is reported, not ignored silently.
    let out = Command::new(&shim().cli)
        .args([
            "run",
            "--inject",
            "cuMemAlloc:nth=2:error=OUT_OF_MEMORY;bogus:nth=0",
            "--",
        ])
        .arg(&exe)
        .arg("alloc")
        .output()
        .unwrap();
    assert_pass("cuda-shim run --inject", &out);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "CUDA_SHIM_INJECT: rule \"bogus:nth=0\" ignored: nth=\"0\" is not a positive number"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The watchdog (`CUDA_SHIM_KERNEL_TIMEOUT`): an endless kernel ends with
/// cudaErrorLaunchTimeout (sticky, as a display GPU's watchdog leaves it), the device says
/// its kernels have a time limit, and the report says where the warps were.
#[test]
fn kernel_timeout_watchdog() {
    // Its own executable: another test of this file builds and runs `fault_injection` at the
    // same time.
    let exe = nvcc("fault_injection", "fault_injection_watchdog", &[]);
    let start = std::time::Instant::now();
    let out = Command::new(&exe)
        .arg("watchdog")
        .env("LD_PRELOAD", &shim().library)
        .env("CUDA_SHIM_KERNEL_TIMEOUT", "0.5")
        .output()
        .unwrap();
    assert_pass("fault_injection watchdog", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ran longer than the 0.500 s limit (CUDA_SHIM_KERNEL_TIMEOUT)")
            && stderr.contains("at PTX line"),
        "{stderr}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
}

/// Seeded schedules (`CUDA_SHIM_SCHEDULE=seed:N`): a racy program gives the same answer for
/// the same seed and other answers for other seeds; see tests/cuda/schedule_race.cu. (Which
/// answers appear is the interleaving; the program checks each is a valid execution.)
#[test]
fn seeded_schedules_reproduce_and_explore_races() {
    let exe = nvcc("schedule_race", "schedule_race", &[]);
    let run = |seed: u64| {
        let out = run_preloaded(&exe, &[("CUDA_SHIM_SCHEDULE", &format!("seed:{seed}"))]);
        assert_pass("schedule_race", &out)
    };
    let mut answers = std::collections::BTreeSet::new();
    for seed in 1..=6 {
        let first = run(seed);
        assert_eq!(run(seed), first, "seed {seed} is not reproducible");
        answers.insert(first);
    }
    assert!(answers.len() >= 3, "six seeds gave {answers:?}");
    let out = run_preloaded(&exe, &[("CUDA_SHIM_SCHEDULE", "sometimes")]);
    assert_pass("schedule_race with a bad value", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("CUDA_SHIM_SCHEDULE=\"sometimes\" is not seed:N"),
        "{stderr}"
    );
}

/// Destroying a context, or resetting the primary one, gives its memory back (the driver API
/// reference); see tests/cuda/ctx_resources.cu.
#[test]
fn contexts_give_their_memory_back() {
    let lib = lib_dir();
    let exe = nvcc(
        "ctx_resources",
        "ctx_resources",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("ctx_resources", &run_preloaded(&exe, &[]));
}

/// The driver's answers where they were measured on real hardware (H100 and H200, driver
/// 580.159, 2026-11-26; scripts/ground-truth/results/driver-h100.txt,
/// limits-and-stale-h200.txt, nonascii-h200.txt): non-ASCII PTX, the per-thread local-memory
/// and stack bound, and stale handles after a context reset or destruction. See
/// tests/cuda/driver_ground_truth.cu, which runs one mode per process.
fn driver_ground_truth(mode: &str) {
    let lib = lib_dir();
    let exe = nvcc(
        "driver_ground_truth",
        &format!("driver_ground_truth_{mode}"),
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let out = Command::new(&exe)
        .arg(mode)
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    assert_pass(&format!("driver_ground_truth {mode}"), &out);
}

/// Any non-ASCII byte in PTX, a comment included, is CUDA_ERROR_INVALID_PTX naming its line
/// (driver-h100.txt, nonascii-h200.txt).
#[test]
fn non_ascii_ptx_is_invalid_ptx_naming_the_line() {
    driver_ground_truth("nonascii");
}

/// More than 523712 bytes of `.local` per thread loads but never launches, and the stack limit
/// stops at the same bound (limits-and-stale-h200.txt, driver-h100.txt).
#[test]
fn local_memory_and_stack_limit_are_bounded_per_thread() {
    driver_ground_truth("local");
}

/// Handles of a reset primary context: CONTEXT_IS_DESTROYED until it is retained again, then
/// invalid (limits-and-stale-h200.txt).
#[test]
fn stale_handles_after_a_primary_context_reset() {
    driver_ground_truth("stale_reset");
}

/// Handles of a destroyed context are invalid, never a crash (limits-and-stale-h200.txt for
/// the pointer; the real driver aborts on the stream).
#[test]
fn stale_handles_after_a_context_is_destroyed() {
    driver_ground_truth("stale_destroy");
}

/// The real driver's variables: CUDA_LAUNCH_BLOCKING, CUDA_VISIBLE_DEVICES and
/// CUDA_DISABLE_PTX_JIT, each as its documentation says; see tests/cuda/driver_env.cu.
#[test]
fn the_real_drivers_environment_variables() {
    let exe = nvcc("driver_env", "driver_env", &[]);
    for (mode, var, value) in [
        ("blocking", "CUDA_LAUNCH_BLOCKING", "1"),
        ("async", "CUDA_LAUNCH_BLOCKING", "0"),
        ("hidden", "CUDA_VISIBLE_DEVICES", "-1"),
        ("visible", "CUDA_VISIBLE_DEVICES", "0"),
        ("nojit", "CUDA_DISABLE_PTX_JIT", "1"),
    ] {
        let out = Command::new(&exe)
            .arg(mode)
            .env("LD_PRELOAD", &shim().library)
            .env(var, value)
            .output()
            .unwrap();
        assert_pass(&format!("driver_env {mode} with {var}={value}"), &out);
    }
}

/// The adversarial suite (tests/cuda/adversarial.cu): bad handles, pointers, sizes and flags,
/// malformed and hostile PTX (hand-made and 300 seeded mutations of a valid module), kernel
/// faults of every kind in contexts of their own, stale handles, and 16 host threads at once.
/// Every case returns the code the driver documents or was measured to give, and the process
/// never crashes.
#[test]
fn adversarial_suite_never_crashes() {
    let lib = lib_dir();
    let exe = nvcc(
        "adversarial",
        "adversarial",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let out = Command::new(&exe)
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    let stdout = assert_pass("adversarial", &out);
    assert!(stdout.contains("adversarial: "), "{stdout}");
}

/// `cuda-shim env` prints shell lines that preload the shim for every later command: a CUDA
/// program run after `eval "$(cuda-shim env)"` (and no launcher) runs on it, and an LD_PRELOAD
/// already set is kept.
#[test]
fn cuda_shim_env_preloads_the_shim_in_a_shell() {
    let exe = nvcc_cached("vector_add", "vector_add", &[]);
    let script = format!(
        "export LD_PRELOAD=/nonexistent-keep.so; eval \"$('{}' env)\"; echo \"$LD_PRELOAD\"; \
         CUDA_SHIM_TRACE=1 '{}'",
        shim().cli.display(),
        exe.display()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let first = stdout.lines().next().unwrap_or("");
    assert!(
        first.starts_with(&*shim().library.to_string_lossy())
            && first.ends_with(":/nonexistent-keep.so"),
        "{first}"
    );
    // The trace shows the program's driver calls were the shim's.
    assert!(stderr.contains("cuInit"), "{stderr}");
}

/// `cuda-shim run --stats` prints at exit, per kernel, what the program launched (its own
/// calls say: 3 launches of `scale`, 4 blocks of 64 threads each), and the bytes it copied and
/// set, and a fidelity line naming the approximate math that ran and how often; `--stats-json`
/// writes the same as JSON; `--progress` shows a launch running longer
/// than a second with its kernel's name and share of blocks.
#[test]
fn cuda_shim_run_reports_stats_and_progress() {
    let exe = nvcc_cached("stats", "stats", &[]);
    // (On the interpreter, whatever CUDA_SHIM_JIT the suite runs under: the tier column names
    // it; tests/jit.rs checks the column of the compiling tier.)
    let out = Command::new(&shim().cli)
        .args(["run", "--stats", "--"])
        .arg(&exe)
        .env("CUDA_SHIM_JIT", "off")
        .output()
        .unwrap();
    assert_pass("stats", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let row = stderr
        .lines()
        .find(|l| l.starts_with("_Z5scalePf"))
        .unwrap_or_else(|| panic!("no row for scale:\n{stderr}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[1..4], ["3", "12", "768"], "{row}");
    assert!(
        cols[4].parse::<u64>().unwrap() > 0 && cols[6] == "interpreter",
        "{row}"
    );
    for line in [
        "copied host to device: 4096 bytes",
        "copied device to host: 4096 bytes",
        "memset: 4096 bytes",
        // `fast`'s approximate math: 80 threads ran each instruction once (tests/cuda/stats.cu).
        "fidelity: 160 thread-executions may differ from a GPU's bits: div.approx.f32 80, \
         sin.approx.f32 80 (approximate: within the ISA's error bound, not necessarily a GPU's \
         bits)",
    ] {
        assert!(stderr.contains(line), "{line}:\n{stderr}");
    }
    // A program with only exact arithmetic (vector_add's add.f32) has none.
    let plain = nvcc_cached("vector_add", "vector_add", &[]);
    let out = Command::new(&shim().cli)
        .args(["run", "--stats", "--"])
        .arg(&plain)
        .output()
        .unwrap();
    assert_pass("vector_add --stats", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("fidelity: no approximate math and none of the engine's readings"),
        "{stderr}"
    );

    // On the interpreter, where `spin`'s 150M iterations take seconds: compiled, its loop of
    // one segment runs without returning to the interpreter and ends before the progress line
    // (drawn for launches older than a second) appears.
    let json = build_dir().join("stats.json");
    let out = Command::new(&shim().cli)
        .arg("run")
        .arg("--stats-json")
        .arg(&json)
        .args(["--progress", "--"])
        .arg(&exe)
        .arg("150000000")
        .env("CUDA_SHIM_JIT", "off")
        .output()
        .unwrap();
    assert_pass("stats with progress", &out);
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(
        text.contains(
            "{\"name\": \"_Z5scalePf\", \"launches\": 3, \"blocks\": 12, \"threads\": 768,"
        ) && text.contains("\"device_to_host\": 4100")
            && text.contains("\"memset_bytes\": 4096")
            && text.contains(
                "\"fidelity\": [{\"instruction\": \"div.approx.f32\", \"kind\": \"approximate\", \
                 \"thread_executions\": 80}, {\"instruction\": \"sin.approx.f32\", \"kind\": \
                 \"approximate\", \"thread_executions\": 80}]"
            ),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("[cuda-shim] _Z4spinPjj: 0% of 1 blocks"),
        "{stderr}"
    );
}

/// scripts/ground-truth/multicast_probe.cpp on the shim prints what an H200 printed
/// (scripts/ground-truth/results/multicast-h200.txt): one H200 without an NVLink fabric has no
/// multicast objects (`CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED` 0), and every multicast call,
/// with good arguments or bad, is CUDA_ERROR_NOT_SUPPORTED; the shim's single devices answer so.
#[test]
fn multicast_objects_are_not_supported_as_on_an_h200() {
    let lib = lib_dir();
    let exe = build_probe(
        "multicast_probe.cpp",
        "multicast_probe",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_prints_recorded(&run_preloaded(&exe, &[]), "multicast-h200.txt");
}
