//! The sanitizer (`cuda-shim run --check memcheck`, README: sanitizer) on planted bugs built by
//! nvcc (tests/cuda/memcheck.cu): each is found and reported as compute-sanitizer reports it
//! (the expected lines come from compute-sanitizer on an H100, driver 580.159:
//! scripts/ground-truth/results/sanitizer-h100.txt), the launcher's exit status says errors
//! were found, and correct programs run clean.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;
use tests::*;

/// Builds a test program once for this file's tests, which run in parallel: two builds of one
/// executable at once would replace it while another test runs it.
fn built(name: &str, extra: &[&str]) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut b = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = b.iter().find(|(n, _)| n == name) {
        return p.clone();
    }
    let p = if extra.is_empty() {
        nvcc_cached(name, name, extra)
    } else {
        nvcc(name, name, extra)
    };
    b.push((name.to_string(), p.clone()));
    p
}

/// Runs `exe mode` under the sanitizer; returns (exit code, stderr).
fn memcheck(exe: &std::path::Path, mode: &str, extra: &[&str]) -> (i32, String) {
    let out = Command::new(&shim().cli)
        .args(["run", "--check", "memcheck"])
        .args(extra)
        .arg("--")
        .arg(exe)
        .args((!mode.is_empty()).then_some(mode))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Runs `exe mode` under the sanitizer's `tool`; returns (exit code, stdout, stderr).
fn checked(tool: &str, exe: &std::path::Path, mode: &str) -> (i32, String, String) {
    let out = Command::new(&shim().cli)
        .args(["run", "--check", tool, "--"])
        .arg(exe)
        .args((!mode.is_empty()).then_some(mode))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn expect_lines(what: &str, text: &str, lines: &[&str]) {
    for l in lines {
        assert!(text.contains(l), "{what}: no line {l:?} in:\n{text}");
    }
}

#[test]
fn memcheck_finds_each_planted_bug() {
    let exe = built("memcheck", &["-lineinfo"]);
    // Each with compute-sanitizer's count of errors for it (sanitizer-h100.txt): one per
    // faulting thread, and one per API call that failed (the synchronisation and the two
    // cudaFree calls after a launch that failed, each on its own report).
    let cases: &[(&str, u32, &[&str])] = &[
        (
            "oob_global",
            4,
            &[
                "========= Invalid __global__ write of size 4 bytes",
                "=========     by thread (100,0,0) in block (0,0,0)",
                "is out of bounds",
                "=========     and is 1 bytes after the nearest allocation at",
                "of size 400 bytes",
            ],
        ),
        (
            "oob_before",
            4,
            &[
                "========= Invalid __global__ read of size 4 bytes",
                "and is 4 bytes before the nearest allocation at",
            ],
        ),
        (
            "oob_atomic",
            4,
            &[
                "========= Invalid __global__ atomic of size 4 bytes",
                "=========     by thread (103,0,0) in block (0,0,0)",
                "and is 13 bytes after the nearest allocation at",
            ],
        ),
        (
            "misaligned",
            4,
            &[
                "========= Invalid __global__ read of size 4 bytes",
                "=========     by thread (3,0,0) in block (0,0,0)",
                "is misaligned",
                "and is inside the nearest allocation at",
            ],
        ),
        (
            "shared_oob",
            35,
            &[
                "========= Invalid __shared__ write of size 4 bytes",
                "=========     by thread (32,0,0) in block (0,0,0)",
                "is out of bounds",
            ],
        ),
        (
            "use_after_free",
            101,
            &[
                "========= Invalid __global__ read of size 4 bytes",
                "of size 400 bytes that was freed (use after free)",
                // The default print limit (100) leaves the API error out.
                "========= ERROR SUMMARY: 1 errors were not printed.",
            ],
        ),
        (
            "bad_api",
            1,
            &[
                "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" \
                 on CUDA API call to cudaMemcpy.",
                "=========     Saved host backtrace up to driver entry point at error",
                "=========         Host Frame: main [0x",
            ],
        ),
        (
            "bad_free",
            1,
            &["========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" \
               on CUDA API call to cudaFree."],
        ),
    ];
    for (mode, count, lines) in cases {
        let (code, err) = memcheck(&exe, mode, &[]);
        expect_lines(mode, &err, lines);
        let plural = if *count == 1 { "" } else { "s" };
        let summary = format!("========= ERROR SUMMARY: {count} error{plural}\n");
        // (The API error of a launch that failed: after the kernel's report, as on the H100;
        // use_after_free's is past the print limit.)
        if *count > 1 && *count <= 100 {
            expect_lines(
                mode,
                &err,
                &["========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified \
                   launch failure\" on CUDA API call to cudaDeviceSynchronize."],
            );
        }
        expect_lines(mode, &err, &[&summary]);
        assert_eq!(code, 1, "{mode}: exit status with errors found\n{err}");
    }
    // --error-exitcode chooses the status.
    let (code, _) = memcheck(&exe, "oob_global", &["--error-exitcode", "9"]);
    assert_eq!(code, 9);
}

/// Memcheck reports every faulting thread of a launch (tests/cuda/memcheck.cu, `oob_all`: 256
/// threads each writing past a 256-int array), prints the first 100 (compute-sanitizer's
/// default `--print-limit`), and the launch fails with cudaErrorLaunchFailure as under
/// compute-sanitizer; without the tool the first fault stops the launch with
/// cudaErrorIllegalAddress, as on a GPU.
#[test]
fn memcheck_reports_every_faulting_thread() {
    let exe = built("memcheck", &["-lineinfo"]);
    let run = |extra: &[&str]| {
        let out = Command::new(&shim().cli)
            .args(["run", "--check", "memcheck"])
            .args(extra)
            .arg("--")
            .arg(&exe)
            .arg("oob_all")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let reports = |err: &str| {
        err.matches("Invalid __global__ write of size 4 bytes")
            .count()
    };
    let (code, out, err) = run(&[]);
    expect_lines(
        "oob_all",
        &err,
        &[
            "=========     by thread (0,0,0) in block (0,0,0)",
            "=========     and is 1 bytes after the nearest allocation at",
            "of size 1,024 bytes",
            // 256 bad writes, then the three API calls that fail after the launch
            // (cudaDeviceSynchronize and two cudaFree).
            "========= ERROR SUMMARY: 259 errors\n",
            "========= ERROR SUMMARY: 159 errors were not printed.",
        ],
    );
    assert_eq!(reports(&err), 100, "{err}");
    assert!(out.contains("oob_all: cudaErrorLaunchFailure"), "{out}");
    assert_eq!(code, 1);
    // --print-limit 0 prints them all, each thread once.
    let (_, _, err) = run(&["--print-limit", "0"]);
    assert_eq!(reports(&err), 256, "{err}");
    for t in ["(0,0,0) in block (0,0,0)", "(127,0,0) in block (1,0,0)"] {
        expect_lines("oob_all", &err, &[&format!("by thread {t}")]);
    }
    assert!(!err.contains("not printed"), "{err}");
    // Without the tool: the first fault stops the launch, as on a GPU.
    let plain = run_preloaded_args(&exe, &["oob_all"]);
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(text.contains("oob_all: cudaErrorIllegalAddress"), "{text}");
}

#[test]
fn memcheck_reports_leaks() {
    let exe = built("memcheck", &["-lineinfo"]);
    let (code, err) = memcheck(&exe, "leak", &["--leak-check", "full"]);
    expect_lines(
        "leak",
        &err,
        &[
            "========= Leaked 400 bytes at",
            "========= Leaked 4,096 bytes at",
            "========= LEAK SUMMARY: 8592 bytes leaked in 3 allocations",
            "========= ERROR SUMMARY: 3 errors",
        ],
    );
    assert_eq!(code, 1);
    let (code, err) = memcheck(&exe, "clean", &["--leak-check", "full"]);
    expect_lines(
        "clean",
        &err,
        &[
            "========= LEAK SUMMARY: 0 bytes leaked in 0 allocations",
            "========= ERROR SUMMARY: 0 errors",
        ],
    );
    assert_eq!(code, 0, "{err}");
}

/// No false positives: correct programs of the suite and the bundled example run clean. (Not
/// `streams`, which calls cudaEventElapsedTime on events without timing to check the error:
/// memcheck reports that failed API call, as compute-sanitizer does.)
#[test]
fn memcheck_passes_correct_programs() {
    let mut programs = vec![(built("memcheck", &["-lineinfo"]), "clean")];
    for name in ["vector_add", "reduction", "saxpy", "threads", "printf"] {
        programs.push((built(name, &[]), ""));
    }
    for (exe, arg) in programs {
        let (code, err) = memcheck(&exe, arg, &["--leak-check", "full"]);
        assert!(
            code == 0 && err.contains("========= ERROR SUMMARY: 0 errors"),
            "{}: exit {code}\n{err}",
            exe.display()
        );
    }
}

/// racecheck: the planted race is reported once, with compute-sanitizer's count of hazards
/// (sanitizer-h100.txt: 64 threads x 4 bytes), and synchronised code is not.
#[test]
fn racecheck_finds_the_planted_race_only() {
    let exe = built("racecheck", &["-lineinfo"]);
    let run = |mode: &str| {
        let out = Command::new(&shim().cli)
            .args(["run", "--check", "racecheck", "--"])
            .arg(&exe)
            .arg(mode)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, err) = run("race");
    expect_lines(
        "race",
        &err,
        &[
            "========= Error: Race reported between Write access at",
            "(st.shared.u32)",
            "=========     and Read access at",
            "(ld.shared.u32) [256 hazards]",
            "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)",
        ],
    );
    assert_eq!(code, 1, "{err}");
    for mode in ["synced", "reduction"] {
        let (code, err) = run(mode);
        expect_lines(
            mode,
            &err,
            &["========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"],
        );
        assert_eq!(code, 0, "{mode}: {err}");
    }
    // Correct programs of the suite with shared memory and barriers run clean: warp
    // collectives, compare-and-swap loops on shared memory (a plain load, then atomics), grid
    // syncs of a cooperative launch.
    for name in [
        "reduction",
        "threads",
        "pipeline_copy",
        "isa_sync_groups",
        "isa_warp",
        "isa_atomics",
        "coop_grid_sync",
    ] {
        let exe = built(name, &[]);
        let out = Command::new(&shim().cli)
            .args(["run", "--check", "racecheck", "--"])
            .arg(&exe)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && err.contains("RACECHECK SUMMARY: 0 hazards"),
            "{name}: {err}"
        );
    }
}

/// Runs `exe mode` under racecheck: (exit code, stderr).
fn racecheck(exe: &std::path::Path, mode: &str) -> (i32, String) {
    let (code, _, err) = checked("racecheck", exe, mode);
    (code, err)
}

/// racecheck beyond threads of different warps (tests/cuda/racecheck.cu): lanes of one warp
/// with no __syncwarp (a warning, as compute-sanitizer grades hazards of warp-level
/// programming), an atomic against a plain write, a cp.async copy against a read of another
/// warp, and a race in a cooperative launch; each clean counterpart reports nothing. The
/// counts are the measured case's arithmetic (one hazard per byte of each access in hazard);
/// the source says how each follows.
#[test]
fn racecheck_grades_warp_atomic_async_and_cooperative_races() {
    let exe = built("racecheck", &["-lineinfo"]);
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "warp_race",
            "Warning",
            "(ld.shared.u32) [128 hazards]",
            "(0 errors, 1 warning)",
        ),
        (
            "atomic_race",
            "Error",
            "[128 hazards]",
            "(1 error, 0 warnings)",
        ),
        (
            "async_race",
            "Error",
            "(ld.shared.u32) [256 hazards]",
            "(1 error, 0 warnings)",
        ),
        (
            "coop_race",
            "Error",
            "(ld.shared.u32) [512 hazards]",
            "(1 error, 0 warnings)",
        ),
    ];
    for (mode, level, second, summary) in cases {
        let (code, err) = racecheck(&exe, mode);
        expect_lines(
            mode,
            &err,
            &[
                &format!("========= {level}: Race reported between Write access at"),
                second,
                &format!("========= RACECHECK SUMMARY: 1 hazard displayed {summary}"),
            ],
        );
        // Warnings alone leave the exit status alone; errors set it.
        assert_eq!(code, (*level == "Error") as i32, "{mode}: {err}");
    }
    // Two writes, in the order the threads ran.
    let (_, err) = racecheck(&exe, "atomic_race");
    expect_lines(
        "atomic_race",
        &err,
        &[
            "(atom.shared.add.u32)",
            "(st.shared.u32)",
            "and Write access at",
        ],
    );
    let (_, err) = racecheck(&exe, "async_race");
    expect_lines("async_race", &err, &["(cp.async.ca.shared.global)"]);
    // ldmatrix's rows are reads by the lanes that gave their addresses: each of warp 1's two
    // stores (32 threads x 2 bytes) races with them.
    let (code, err) = racecheck(&exe, "matrix_race");
    expect_lines(
        "matrix_race",
        &err,
        &[
            "(ldmatrix.sync.aligned.m8n8.x1.shared.b16) [64 hazards]",
            "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)",
        ],
    );
    assert_eq!(code, 1, "matrix_race: {err}");
    for mode in [
        "warp_synced",
        "atomics_only",
        "async_synced",
        "coop_synced",
        "matrix_synced",
    ] {
        let (code, err) = racecheck(&exe, mode);
        expect_lines(
            mode,
            &err,
            &["========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"],
        );
        assert_eq!(code, 0, "{mode}: {err}");
    }
}

/// racecheck on a cluster's distributed shared memory (tests/cuda/racecheck_cluster.cu):
/// threads writing into the other CTA's shared memory race with its reads when only a CTA
/// barrier lies between; with a cluster barrier they do not.
#[test]
fn racecheck_checks_distributed_shared_memory() {
    let exe = nvcc_arch(
        "racecheck_cluster",
        "racecheck_cluster",
        "compute_90",
        &["-lineinfo"],
    );
    let (code, err) = racecheck(&exe, "cluster_race");
    expect_lines(
        "cluster_race",
        &err,
        &[
            "========= Error: Race reported between Write access at",
            "(st.shared::cluster.u32)",
            "(ld.shared.u32) [256 hazards]",
            "=========     e.g. thread (",
            "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let (code, err) = racecheck(&exe, "cluster_synced");
    expect_lines(
        "cluster_synced",
        &err,
        &["========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"],
    );
    assert_eq!(code, 0, "{err}");
}

/// synccheck: the planted barrier misuse of tests/cuda/synccheck.cu is reported as
/// compute-sanitizer's synccheck reported it on an H100 (sanitizer-h100.txt: the message, the
/// first thread, one error per thread, the launch failing), runs as on the GPU without the tool,
/// and correct programs with barriers and warp syncs run clean.
#[test]
fn synccheck_finds_divergent_and_invalid_barriers() {
    let exe = built("synccheck", &["-lineinfo"]);
    let run = |exe: &std::path::Path, mode: &str| checked("synccheck", exe, mode);
    let cases: &[(&str, &str, &str)] = &[
        (
            "divergent_barrier",
            "Divergent thread(s) in warp.",
            "16 errors",
        ),
        ("bad_syncwarp", "Invalid arguments.", "32 errors"),
    ];
    for (mode, what, count) in cases {
        let (code, out, err) = run(&exe, mode);
        expect_lines(
            mode,
            &err,
            &[
                &format!("========= Barrier error detected. {what}"),
                "=========     by thread (0,0,0) in block (0,0,0)",
                &format!("========= ERROR SUMMARY: {count}"),
            ],
        );
        assert!(
            out.contains(&format!("{mode}: sync cudaErrorLaunchFailure")),
            "{out}"
        );
        assert_eq!(code, 1, "{mode}: {err}");
        // Without the tool the GPU runs both (cudaSuccess).
        let plain = run_preloaded_args(&exe, &[mode]);
        let text = String::from_utf8_lossy(&plain.stdout);
        assert!(
            text.contains(&format!("{mode}: sync cudaSuccess")),
            "{text}"
        );
    }
    let (code, _, err) = run(&exe, "clean");
    expect_lines("clean", &err, &["========= ERROR SUMMARY: 0 errors"]);
    assert_eq!(code, 0, "{err}");
    // Lanes that run ahead to a barrier while one lane waits on an mbarrier are no error when
    // that lane comes to the same barrier (tests/cuda/synccheck.cu, wait_then_sync).
    let clusters = nvcc_arch(
        "synccheck",
        "synccheck_clusters",
        "compute_90",
        &["-DWITH_CLUSTERS"],
    );
    let (code, out, err) = run(&clusters, "wait_then_sync");
    expect_lines(
        "wait_then_sync",
        &err,
        &["========= ERROR SUMMARY: 0 errors"],
    );
    assert!(out.contains("wait_then_sync: sync cudaSuccess"), "{out}");
    assert_eq!(code, 0, "{err}");
    for name in [
        "reduction",
        "threads",
        "pipeline_copy",
        "isa_sync_groups",
        "isa_warp",
    ] {
        let (code, _, err) = run(&built(name, &[]), "");
        assert!(
            code == 0 && err.contains("ERROR SUMMARY: 0 errors"),
            "{name}: {err}"
        );
    }
}

/// initcheck: the planted reads of tests/cuda/initcheck.cu are reported in compute-sanitizer's
/// words, one error per thread (its documentation's report of an uninitialised global read);
/// memory written by a set, a copy or a kernel, a stream-ordered allocation a kernel filled, and
/// a `__device__` variable read clean; and programs of the corpus run clean.
#[test]
fn initcheck_finds_reads_of_unwritten_memory() {
    let exe = built("initcheck", &["-lineinfo"]);
    let run = |exe: &std::path::Path, mode: &str| checked("initcheck", exe, mode);
    for (mode, thread, count) in [
        ("uninit_read", "(0,0,0)", "100 errors"),
        ("partial_init", "(50,0,0)", "50 errors"),
    ] {
        let (code, out, err) = run(&exe, mode);
        expect_lines(
            mode,
            &err,
            &[
                "========= LIBCUDA-SHIM INITCHECK",
                "========= Uninitialized __global__ memory read of size 4 bytes",
                &format!("=========     by thread {thread} in block (0,0,0)"),
                "bytes inside allocation at",
                &format!("========= ERROR SUMMARY: {count}"),
            ],
        );
        // The read is reported, not stopped: the launch succeeds.
        assert!(out.contains(&format!("{mode}: sync cudaSuccess")), "{out}");
        assert_eq!(code, 1, "{mode}: {err}");
    }
    let (code, _, err) = run(&exe, "clean");
    expect_lines("clean", &err, &["========= ERROR SUMMARY: 0 errors"]);
    assert_eq!(code, 0, "{err}");
    for name in ["reduction", "saxpy", "threads", "isa_atomics", "streams"] {
        let (code, _, err) = run(&built(name, &[]), "");
        assert!(
            code == 0 && err.contains("ERROR SUMMARY: 0 errors"),
            "{name}: {err}"
        );
    }
}
