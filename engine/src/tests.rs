//! Unit tests of the whole engine on hand-written PTX. Expected values follow from the ISA's
//! arithmetic, computed by hand in each test (not by running the implementation). A case that is
//! one launch with given inputs and outputs is a file test instead (`engine/tests/filetests/`);
//! the tests here need Rust: the API's behaviour, several launches, or results over large inputs.

use crate::{launch, mem, LaunchConfig, LoadErrorKind, Module};

fn upload<T: Copy>(v: &[T]) -> u64 {
    let bytes = std::mem::size_of_val(v) as u64;
    let p = mem::alloc(bytes.max(1)).unwrap();
    // SAFETY: p is a fresh allocation of `bytes` bytes.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, p as *mut u8, bytes as usize) };
    p
}

fn download<T: Copy + Default>(p: u64, n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    // SAFETY: p is a live allocation of at least n elements.
    unsafe {
        std::ptr::copy_nonoverlapping(
            p as *const u8,
            v.as_mut_ptr() as *mut u8,
            n * std::mem::size_of::<T>(),
        )
    };
    v
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    }
}

const HEAD: &str = ".version 9.5\n.target sm_80\n.address_size 64\n";

/// Runs a one-pointer kernel `k(u64 out)` over `grid` x `block` and returns `n` u32 of `out`.
fn run_out(body: &str, grid: u32, block: u32, n: usize) -> Vec<u32> {
    let src = format!("{HEAD}.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n");
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&vec![0u32; n]);
    launch(
        &m.kernel("k").unwrap(),
        &cfg(grid, block),
        &out.to_le_bytes(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = download(out, n);
    mem::free(out).unwrap();
    r
}

/// Prologue: %rd1 = &out[global thread id], %r1 = tid.x, %r2 = global id.
const PRO: &str = r#"
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r2, %r3, %r4, %r1;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd1, %rd1, %rd2;
"#;

#[test]
fn parser_declarations_and_operands() {
    let src = format!(
        "{HEAD}
        // comment
        /* block
           comment */
        .file 1 \"x.cu\"
        .global .align 4 .b32 tab[4] = {{1, 2, 3, -4}};
        .const .f32 cf = 0f3F800000;
        .global .u64 ptr = tab;
        .extern .shared .align 16 .b8 dyn[];
        .visible .func (.param .b32 r) f(.param .b32 a) {{ .reg .b32 %x; ld.param.b32 %x, [a]; st.param.b32 [r], %x; ret; }}
        .visible .entry k(.param .u64 p, .param .align 8 .b8 s[12]) .maxntid 128, 1, 1 .minnctapersm 2
        {{
            .reg .pred %p<2>; .reg .b32 %r<100>; .reg .v2 .f32 %v; .reg .b64 %rd<3>; .reg .f64 %fd1;
            .local .align 8 .b8 buf[16];
            .shared .align 4 .f32 sh[32];
            .loc 1 10 3
            .pragma \"nounroll\";
            mov.u32 %r99, 0x10;
            mov.f64 %fd1, 0d3FF0000000000000;
            mov.b32 %r1, -5;
            mov.u64 %rd1, tab;
            ld.global.u32 %r2, [tab+4];
            ld.global.u32 %r3, [%rd1+-4+8];
            mov.b64 %rd2, {{%r1, %r2}};
            mov.b64 {{%r4, _}}, %rd2;
            {{ .reg .b32 %inner; mov.u32 %inner, 1; }}
            @%p1 bra $L_x;
            @!%p1 bra.uni $L_x;
        $L_x:
            ret;
        }}"
    );
    let m = Module::load(&src, "p.ptx").unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("k").unwrap();
    assert_eq!(k.params.len(), 2);
    assert_eq!(
        (k.params[1].offset, k.params[1].size, k.params[1].align),
        (8, 12, 8)
    );
    assert_eq!(k.param_bytes, 20);
    assert_eq!(k.max_threads_per_block, 128);
    assert_eq!(k.static_shared_bytes, 128);
    let tab = m.global("tab").unwrap();
    assert_eq!(download::<i32>(tab.address, 4), vec![1, 2, 3, -4]);
    assert_eq!(
        download::<f32>(m.global("cf").unwrap().address, 1),
        vec![1.0]
    );
    assert_eq!(
        download::<u64>(m.global("ptr").unwrap().address, 1),
        vec![tab.address]
    );
}

#[test]
fn malformed_input_reports_line_and_column() {
    let src = format!("{HEAD}.visible .entry k()\n{{\n  mov.u32 %r1, ;\n}}\n");
    let e = Module::load(&src, "bad.ptx").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::InvalidPtx);
    assert_eq!((e.diagnostics[0].line, e.diagnostics[0].col), (6, 16));
    assert!(e.to_string().starts_with("bad.ptx:6:16: error:"), "{e}");
    // Garbage, truncated and empty input never panic.
    for s in [
        "",
        "\u{0}",
        ".version",
        ".version 9.5 .target",
        "{{{{",
        "/* open",
        ".version 9.5\n.entry k( {",
    ] {
        assert!(Module::load(s, "x").is_err());
    }
    let e = Module::load(".version 9.6\n.target sm_80\n", "v.ptx").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::UnsupportedVersion);
    // An undefined register is invalid PTX, with its line.
    let src =
        format!("{HEAD}.visible .entry k()\n{{\n  .reg .b32 %r<2>;\n  add.s32 %r1, %r1, %q;\n}}\n");
    let e = Module::load(&src, "u.ptx").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::InvalidPtx);
    assert_eq!(e.diagnostics[0].line, 7);
}

