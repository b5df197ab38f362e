//! The on-disk cache of compiled code (`jit::cache`): an entry appears at the first compile
//! and is loaded at the next; loaded code computes what the interpreter computes; a damaged
//! entry is a miss, compiled and written again; threads racing into an empty directory all
//! run right code and leave one sound entry; another program is another entry; a directory
//! that cannot be used only turns the cache off; eviction keeps the entries used last.
//!
//! Each test has a directory of its own and a `Cache` of its own (the process's cache, which
//! the driver sets, is one for all tests and stays unset here).

use super::{cfg, download, upload, HEAD};
use crate::jit::cache::Cache;
use crate::jit::Mode;
use crate::{launch, mem, Kernel, Module};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const THREADS: u32 = 64;
const BLOCKS: u32 = 4;
const N: usize = (THREADS * BLOCKS) as usize;

/// `out[i] = (in[i] * scale + i) ^ (in[i] >> 3)`, and `out[N + i]` the bits of
/// `1.5 * f + f` for `f` the float with `in[i]`'s bits: straight integer and float arithmetic
/// between a global load and stores, which the tier compiles.
fn ptx(scale: u32) -> String {
    format!(
        "{HEAD}.visible .entry k(.param .u64 in, .param .u64 out)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    .reg .f32 %f<3>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mad.lo.s32 %r6, %r5, {scale}, %r4;
    shr.u32 %r7, %r5, 3;
    xor.b32 %r6, %r6, %r7;
    mov.b32 %f1, %r5;
    mul.rn.f32 %f2, %f1, 0f3FC00000;
    add.rn.f32 %f2, %f2, %f1;
    mov.b32 %r7, %f2;
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r6;
    st.global.u32 [%rd5+{}], %r7;
    ret;
}}
",
        4 * N
    )
}

fn input() -> Vec<u32> {
    // Small integers, float bit patterns of every kind (normal, subnormal, infinite, NaN).
    (0..N as u32)
        .map(|i| match i % 4 {
            0 => i,
            1 => i.wrapping_mul(0x9e37_79b9),
            2 => 0x3f80_0000 + (i << 12),
            _ => [0x7f80_0000, 0x0000_0003, 0xff80_0001, 0x8000_0000][(i / 4 % 4) as usize],
        })
        .collect()
}

fn load(src: &str) -> Arc<Kernel> {
    Module::load(src, "cache.ptx")
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel("k")
        .unwrap()
}

/// The kernel's output on [`input`], on tier `mode`.
fn run(k: &Arc<Kernel>, mode: Mode) -> Vec<u32> {
    k.set_jit(Some(mode));
    let a = upload(&input());
    let b = upload(&vec![0u32; 2 * N]);
    let mut params = a.to_le_bytes().to_vec();
    params.extend_from_slice(&b.to_le_bytes());
    launch(k, &cfg(BLOCKS, THREADS), &params).unwrap_or_else(|e| panic!("{e}"));
    let r = download(b, 2 * N);
    mem::free(a).unwrap();
    mem::free(b).unwrap();
    r
}

/// The interpreter's output for `ptx(scale)`, after checking its integer half by hand.
fn reference(scale: u32) -> Vec<u32> {
    let r = run(&load(&ptx(scale)), Mode::Off);
    for (i, &x) in input().iter().enumerate() {
        let want = x.wrapping_mul(scale).wrapping_add(i as u32) ^ (x >> 3);
        assert_eq!(r[i], want, "interpreter, lane {i}");
    }
    r
}

