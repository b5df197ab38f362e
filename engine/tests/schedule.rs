//! Seeded schedules (`engine::set_schedule`): the same seed gives the same interleaving of warps
//! and CTAs, hence the same result of a racy kernel; different seeds explore different ones.
//! The kernels race on purpose; what they may produce follows from the PTX memory model (any
//! interleaving of the racing stores, the last one winning), and the tests assert only that set
//! and determinism, never one particular interleaving.

use engine::{launch, mem, LaunchConfig, Module};
use std::collections::BTreeSet;

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

// Lane 0 of each warp stores its warp number + 1 into one shared word, without ordering; after
// the barrier thread 0 publishes the word: the last warp to store wins.
.visible .entry warps(.param .u64 out)
{
    .shared .align 4 .b32 s;
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra SYNC;
    shr.u32 %r3, %r1, 5;
    add.u32 %r3, %r3, 1;
    st.shared.u32 [s], %r3;
SYNC:
    bar.sync 0;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra DONE;
    ld.shared.u32 %r4, [s];
    st.global.u32 [%rd1], %r4;
DONE:
    ret;
}

// Thread 0 of each CTA takes the next slot of a global counter and writes its CTA number
// there: out[1..] is the order the CTAs reached that point.
.visible .entry ctas(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    atom.global.add.u32 %r2, [%rd1], 1;
    mov.u32 %r3, %ctaid.x;
    mul.wide.u32 %rd2, %r2, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3+4], %r3;
DONE:
    ret;
}
"#;

fn run(m: &Module, kernel: &str, grid: u32, block: u32, words: usize) -> Vec<u32> {
    let bytes = (words * 4) as u64;
    let out = mem::alloc(bytes).unwrap();
    // SAFETY: a fresh allocation of `bytes` bytes.
    unsafe { std::ptr::write_bytes(out as *mut u8, 0, bytes as usize) };
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch(&m.kernel(kernel).unwrap(), &cfg, &out.to_le_bytes()).unwrap();
    let mut v = vec![0u32; words];
    // SAFETY: `out` holds `words` u32.
    unsafe { std::ptr::copy_nonoverlapping(out as *const u32, v.as_mut_ptr(), words) };
    mem::free(out).unwrap();
    v
}

/// One seeded run of both kernels: the warp race's winner and the CTAs' order.
fn trial(m: &Module, seed: u64) -> (u32, Vec<u32>) {
    engine::set_schedule(Some(seed));
    let w = run(m, "warps", 1, 256, 1)[0];
    let c = run(m, "ctas", 16, 32, 17);
    engine::set_schedule(None);
    assert_eq!(c[0], 16, "every CTA took a slot");
    (w, c[1..].to_vec())
}

#[test]
fn the_same_seed_gives_the_same_interleaving_and_others_explore() {
    let m = Module::load(PTX, "schedule.ptx").unwrap_or_else(|e| panic!("{e}"));
    let mut winners = BTreeSet::new();
    let mut orders = BTreeSet::new();
    for seed in 1..=24 {
        let (w, order) = trial(&m, seed);
        assert_eq!(
            trial(&m, seed),
            (w, order.clone()),
            "seed {seed} is not reproducible"
        );
        // Any of the 8 warps may store last; every CTA appears once.
        assert!((1..=8).contains(&w), "seed {seed}: winner {w}");
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (0..16).collect::<Vec<u32>>(),
            "seed {seed}: {order:?}"
        );
        winners.insert(w);
        orders.insert(order);
    }
    assert!(
        winners.len() >= 3,
        "seeds explore few warp orders: {winners:?}"
    );
    assert!(
        orders.len() >= 12,
        "seeds explore few CTA orders: {}",
        orders.len()
    );
}