#[test]
fn warp_wide_accesses_contiguous_uniform_vector_and_shared_atomics() {
    warp_wide_accesses();
    // The same on the interpreter's baseline build (the host may have run the AVX2 one).
    crate::exec::warp::use_avx2(false);
    warp_wide_accesses();
    crate::exec::warp::use_avx2(true);
}

fn warp_wide_accesses() {
    // One block of 48 threads: warp 0 is full (block copies, uniform accesses), warp 1 has 16
    // lanes (lane by lane). Expected values are the kernel's arithmetic done by hand below.
    let src = format!(
        "{HEAD}.visible .entry lay(.param .u64 pb, .param .u64 pp, .param .u64 pu, .param .u64 out)
        {{
            .reg .pred %p<2>; .reg .b32 %r<16>; .reg .b64 %rd<14>;
            .shared .align 4 .b32 cnt[4];
            ld.param.u64 %rd1, [pb];
            ld.param.u64 %rd2, [pp];
            ld.param.u64 %rd3, [pu];
            ld.param.u64 %rd4, [out];
            mov.u32 %r1, %tid.x;
            setp.lt.u32 %p1, %r1, 4;
            shl.b32 %r2, %r1, 2;
            mov.u32 %r3, cnt;
            add.s32 %r4, %r3, %r2;
            @%p1 st.shared.u32 [%r4], 0;
            bar.sync 0;
            cvt.u64.u32 %rd5, %r1;
            add.s64 %rd6, %rd1, %rd5;
            ld.global.s8 %r5, [%rd6];
            mul.wide.u32 %rd7, %r1, 4;
            add.s64 %rd8, %rd4, %rd7;
            st.global.u32 [%rd8], %r5;
            mul.wide.u32 %rd9, %r1, 8;
            add.s64 %rd10, %rd2, %rd9;
            ld.global.v2.u32 {{%r6, %r7}}, [%rd10];
            sub.s32 %r8, %r6, %r7;
            st.global.u32 [%rd8+192], %r8;
            ld.global.u32 %r9, [%rd3];
            st.global.u32 [%rd8+384], %r9;
            st.global.u32 [%rd3+4], %r1;
            and.b32 %r10, %r1, 3;
            shl.b32 %r11, %r10, 2;
            add.s32 %r12, %r3, %r11;
            atom.shared.add.u32 %r13, [%r12], 1;
            st.global.u32 [%rd8+576], %r13;
            mov.u64 %rd11, cnt;
            cvta.shared.u64 %rd11, %rd11;
            cvt.u64.u32 %rd12, %r11;
            add.s64 %rd13, %rd11, %rd12;
            atom.add.u32 %r14, [%rd13], 2;
            bar.sync 0;
            @%p1 ld.shared.u32 %r15, [%r4];
            @%p1 st.global.u32 [%rd8+768], %r15;
            ret;
        }}"
    );
    let m = Module::load(&src, "lay.ptx").unwrap_or_else(|e| panic!("{e}"));
    let bytes: Vec<u8> = (0..48u32).map(|i| (i * 37) as u8).collect();
    let pairs: Vec<u32> = (0..48u32).flat_map(|i| [3 * i + 1, i]).collect();
    let (pb, pp) = (upload(&bytes), upload(&pairs));
    let pu = upload(&[0xdead_beefu32, 0]);
    let out = upload(&[0u32; 196]);
    let params: Vec<u8> = [pb, pp, pu, out]
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .collect();
    launch(&m.kernel("lay").unwrap(), &cfg(1, 48), &params).unwrap_or_else(|e| panic!("{e}"));
    let o: Vec<u32> = download(out, 196);
    for i in 0..48usize {
        assert_eq!(
            o[i], bytes[i] as i8 as i32 as u32,
            "ld.s8 sign-extends, lane {i}"
        );
        assert_eq!(o[48 + i], 2 * i as u32 + 1, "ld.v2, lane {i}");
        assert_eq!(o[96 + i], 0xdead_beef, "uniform load, lane {i}");
    }
    // Within a warp, lanes with the same counter update it one after the other in lane order
    // (which warp goes first is the scheduler's choice).
    for i in (0..44usize).filter(|i| i / 32 == (i + 4) / 32) {
        assert_eq!(
            o[144 + i + 4],
            o[144 + i] + 1,
            "atom.shared old values, lane {i}"
        );
    }
    // 12 threads per counter, +1 then +2 each.
    assert_eq!(&o[192..196], &[36; 4]);
    // Every thread stored its tid at the same place: the highest lane of the warp that stored
    // last stays (lane 31 of warp 0 or lane 15 of warp 1, as the scheduler ordered them).
    let u = download::<u32>(pu, 2);
    assert!(u[0] == 0xdead_beef && (u[1] == 31 || u[1] == 47), "{u:x?}");
    for p in [pb, pp, pu, out] {
        mem::free(p).unwrap();
    }
}