/// A fresh, empty directory for one test.
fn fresh_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("engine-jit-cache-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The directory's entries, and whether it holds anything else (temporary files).
fn entries(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    all.sort();
    all.into_iter()
        .partition(|p| p.extension().is_some_and(|e| e == "jit"))
}

/// Compiles a fresh load of `ptx(scale)` with `cache`: its summary and its output on the tier.
fn compile_and_run(scale: u32, cache: &Cache) -> (crate::jit::Summary, Vec<u32>) {
    let k = load(&ptx(scale));
    let s = k
        .compile_jit_with(Some(cache))
        .expect("the kernel has compiled segments");
    (s, run(&k, Mode::On))
}

#[test]
fn jit_cache_entry_is_written_then_loaded_and_runs_as_the_interpreter() {
    let dir = fresh_dir("hit");
    let want = reference(3);
    let cache = Cache::new(&dir);
    let (first, got) = compile_and_run(3, &cache);
    assert!(!first.cached && first.segments > 0, "{first:?}");
    assert_eq!(got, want, "compiled");
    let (files, others) = entries(&dir);
    assert_eq!(files.len(), 1, "one entry: {files:?}");
    assert!(others.is_empty(), "no temporary files left: {others:?}");

    // Another process would have its own `Cache`.
    let (second, got) = compile_and_run(3, &Cache::new(&dir));
    assert!(second.cached, "{second:?}");
    assert_eq!(
        (second.segments, second.ops),
        (first.segments, first.ops),
        "the same code"
    );
    assert_eq!(
        second.compiled_ns, first.ns,
        "the entry keeps the compile time"
    );
    assert_eq!(got, want, "loaded from the cache");
    assert_eq!(entries(&dir).0, files);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether two entries are the same but for the compile time (bytes 52..60 of the header)
/// and so the checksum (the last 32 bytes).
fn same_but_time(a: &[u8], b: &[u8]) -> bool {
    let cut = |x: &[u8]| [&x[..52], &x[60..x.len() - 32]].concat();
    a.len() == b.len() && a.len() > 92 && cut(a) == cut(b)
}

#[test]
fn jit_cache_damaged_entry_is_a_miss_and_is_written_again() {
    let dir = fresh_dir("damaged");
    let want = reference(7);
    let cache = Cache::new(&dir);
    compile_and_run(7, &cache);
    let (files, _) = entries(&dir);
    let [path] = &files[..] else {
        panic!("one entry: {files:?}")
    };
    let sound = std::fs::read(path).unwrap();
    let flip = |at: usize| {
        let mut b = sound.clone();
        b[at] ^= 0x40;
        b
    };
    let damages: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("truncated", sound[..sound.len() / 2].to_vec()),
        ("one byte short", sound[..sound.len() - 1].to_vec()),
        ("a byte more", [&sound[..], &[0]].concat()),
        ("magic", flip(0)),
        ("key", flip(20)),
        ("code", flip(sound.len() - 40)),
        ("checksum", flip(sound.len() - 1)),
        ("garbage", vec![0xcc; sound.len()]),
    ];
    for (what, bytes) in damages {
        std::fs::write(path, &bytes).unwrap();
        let (s, got) = compile_and_run(7, &Cache::new(&dir));
        assert!(!s.cached, "{what}: a damaged entry is a miss");
        assert_eq!(got, want, "{what}");
        // Compiled again and written again, the same code (all but the compile time it
        // records and the checksum over it): the next process loads it.
        assert!(
            same_but_time(&std::fs::read(path).unwrap(), &sound),
            "{what}: rewritten"
        );
        let (s, got) = compile_and_run(7, &Cache::new(&dir));
        assert!(s.cached, "{what}: loaded after the rewrite");
        assert_eq!(got, want, "{what}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jit_cache_threads_racing_into_an_empty_directory_leave_one_sound_entry() {
    let dir = fresh_dir("race");
    let want = reference(11);
    let start = Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (dir, start) = (dir.clone(), start.clone());
            std::thread::spawn(move || {
                let k = load(&ptx(11));
                let cache = Cache::new(&dir);
                start.wait();
                k.compile_jit_with(Some(&cache)).unwrap();
                run(&k, Mode::On)
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), want);
    }
    let (files, others) = entries(&dir);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(others.is_empty(), "{others:?}");
    let (s, got) = compile_and_run(11, &Cache::new(&dir));
    assert!(s.cached);
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jit_cache_another_program_is_another_entry() {
    let dir = fresh_dir("keys");
    let cache = Cache::new(&dir);
    let (a, got_a) = compile_and_run(13, &cache);
    let (b, got_b) = compile_and_run(17, &cache);
    assert!(!a.cached && !b.cached, "17 is not 13's code");
    assert_eq!(entries(&dir).0.len(), 2);
    assert_eq!(got_a, reference(13));
    assert_eq!(got_b, reference(17));
    assert_ne!(got_a, got_b);
    for (scale, want) in [(13, got_a), (17, got_b)] {
        let (s, got) = compile_and_run(scale, &Cache::new(&dir));
        assert!(s.cached, "{scale}");
        assert_eq!(got, want, "{scale}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jit_cache_unusable_directory_only_turns_the_cache_off() {
    use std::os::unix::fs::PermissionsExt;
    let want = reference(19);
    let base = fresh_dir("unusable");
    std::fs::create_dir_all(&base).unwrap();
    // Under a file: cannot be created.
    let file = base.join("file");
    std::fs::write(&file, b"x").unwrap();
    let (s, got) = compile_and_run(19, &Cache::new(file.join("jit")));
    assert!(!s.cached);
    assert_eq!(got, want);
    // Writable by others: its entries could be anyone's code, so it is not used.
    let open = base.join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    for _ in 0..2 {
        let (s, got) = compile_and_run(19, &Cache::new(&open));
        assert!(!s.cached);
        assert_eq!(got, want);
    }
    assert_eq!(entries(&open), (vec![], vec![]), "nothing written");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn jit_cache_eviction_keeps_the_entries_used_last() {
    let dir = fresh_dir("evict");
    let cache = Cache::new(&dir);
    let mut files = Vec::new();
    for scale in [23, 29, 31] {
        let before = entries(&dir).0;
        compile_and_run(scale, &cache);
        let now = entries(&dir).0;
        files.push(now.into_iter().find(|f| !before.contains(f)).unwrap());
    }
    // Written an hour, forty and twenty minutes ago; a crashed writer's file from long ago.
    let ago = |m: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(60 * m);
    for (f, m) in files.iter().zip([60, 40, 20]) {
        std::fs::File::options()
            .write(true)
            .open(f)
            .unwrap()
            .set_modified(ago(m))
            .unwrap();
    }
    let tmp = dir.join(".tmp-1-2-3");
    std::fs::write(&tmp, b"partial").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&tmp)
        .unwrap()
        .set_modified(ago(30))
        .unwrap();
    // The oldest is used now: a hit makes it the last to go.
    let (s, _) = compile_and_run(23, &Cache::new(&dir));
    assert!(s.cached);
    let size = |f: &PathBuf| std::fs::metadata(f).unwrap().len();
    let total: u64 = files.iter().map(size).sum();
    // Under the bound: nothing goes but the stale temporary file.
    cache.evict(total);
    let mut all = files.clone();
    all.sort();
    assert_eq!(entries(&dir), (all, vec![]));
    // A bound that holds one entry (eviction goes down to three quarters of it).
    let max = size(&files[0]) * 4 / 3 + 4;
    assert!(max < size(&files[0]) + size(&files[1]).min(size(&files[2])));
    cache.evict(max);
    assert_eq!(
        entries(&dir).0,
        vec![files[0].clone()],
        "the one used last stays"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
