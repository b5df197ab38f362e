//! `tensormap.replace` (ISA 9.7.9.26): each form replaces one field of a tensor-map object and
//! nothing else, in global and in shared memory; what ptxas refuses is refused. The ISA fixes
//! the fields and their values (Table 33 for `.field3`); where each field lives in the 128-byte
//! object is this engine's layout (`crate::tensormap`), the one its driver writes too. Every
//! form below was checked with `ptxas -arch=sm_90a` (sm_100a for `.swizzle_atomicity`).

use super::*;

const TM: &str = ".version 8.3\n.target sm_90a\n.address_size 64\n";

#[test]
fn replace_writes_each_field_and_nothing_else() {
    let src = format!(
        "{TM}.visible .entry tm(.param .u64 obj, .param .u64 addr)
        {{
          .reg .b64 %rd<4>; .reg .b32 %r<4>;
          .shared .align 64 .b8 s[128];
          ld.param.u64 %rd1, [obj];
          ld.param.u64 %rd2, [addr];
          mov.u32 %r1, 3;
          tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;
          tensormap.replace.tile.rank.global.b1024.b32 [%rd1], 2;
          tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 1, 64;
          tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 4, %r1;
          tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 2, 4096;
          tensormap.replace.tile.element_stride.global.b1024.b32 [%rd1], 0, 2;
          tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 10;
          tensormap.replace.tile.interleave_layout.global.b1024.b32 [%rd1], 2;
          tensormap.replace.tile.swizzle_mode.b1024.b32 [%rd1], 3;
          tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 1;
          mov.u64 %rd3, s;
          st.shared.u32 [s+108], 0;
          tensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd3], 4;
          ld.shared.u32 %r2, [s+108];
          st.global.u32 [%rd1+124], %r2;
          ret;
        }}"
    );
    let m = Module::load(&src, "tm.ptx").unwrap_or_else(|e| panic!("{e}"));
    let obj = upload(&[0xa5u8; 128]);
    let mut params = obj.to_le_bytes().to_vec();
    params.extend_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
    launch(&m.kernel("tm").unwrap(), &cfg(1, 1), &params).unwrap();
    let got = download::<u8>(obj, 128);
    let mut want = [0xa5u8; 128];
    let mut put = |off: usize, bytes: &[u8]| want[off..off + bytes.len()].copy_from_slice(bytes);
    put(0, &0x1234_5678_9abc_def0u64.to_le_bytes()); // global_address
    put(108, &2u32.to_le_bytes()); // rank (the rank minus one: a 3-D map)
    put(68 + 4, &64u32.to_le_bytes()); // box_dim[1]
    put(48 + 16, &3u32.to_le_bytes()); // global_dim[4]
    put(8 + 16, &4096u64.to_le_bytes()); // global_stride[2]
    put(88, &2u32.to_le_bytes()); // element_stride[0]
    put(112, &[10]); // elemtype .bf16
    put(113, &[2]); // interleave_layout 32B
    put(114, &[3]); // swizzle_mode 128B
    put(116, &[1]); // fill_mode OOB-NaN
    put(124, &4u32.to_le_bytes()); // the shared object's rank, copied out
    assert_eq!(got, want);
    mem::free(obj).unwrap();
}

#[test]
fn replace_refuses_what_ptxas_refuses() {
    let body = |inst: &str| {
        format!(
            "{TM}.visible .entry k(.param .u64 o) {{ .reg .b64 %r; .reg .b32 %v; \
             ld.param.u64 %r, [o]; mov.u32 %v, 1; {inst} ret; }}"
        )
    };
    for inst in [
        // A .field3 value must be an immediate of Table 33.
        "tensormap.replace.tile.elemtype.global.b1024.b32 [%r], 16;",
        "tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%r], %v;",
        // `.global_address` and `.global_stride` take .b64, the others .b32.
        "tensormap.replace.tile.rank.global.b1024.b64 [%r], 1;",
        "tensormap.replace.tile.global_address.global.b1024.b32 [%r], %v;",
        // Five dimensions at most.
        "tensormap.replace.tile.box_dim.global.b1024.b32 [%r], 5, 8;",
    ] {
        assert!(Module::load(&body(inst), "bad.ptx").is_err(), "{inst}");
    }
}