#[test]
fn warp_straddling_the_end_of_an_allocation_faults_at_its_first_bad_lane() {
    // 100 elements of registered host memory, which a kernel reaches exactly (a device
    // allocation reaches to the end of its 256-byte granule, `mem::find_reach`, where another
    // test's allocation may begin), 128 threads: warp 3 (threads 96..127) straddles the end. Its
    // lanes 0..3 store before lane 4 (thread 100) faults, as lane by lane.
    let src = format!(
        "{HEAD}.visible .entry st(.param .u64 out)
        {{
            .reg .b32 %r<2>; .reg .b64 %rd<4>;
            ld.param.u64 %rd1, [out];
            mov.u32 %r1, %tid.x;
            mul.wide.u32 %rd2, %r1, 4;
            add.s64 %rd3, %rd1, %rd2;
            st.global.u32 [%rd3], %r1;
            ret;
        }}"
    );
    let m = Module::load(&src, "st.ptx").unwrap();
    let mut host = vec![u32::MAX; 128];
    let hp = host.as_mut_ptr() as u64;
    mem::register_host(hp, 400);
    let e = launch(&m.kernel("st").unwrap(), &cfg(1, 128), &hp.to_le_bytes()).unwrap_err();
    mem::unregister_host(hp).unwrap();
    assert_eq!(e.kind, crate::ExecErrorKind::IllegalAddress);
    assert_eq!(
        e.message,
        format!(
            "illegal address {:#x} in kernel 'st' at block (0,0,0) thread (100,0,0), PTX line 11: \
             st.global.u32 of 4 bytes outside every allocation",
            hp + 400
        )
    );
    assert_eq!(host[..100], (0..100).collect::<Vec<u32>>());
    assert!(host[100..].iter().all(|&x| x == u32::MAX));
    let out = upload(&[u32::MAX; 100]);
    // A warp-wide misaligned access is reported at its first lane.
    let src = format!(
        "{HEAD}.visible .entry mis(.param .u64 out)
        {{
            .reg .b32 %r<2>; .reg .b64 %rd<4>;
            ld.param.u64 %rd1, [out];
            mov.u32 %r1, %tid.x;
            mul.wide.u32 %rd2, %r1, 4;
            add.s64 %rd3, %rd1, %rd2;
            ld.global.u32 %r1, [%rd3+2];
            ret;
        }}"
    );
    let m = Module::load(&src, "mis.ptx").unwrap();
    let e = launch(&m.kernel("mis").unwrap(), &cfg(1, 32), &out.to_le_bytes()).unwrap_err();
    assert_eq!(e.kind, crate::ExecErrorKind::MisalignedAddress);
    assert!(
        e.message.starts_with(&format!(
            "misaligned address {:#x} in kernel 'mis' at block (0,0,0) thread (0,0,0), PTX line 11",
            out + 2
        )),
        "{}",
        e.message
    );
    mem::free(out).unwrap();
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let body =
        format!("{PRO}\n mul.lo.u32 %r5, %r2, 2654435761;\n st.global.u32 [%rd1], %r5;\n ret;");
    crate::set_worker_threads(1);
    let a = run_out(&body, 16, 64, 1024);
    crate::set_worker_threads(4);
    let b = run_out(&body, 16, 64, 1024);
    crate::set_worker_threads(0);
    assert_eq!(a, b);
    // And not on which build of the interpreter ran (baseline x86_64 or AVX2).
    crate::exec::warp::use_avx2(false);
    let c = run_out(&body, 16, 64, 1024);
    crate::exec::warp::use_avx2(true);
    assert_eq!(a, c);
    assert_eq!(a[5], 5u32.wrapping_mul(2654435761));
}

mod cluster;
mod coop;
mod forms;
mod groups;
mod half;
mod isa;
mod jit;
mod jit_cache;
mod limits;
mod misc;
mod registers;
mod shared;
mod surf;
mod sync;
mod tcgen05;
mod tensormap;
mod tex;
mod video;
mod warp;
mod wgmma;
