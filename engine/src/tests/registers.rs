//! Registers read before their thread wrote them. The ISA leaves such values undefined; the
//! shim reads 0 in every CTA (README, "PTX instruction families"). A worker's next CTA starts
//! with the previous CTA's register file, clearing only the rows `ir::uninit` finds may be read
//! unwritten, so these kernels run many CTAs per worker with values left behind in every row.

use super::{run_out, HEAD, PRO};
use crate::Module;

/// A register written on one side of a branch and read on the other, one read on a loop's
/// first trip, and one written under a guard: expected values from the reading above worked
/// by hand per CTA and thread.
#[test]
fn registers_read_before_written_read_zero_in_every_cta() {
    let body = format!(
        "{PRO}
        // Even CTAs write r5 = 77 before reading it; odd CTAs read it unwritten (0).
        and.b32 %r6, %r3, 1;
        setp.eq.u32 %p1, %r6, 0;
        @%p1 bra EVEN;
        bra.uni JOIN;
    EVEN:
        mov.u32 %r5, 77;
    JOIN:
        // r7 counts three trips from its unwritten start: 3.
        mov.u32 %r8, 0;
    LOOP:
        add.u32 %r7, %r7, 1;
        add.u32 %r8, %r8, 1;
        setp.lt.u32 %p2, %r8, 3;
        @%p2 bra LOOP;
        // r9 = 1000 in even threads only; odd threads read it unwritten (0).
        and.b32 %r10, %r1, 1;
        setp.eq.u32 %p3, %r10, 0;
        @%p3 mov.u32 %r9, 1000;
        add.u32 %r11, %r5, %r7;
        add.u32 %r11, %r11, %r9;
        st.global.u32 [%rd1], %r11;
        // Fill the rows an analysis might wrongly skip, for the next CTA on this worker.
        mov.u32 %r5, 0xdead;
        mov.u32 %r7, 0xdead;
        mov.u32 %r9, 0xdead;
        ret;"
    );
    let (grid, block) = (64, 64);
    let got = run_out(&body, grid, block, (grid * block) as usize);
    for (i, &v) in got.iter().enumerate() {
        let (cta, tid) = (i as u32 / block, i as u32 % block);
        let want = if cta % 2 == 0 { 77 } else { 0 } + 3 + if tid % 2 == 0 { 1000 } else { 0 };
        assert_eq!(v, want, "CTA {cta} thread {tid}");
    }
    // The three registers above are the only rows to clear: r5, r7 and r9 (by hand).
    let src = format!("{HEAD}.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n");
    let m = Module::load(&src, "t.ptx").unwrap();
    let zeroed = m.kernel("k").unwrap().program.zeroed.clone();
    assert_eq!(zeroed.map(|z| z.len()), Some(3));
}

/// A shuffle reading a lane past the end of a partial warp (undefined in the ISA) reads 0:
/// blocks of 48 threads, every thread writes r12 = 5 and reads lane 20 of its warp, which
/// exists in the first warp only.
#[test]
fn a_shuffle_from_a_lane_that_does_not_exist_reads_zero() {
    let body = format!(
        "{PRO}
        mov.u32 %r12, 5;
        activemask.b32 %r13;
        shfl.sync.idx.b32 %r14, %r12, 20, 0x1f, %r13;
        st.global.u32 [%rd1], %r14;
        ret;"
    );
    let (grid, block) = (32, 48);
    let got = run_out(&body, grid, block, (grid * block) as usize);
    for (i, &v) in got.iter().enumerate() {
        let tid = i as u32 % block;
        assert_eq!(
            v,
            if tid < 32 { 5 } else { 0 },
            "thread {tid} of CTA {}",
            i as u32 / block
        );
    }
}
