//! Lowering of operand and initializer forms the ISA defines: `sym[i]` array operands (ISA
//! 6.4.2; ptxas assembles `a[3]` of a `.u32` array exactly as `a+12`), `mask()` initializers
//! (ISA 5.4.4: the masked byte of an address, stored at bit 0), vector registers named whole, and
//! the first diagnostic of a module whose kernels are lowered in parallel.

use engine::{launch, mem, LaunchConfig, Module};

const HEAD: &str = ".version 9.0\n.target sm_90\n.address_size 64\n";

fn run(src: &str, n: usize) -> (Module, Vec<u64>) {
    let m = Module::load(src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = mem::alloc(8 * n as u64).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch(&m.kernel("k").unwrap(), &cfg, &out.to_le_bytes()).unwrap();
    let mut v = vec![0u64; n];
    // SAFETY: `out` is a live allocation of 8 * n bytes, written by the kernel.
    unsafe { std::ptr::copy_nonoverlapping(out as *const u64, v.as_mut_ptr(), n) };
    (m, v)
}

#[test]
fn array_operands_index_by_element() {
    let src = format!(
        "{HEAD}.global .u32 a[8] = {{10, 11, 12, 13, 14, 15, 16, 17}};\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .b64 %rd<8>;\n.reg .b32 %r<4>;\n\
         ld.param.u64 %rd1, [out];\n\
         mov.u64 %rd2, a[3];\n\
         st.global.u64 [%rd1], %rd2;\n\
         ld.global.u32 %r1, a[2];\n\
         cvt.u64.u32 %rd3, %r1;\n\
         st.global.u64 [%rd1+8], %rd3;\n\
         mov.u64 %rd4, 5;\n\
         ld.global.u32 %r2, a[%rd4];\n\
         cvt.u64.u32 %rd5, %r2;\n\
         st.global.u64 [%rd1+16], %rd5;\n\
         ret;\n}}\n"
    );
    let (m, v) = run(&src, 3);
    let a = m.global("a").unwrap().address;
    assert_eq!(v, vec![a + 12, 12, 15]);
}

#[test]
fn mask_initializers_store_one_address_byte() {
    let src = format!(
        "{HEAD}.global .u32 foo[4];\n\
         .global .u8 bytes[4] = {{0xFF(foo), 0xFF00(foo), 0xFF0000(generic(foo)+4), 0xFF(1000 + 546)}};\n\
         .visible .entry k(.param .u64 out)\n{{\nret;\n}}\n"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let foo = m.global("foo").unwrap().address;
    let b = m.global("bytes").unwrap().address;
    let mut got = [0u8; 4];
    // SAFETY: `bytes` is a live 4-byte global of the module.
    unsafe { std::ptr::copy_nonoverlapping(b as *const u8, got.as_mut_ptr(), 4) };
    let want = [
        foo as u8,
        (foo >> 8) as u8,
        ((foo + 4) >> 16) as u8,
        (1546u64 & 0xFF) as u8,
    ];
    assert_eq!(got, want);
}

#[test]
fn vector_registers_named_whole_load_and_store() {
    let src = format!(
        "{HEAD}.global .u32 src[4] = {{1, 2, 3, 4}};\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .v4 .b32 %q;\n.reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [out];\n\
         ld.global.v4.b32 %q, [src];\n\
         st.global.v4.b32 [%rd1], %q;\n\
         ret;\n}}\n"
    );
    let (_, v) = run(&src, 2);
    assert_eq!(v, vec![1 | 2 << 32, 3 | 4 << 32]);
}

/// Kernels are lowered in parallel at load (`Module::load`), but the diagnostic is the one a
/// sequential load gives: the first failing kernel in module order (here kernel 25 of 40, whose
/// `add.u32` names a `.u16` register; kernel 31 fails too, later in the module).
#[test]
fn parallel_lowering_reports_the_first_error_in_module_order() {
    let mut src = String::from(HEAD);
    let mut want_line = 0;
    for k in 0..40 {
        let bad = match k {
            25 => "add.u32 %r1, %h, %r1;",
            31 => "mul.f32 %f, %f, 2;",
            _ => "add.u32 %r1, %r1, %r1;",
        };
        src += &format!(
            ".visible .entry k{k}()\n{{\n.reg .b32 %r<2>;\n.reg .u16 %h;\n.reg .f32 %f;\n"
        );
        if k == 25 {
            want_line = src.lines().count() + 1;
        }
        src += &format!("{bad}\nret;\n}}\n");
    }
    for threads in [1, 4] {
        engine::set_worker_threads(threads);
        let e = Module::load(&src, "p.ptx").unwrap_err();
        let d = &e.diagnostics[0];
        assert_eq!(d.line as usize, want_line, "{threads} threads: {e}");
        assert!(d.message.contains("'%h' is declared .u16"), "{e}");
    }
    engine::set_worker_threads(0);
}