/// `tensormap.cp_fenceproxy` (ISA 9.7.13.16): a map edited in shared memory reaches global
/// memory whole (the ISA: a copy of the 128 bytes at `[src]` to `[dst]`), and a tensor copy after
/// the acquire fence reads the new map: its global address, replaced in shared memory, is where
/// the copied row comes from. The instruction forms are the ISA's example's.
#[test]
fn cp_fenceproxy_publishes_a_map_edited_in_shared_memory() {
    let src = format!(
        "{TM}.visible .entry tm(.param .u64 obj, .param .u64 addr, .param .u64 out)
        {{
          .reg .b64 %rd<6>; .reg .b32 %r<6>; .reg .pred %p;
          .shared .align 128 .b8 s[128];
          .shared .align 128 .b8 row[64];
          .shared .align 8 .b64 bar;
          ld.param.u64 %rd1, [obj];
          ld.param.u64 %rd2, [addr];
          ld.param.u64 %rd3, [out];
          // Each of the 32 threads brings one word of the map into shared memory.
          mov.u32 %r1, %tid.x;
          mul.wide.u32 %rd4, %r1, 4;
          add.u64 %rd5, %rd1, %rd4;
          ld.global.u32 %r2, [%rd5];
          mov.u32 %r3, s;
          mad.lo.u32 %r3, %r1, 4, %r3;
          st.shared.u32 [%r3], %r2;
          bar.warp.sync -1;
          tensormap.replace.tile.global_address.shared::cta.b1024.b64 [s], %rd2;
          tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [s], 128;
          fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
          setp.ne.u32 %p, %r1, 0;
          @%p bra done;
          mbarrier.init.shared.b64 [bar], 1;
          mbarrier.arrive.expect_tx.shared.b64 %rd4, [bar], 64;
          mov.u32 %r4, 0;
          cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [row], [%rd1, {{%r4}}], [bar];
        wait:
          mbarrier.try_wait.shared.b64 %p, [bar], %rd4;
          @!%p bra wait;
          ld.shared.u32 %r5, [row+60];
          st.global.u32 [%rd3], %r5;
        done:
          ret;
        }}"
    );
    let m = Module::load(&src, "tm.ptx").unwrap_or_else(|e| panic!("{e}"));
    // A 1-D map of 16 u32 elements (type code 2, ISA Table 33) with a box of 16, pointing at
    // `old`; the kernel points it at `new`.
    let old = upload(&[7u32; 16]);
    let new = upload(&(100..116u32).collect::<Vec<_>>());
    let map = crate::tensormap::Map {
        addr: old,
        rank: 1,
        dims: [16, 0, 0, 0, 0],
        box_dim: [16, 0, 0, 0, 0],
        elem_strides: [1, 0, 0, 0, 0],
        elemtype: 2,
        ..Default::default()
    }
    .to_bytes();
    let obj = upload(&map);
    let out = upload(&[0u32; 1]);
    let mut params = obj.to_le_bytes().to_vec();
    params.extend_from_slice(&new.to_le_bytes());
    params.extend_from_slice(&out.to_le_bytes());
    launch(&m.kernel("tm").unwrap(), &cfg(1, 32), &params).unwrap();
    let mut want = map;
    want[..8].copy_from_slice(&new.to_le_bytes());
    assert_eq!(download::<u8>(obj, 128), want.to_vec());
    // The tensor copy read the new address: the row's last element is new[15].
    assert_eq!(download::<u32>(out, 1), [115]);
    for p in [old, new, obj, out] {
        mem::free(p).unwrap();
    }
}

#[test]
fn cp_fenceproxy_refuses_what_ptxas_refuses() {
    let body = |inst: &str| {
        format!(
            "{TM}.visible .entry k(.param .u64 o) {{ .reg .b64 %r; .shared .align 128 .b8 s[128];
             ld.param.u64 %r, [o]; {inst} ret; }}"
        )
    };
    let good = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned [%r], [s], 128;";
    assert!(Module::load(&body(good), "good.ptx").is_ok());
    for inst in [
        // The size is the immediate 128.
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%r], [s], 64;",
        // .sync.aligned and a scope are mandatory.
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu [%r], [s], 128;",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sync.aligned [%r], [s], 128;",
    ] {
        assert!(Module::load(&body(inst), "bad.ptx").is_err(), "{inst}");
    }
}
