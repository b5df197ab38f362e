//! `tensormap.replace` (ISA 9.7.9.26): each form replaces one field of a tensor-map object and
//! nothing else, in global and in shared memory; what ptxas refuses is refused. The ISA fixes
//! the fields and their values (Table 33 for `.field3`); where each field lives in the 128-byte
//! object is this engine's layout (`crate::tensormap`), the one its driver writes too. Every
//! form below was checked with `ptxas -arch=sm_90a` (sm_100a for `.swizzle_atomicity`); the
//! `.cta_group` kernels (written to `$TENSORMAP_PTX_DIR` when that is set) and the `.cta_group`
//! forms of the load checks with `ptxas -arch=sm_100a` (13.5).

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

// The wide im2col modes and the four-row modes of `cp.async.bulk.tensor` (ISA 5.5.3.4, 5.5.5,
// 9.7.9.25.5.2), sm_100. Every expected byte below is worked by hand from the ISA's text as
// `crate::sem::im2col` documents its reading (the column along W from `W + wOffset`, the
// bounding box `lower + wOffset ..= dim - 1 + upper + wOffset`, carrying into the next image
// past it; `wHalo` halo pixels after the column, or after each 32 pixels with `::128`), never
// from a run of the engine. Elements are u32 (ISA type code 2) holding `1 + c + 10 w + 100 h +
// 1000 n` (NWC: `1 + c + 10 w + 1000 n`; 2-D: `1 + col + 100 row`), so that an out-of-bound
// element (zero-filled) is told from every element of the tensor.

const TM100: &str = ".version 8.6\n.target sm_100a\n.address_size 64\n";

/// The value an element holds, NHWC coordinates.
fn elem(n: i64, h: i64, w: i64, c: i64) -> u32 {
    (1 + c + 10 * w + 100 * h + 1000 * n) as u32
}

/// A tensor of `n` images of `h` x `w` pixels of `c` u32 channels, NHWC, and its map (rank 4,
/// or 3 when `h` is None: NWC), in `mode` with the given W corners.
fn nhwc(n: u64, h: Option<u64>, w: u64, c: u64) -> (Vec<u32>, crate::tensormap::Map) {
    let hh = h.unwrap_or(1);
    let mut v = Vec::new();
    for ni in 0..n {
        for hi in 0..hh {
            for wi in 0..w {
                for ci in 0..c {
                    v.push(elem(ni as i64, hi as i64, wi as i64, ci as i64));
                }
            }
        }
    }
    let (rank, dims, strides) = match h {
        Some(h) => (4, [c, w, h, n, 0], [c * 4, c * 4 * w, c * 4 * w * h, 0, 0]),
        None => (3, [c, w, n, 0, 0], [c * 4, c * 4 * w, 0, 0, 0]),
    };
    let map = crate::tensormap::Map {
        rank,
        dims,
        strides,
        elem_strides: std::array::from_fn(|d| (d < rank as usize) as u32),
        elemtype: 2,
        channels_per_pixel: c as u32,
        ..Default::default()
    };
    (v, map)
}

/// Runs one tensor copy `inst` (PTX with `[box]`, `[%rd1, {coords}]`, `[bar]`, the coordinates
/// in %r1..%r5 and the im2col operands in %h1 and %h2) by one thread, after filling the
/// `smem`-byte box with 0xee bytes, completion expected after `bytes`. Returns whether the
/// mbarrier's phase completed right after the copy (the copy's bytes were `bytes`), and the box;
/// Err: the launch's error.
fn copy(
    tensor: &[u32],
    map: crate::tensormap::Map,
    inst: &str,
    coords: &[i32],
    im2col: [u16; 2],
    smem: usize,
    bytes: usize,
) -> Result<(bool, Vec<u8>), crate::ExecError> {
    let movs: String = (coords.iter().enumerate())
        .map(|(k, c)| format!("mov.u32 %r{}, {c};\n", k + 1))
        .collect();
    let src = format!(
        "{TM100}.visible .entry k(.param .u64 obj, .param .u64 out)
        {{
          .reg .b64 %rd<8>; .reg .b32 %r<16>; .reg .b16 %h<4>; .reg .pred %p;
          .shared .align 1024 .b8 box[{smem}];
          .shared .align 8 .b64 bar;
          ld.param.u64 %rd1, [obj];
          ld.param.u64 %rd2, [out];
          mov.u32 %r10, 0;
        fill:
          mov.u32 %r11, box;
          add.u32 %r11, %r11, %r10;
          st.shared.u32 [%r11], 0xeeeeeeee;
          add.u32 %r10, %r10, 4;
          setp.lt.u32 %p, %r10, {smem};
          @%p bra fill;
          {movs}
          mov.u16 %h1, {h1};
          mov.u16 %h2, {h2};
          mbarrier.init.shared.b64 [bar], 1;
          mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], {bytes};
          {inst}
          mbarrier.test_wait.shared.b64 %p, [bar], %rd3;
          selp.u32 %r12, 1, 0, %p;
          st.global.u32 [%rd2], %r12;
          mov.u32 %r10, 0;
        out:
          mov.u32 %r11, box;
          add.u32 %r11, %r11, %r10;
          ld.shared.u32 %r12, [%r11];
          cvt.u64.u32 %rd4, %r10;
          add.u64 %rd5, %rd2, %rd4;
          st.global.u32 [%rd5+4], %r12;
          add.u32 %r10, %r10, 4;
          setp.lt.u32 %p, %r10, {smem};
          @%p bra out;
          ret;
        }}",
        h1 = im2col[0],
        h2 = im2col[1],
    );
    let m = Module::load(&src, "copy.ptx").unwrap_or_else(|e| panic!("{e}\n{src}"));
    let t = upload(tensor);
    let map = crate::tensormap::Map { addr: t, ..map };
    let obj = upload(&map.to_bytes());
    let out = upload(&vec![0u8; smem + 4]);
    let mut params = obj.to_le_bytes().to_vec();
    params.extend_from_slice(&out.to_le_bytes());
    let r = launch(&m.kernel("k").unwrap(), &cfg(1, 1), &params);
    let got = download::<u8>(out, smem + 4);
    for p in [t, obj, out] {
        mem::free(p).unwrap();
    }
    r.map(|_| (got[..4] != [0; 4], got[4..].to_vec()))
}

/// The box a column of pixels fills: each pixel `c` u32 channels from channel `c0`, its values
/// or zeros (out of bounds), then 0xee bytes to `smem`.
fn column(pixels: &[Option<(i64, i64, i64)>], c0: i64, c: i64, cs: i64, smem: usize) -> Vec<u8> {
    let mut v: Vec<u8> = Vec::new();
    for p in pixels {
        for ch in c0..c0 + cs {
            let x = match p {
                Some((n, h, w)) if ch < c => elem(*n, *h, *w, ch),
                _ => 0,
            };
            v.extend_from_slice(&x.to_le_bytes());
        }
    }
    v.resize(smem, 0xee);
    v
}

/// Pixels of image `n`, row `h`, along W: `ws`, out of bounds outside `0..w` and `0..images`.
fn row(
    n: i64,
    h: i64,
    ws: impl IntoIterator<Item = i64>,
    w: i64,
    images: i64,
) -> Vec<Option<(i64, i64, i64)>> {
    ws.into_iter()
        .map(|x| (x >= 0 && x < w && n >= 0 && n < images && h >= 0).then_some((n, h, x)))
        .collect()
}

#[test]
fn im2col_w_loads_the_column_along_w_then_its_halo() {
    let inst = "cp.async.bulk.tensor.4d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3, %r4}], [bar], {%h1, %h2};";
    // N=2, H=3, W=5, C=4: a pixel is 16 bytes.
    let (t, base) = nhwc(2, Some(3), 5, 4);
    let map = |lo: i32, hi: i32, es_w: u32, ppc: u32| crate::tensormap::Map {
        mode: crate::tensormap::MODE_IM2COL_W,
        pixel_box_lower_corner: [lo, 0, 0],
        pixel_box_upper_corner: [hi, 0, 0],
        elem_strides: [1, es_w, 1, 1, 0],
        pixels_per_column: ppc,
        ..base
    };
    let smem = 256;
    let r = |n, ws: &[i64]| row(n, 1, ws.iter().copied(), 5, 2);
    let cat = |parts: Vec<Vec<Option<(i64, i64, i64)>>>| parts.concat();
    // Box W -1..=4 (corners -1, 0), 8 pixels from W -1 of image 0, row H 1: W -1..=4, then
    // the box's left edge in image 1: -1, 0; the halo of 2: W 1, 2 of image 1. 10 pixels.
    let want = cat(vec![
        r(0, &[-1, 0, 1, 2, 3, 4]),
        r(1, &[-1, 0]),
        r(1, &[1, 2]),
    ]);
    let got = copy(
        &t,
        map(-1, 0, 1, 8),
        inst,
        &[0, -1, 1, 0],
        [2, 0],
        smem,
        160,
    )
    .unwrap();
    assert_eq!(got, (true, column(&want, 0, 4, 4, smem)));
    // wOffset 1: the box moves to 0..=5 and the start to W 0; W 5 is past the tensor.
    let want = cat(vec![
        r(0, &[0, 1, 2, 3, 4, 5]),
        r(1, &[0, 1]),
        r(1, &[2, 3]),
    ]);
    let got = copy(
        &t,
        map(-1, 0, 1, 8),
        inst,
        &[0, -1, 1, 0],
        [2, 1],
        smem,
        160,
    )
    .unwrap();
    assert_eq!(got, (true, column(&want, 0, 4, 4, smem)));
    // Traversal stride 2 along W: -1, 1, 3, then images 1 and 2 (past the last image: out of
    // bounds); the halo of 1 is W 3 of image 2.
    let want = cat(vec![
        r(0, &[-1, 1, 3]),
        r(1, &[-1, 1, 3]),
        r(2, &[-1, 1]),
        r(2, &[3]),
    ]);
    let got = copy(
        &t,
        map(-1, 0, 2, 8),
        inst,
        &[0, -1, 1, 0],
        [1, 0],
        smem,
        144,
    )
    .unwrap();
    assert_eq!(got, (true, column(&want, 0, 4, 4, smem)));
    // A first pixel left of the box (0..=4), as the ISA allows: W -2, -1 are out of bounds.
    let want = cat(vec![r(0, &[-2, -1, 0, 1, 2, 3, 4]), r(1, &[0])]);
    let got = copy(&t, map(0, 0, 1, 8), inst, &[0, -2, 1, 0], [0, 0], smem, 128).unwrap();
    assert_eq!(got, (true, column(&want, 0, 4, 4, smem)));
    // Channels 2..6 of 4 (the last two out of bounds), from image 1, 3 pixels with no halo.
    let want = r(1, &[3, 4, -1]);
    let got = copy(&t, map(-1, 0, 1, 3), inst, &[2, 3, 1, 1], [0, 0], smem, 48).unwrap();
    assert_eq!(got, (true, column(&want, 2, 4, 4, smem)));
    // The box is one pixel in H, wherever the coordinate puts it: row 3 of 3 is out of bounds.
    let got = copy(&t, map(-1, 0, 1, 4), inst, &[0, 0, 3, 0], [0, 0], smem, 64).unwrap();
    assert_eq!(got, (true, column(&[None; 4], 0, 4, 4, smem)));
    // The mbarrier is told the box's bytes, halo included: 160 expected, 10 pixels of 16 bytes
    // arrive, not 128.
    let got = copy(
        &t,
        map(-1, 0, 1, 8),
        inst,
        &[0, -1, 1, 0],
        [0, 0],
        smem,
        160,
    )
    .unwrap();
    assert!(!got.0);
    // The 128-byte swizzle places pixel p (16 bytes, eight to a 128-byte row) at chunk
    // (p % 8) ^ (p / 8 % 8) of row p / 8 (ISA 5.5.7).
    let want = column(
        &cat(vec![
            r(0, &[-1, 0, 1, 2, 3, 4]),
            r(1, &[-1, 0]),
            r(1, &[1, 2]),
        ]),
        0,
        4,
        4,
        smem,
    );
    let mut swizzled = vec![0xee; smem];
    for p in 0..10 {
        let at = p / 8 * 128 + ((p % 8) ^ (p / 8 % 8)) * 16;
        swizzled[at..at + 16].copy_from_slice(&want[p * 16..p * 16 + 16]);
    }
    let sw = crate::tensormap::Map {
        swizzle: 3,
        ..map(-1, 0, 1, 8)
    };
    let got = copy(&t, sw, inst, &[0, -1, 1, 0], [2, 0], smem, 160).unwrap();
    assert_eq!(got, (true, swizzled));
    // What the ISA leaves invalid stops the kernel: a first pixel right of the box (W 4 of
    // 0..=3), wHalo 512, wOffset 32; and a map of another mode.
    for (m, c, info) in [
        (map(0, -1, 1, 4), [0, 4, 1, 0], [0, 0]),
        (map(0, 0, 1, 4), [0, 0, 1, 0], [512, 0]),
        (map(0, 0, 1, 4), [0, 0, 1, 0], [0, 32]),
        (
            crate::tensormap::Map {
                mode: crate::tensormap::MODE_IM2COL_W128,
                ..map(0, 0, 1, 4)
            },
            [0, 0, 1, 0],
            [0, 0],
        ),
    ] {
        let e = copy(&t, m, inst, &c, info, smem, 64).unwrap_err();
        assert!(
            e.to_string().contains("im2col") || e.to_string().contains("Im2col"),
            "{e}"
        );
    }
}

#[test]
fn im2col_w_128_loads_four_groups_of_32_each_with_its_halo() {
    let inst = "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3}], [bar], {%h1, %h2};";
    // NWC: N=4, W=40, C=4; corners 0, 0; wHalo 3, wOffset 1: the box is W 1..=40 (W 40 is
    // past the tensor), the column starts at W 1 of image 0.
    let (t, base) = nhwc(4, None, 40, 4);
    let map = crate::tensormap::Map {
        mode: crate::tensormap::MODE_IM2COL_W128,
        // Ignored in this mode.
        pixels_per_column: 7,
        ..base
    };
    let r = |n, ws: std::ops::RangeInclusive<i64>| row(n, 0, ws, 40, 4);
    let want = [
        // Group 0: W 1..=32 of image 0; its halo W 33..=35.
        r(0, 1..=32),
        r(0, 33..=35),
        // Group 1: W 33..=40 of image 0, W 1..=24 of image 1; halo W 25..=27 of image 1.
        r(0, 33..=40),
        r(1, 1..=24),
        r(1, 25..=27),
        // Group 2: W 25..=40 of image 1, W 1..=16 of image 2; halo 17..=19.
        r(1, 25..=40),
        r(2, 1..=16),
        r(2, 17..=19),
        // Group 3: W 17..=40 of image 2, W 1..=8 of image 3; halo 9..=11.
        r(2, 17..=40),
        r(3, 1..=8),
        r(3, 9..=11),
    ]
    .concat();
    assert_eq!(want.len(), 4 * (32 + 3));
    let smem = 4 * 35 * 16;
    let got = copy(&t, map, inst, &[0, 0, 0], [3, 1], smem, smem).unwrap();
    // The rows of NWC have no H: `elem` takes h = 0.
    assert_eq!(got, (true, column(&want, 0, 4, 4, smem)));
    // wHalo below 32 in this mode.
    let e = copy(&t, map, inst, &[0, 0, 0], [32, 0], smem, smem).unwrap_err();
    assert!(e.to_string().contains("wHalo"), "{e}");
}

#[test]
fn gather4_loads_four_rows_and_scatter4_stores_them() {
    // A 2-D u32 tensor of 10 rows of 12 columns (48 bytes a row), element `1 + col + 100 row`;
    // a box of 8 columns by one row.
    let t: Vec<u32> = (0..10)
        .flat_map(|r| (0..12).map(move |c| 1 + c + 100 * r))
        .collect();
    let map = crate::tensormap::Map {
        rank: 2,
        dims: [12, 10, 0, 0, 0],
        strides: [48, 0, 0, 0, 0],
        box_dim: [8, 1, 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        elemtype: 2,
        ..Default::default()
    };
    let inst = "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];";
    let want = |col: i64, rows: [i64; 4]| -> Vec<u8> {
        let mut v = Vec::new();
        for r in rows {
            for c in col..col + 8 {
                let x = if (0..12).contains(&c) && (0..10).contains(&r) {
                    (1 + c + 100 * r) as u32
                } else {
                    0
                };
                v.extend_from_slice(&x.to_le_bytes());
            }
        }
        v
    };
    // Columns 4..12 of rows 2, 9, 0 and 10 (past the last row: zeros), 128 bytes.
    let got = copy(&t, map, inst, &[4, 2, 9, 0, 10], [0, 0], 128, 128).unwrap();
    assert_eq!(got, (true, want(4, [2, 9, 0, 10])));
    // Columns -4..4 (the first four out of bounds) of rows 5, 5, -1, 1.
    let got = copy(&t, map, inst, &[-4, 5, 5, -1, 1], [0, 0], 128, 128).unwrap();
    assert_eq!(got, (true, want(-4, [5, 5, -1, 1])));
    // The ISA: a box of one row.
    let tall = crate::tensormap::Map {
        box_dim: [8, 2, 0, 0, 0],
        ..map
    };
    let e = copy(&t, tall, inst, &[0, 0, 1, 2, 3], [0, 0], 128, 128).unwrap_err();
    assert!(e.to_string().contains("rows"), "{e}");

    // scatter4: the shared box holds `1000 + k` at its k-th element; its four rows go to
    // columns 2..10 of rows 1, 3, 7 and 12 (past the last: not written) of a zero tensor.
    let src = format!(
        "{TM100}.visible .entry k(.param .u64 obj)
        {{
          .reg .b64 %rd<4>; .reg .b32 %r<16>; .reg .pred %p;
          .shared .align 128 .b8 box[128];
          ld.param.u64 %rd1, [obj];
          mov.u32 %r10, 0;
        fill:
          mov.u32 %r11, box;
          mad.lo.u32 %r11, %r10, 4, %r11;
          add.u32 %r12, %r10, 1000;
          st.shared.u32 [%r11], %r12;
          add.u32 %r10, %r10, 1;
          setp.lt.u32 %p, %r10, 32;
          @%p bra fill;
          fence.proxy.async.shared::cta;
          mov.u32 %r1, 2; mov.u32 %r2, 1; mov.u32 %r3, 3; mov.u32 %r4, 7; mov.u32 %r5, 12;
          cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {{%r1, %r2, %r3, %r4, %r5}}], [box];
          cp.async.bulk.commit_group;
          cp.async.bulk.wait_group 0;
          ret;
        }}"
    );
    let m = Module::load(&src, "scatter.ptx").unwrap_or_else(|e| panic!("{e}"));
    let tensor = upload(&[0u32; 120]);
    let obj = upload(
        &crate::tensormap::Map {
            addr: tensor,
            ..map
        }
        .to_bytes(),
    );
    launch(&m.kernel("k").unwrap(), &cfg(1, 1), &obj.to_le_bytes()).unwrap();
    let mut want = [0u32; 120];
    for (k, r) in [1usize, 3, 7].into_iter().enumerate() {
        for j in 0..8 {
            want[r * 12 + 2 + j] = 1000 + (k * 8 + j) as u32;
        }
    }
    assert_eq!(download::<u32>(tensor, 120), want);
    for p in [tensor, obj] {
        mem::free(p).unwrap();
    }
}

#[test]
fn tensor_copy_modes_refused_or_checked_at_load() {
    let body = |tm: &str, inst: &str| {
        format!(
            "{tm}.visible .entry k(.param .u64 o) {{ .reg .b64 %rd<2>; .reg .b32 %r<6>; .reg .b16 %h<3>;
             .shared .align 128 .b8 box[128]; .shared .align 8 .b64 bar;
             ld.param.u64 %rd1, [o]; {inst} ret; }}"
        )
    };
    let good = [
        "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3}], [bar], {%h1, %h2};",
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar], {%h1, %h2};",
        "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r2, %r3, %r4, %r5}], [box];",
        // The prefetches of these modes change nothing a program computes.
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd1, {%r1, %r2, %r3, %r4, %r5}];",
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [%rd1, {%r1, %r2, %r3}], {%h1, %h2};",
        // `.cta_group` on the loads, of every mode.
        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [box], [%rd1, {%r1}], [bar];",
        "cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes.cta_group::1 [box], [%rd1, {%r1}], [bar];",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.cta_group::2 [box], [%rd1, {%r1, %r2, %r3}], [bar], {%h1};",
    ];
    for inst in good {
        let src = body(TM100, inst);
        assert!(Module::load(&src, "good.ptx").is_ok(), "{inst}");
    }
    for inst in [
        // {wHalo, wOffset}: two operands.
        "cp.async.bulk.tensor.4d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3, %r4}], [bar], {%h1, %h2, %h1};",
        // gather4 and scatter4 are 2-D and name five coordinates.
        "cp.async.bulk.tensor.3d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];",
        "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2}], [bar];",
        // Not yet: .im2col_no_offs.
        "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r2, %r3}], [box];",
        // `.cta_group` on a store or a linear copy (ptxas: "Arguments mismatch", "Illegal
        // modifier").
        "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.cta_group::2 [%rd1, {%r1}], [box];",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.cta_group::2 [box], [%rd1], 16, [bar];",
    ] {
        assert!(Module::load(&body(TM100, inst), "bad.ptx").is_err(), "{inst}");
    }
    // sm_100 modes on an sm_90 target, as ptxas refuses them.
    for inst in good {
        let e = Module::load(&body(TM, inst), "sm90.ptx").unwrap_err();
        assert!(e.to_string().contains("sm_100"), "{e}");
    }
}

/// The CTA-pair loads `cp.async.bulk.tensor ... .cta_group::2` (9.7.9.25.5.2) in a cluster of 4
/// CTAs (pairs 0-1 and 2-3), one thread each, from a 1-D u32 tensor `100 + i` in 16-element
/// (64-byte) boxes. CTA `r`:
///
/// 1. loads box `r` into its own `box` with `.cta_group::2`, the mbarrier `bar` addressed as
///    CUTLASS's `SM100_TMA_2SM_LOAD` does (its own address with the peer bit, 24, cleared):
///    on a GPU the even CTA's `bar`, so each even CTA's `bar`, expecting 2 x 64 bytes,
///    completes, and the odd CTAs' `bar`s see no bytes;
/// 2. multicasts box `r` to offset 64 r of `box2` in CTAs 0, 1 and 2 (ctaMask 0b0111), the
///    same peer-bit-cleared `bar2`: the signal of each destination `d` goes to the CTA of `d`'s
///    pair with the parity of `bar2`'s (even) CTA, `d & !1`: per copy 2 x 64 bytes to CTA 0
///    (for destinations 0 and 1) and 64 to CTA 2, so 512 and 256 bytes from the four copies;
/// 3. the same into `box3`, the mbarrier `bar3` of CTA 1 through `mapa` (odd): the signals go
///    to `d | 1`, 512 bytes to CTA 1 and 256 to CTA 3 (not a destination itself).
///
/// Each mbarrier (count 1) expects those bytes with its `arrive.expect_tx`, or, expecting none,
/// is arrived on after the copies; then each completes its phase exactly when it saw the bytes
/// worked out here. Each CTA writes the three completions, then `box` (128 bytes), `box2` and
/// `box3`.
#[test]
fn cta_group_2_loads_signal_the_pairs_mbarriers() {
    let src = format!(
        "{TM100}.visible .entry k(.param .u64 obj, .param .u64 out)
        {{
          .reg .b64 %rd<8>; .reg .b32 %r<32>; .reg .b16 %h<2>; .reg .pred %p<4>;
          .shared .align 128 .b8 box[128];
          .shared .align 128 .b8 box2[256];
          .shared .align 128 .b8 box3[256];
          .shared .align 8 .b64 bar;
          .shared .align 8 .b64 bar2;
          .shared .align 8 .b64 bar3;
          ld.param.u64 %rd1, [obj];
          ld.param.u64 %rd2, [out];
          mov.u32 %r1, %cluster_ctarank;
          mov.u32 %r10, 0;
        fill:
          mov.u32 %r11, box;
          add.u32 %r11, %r11, %r10;
          st.shared.u32 [%r11], 0xeeeeeeee;
          add.u32 %r10, %r10, 4;
          setp.lt.u32 %p1, %r10, 640;
          @%p1 bra fill;
          mbarrier.init.shared.b64 [bar], 1;
          mbarrier.init.shared.b64 [bar2], 1;
          mbarrier.init.shared.b64 [bar3], 1;
          fence.mbarrier_init.release.cluster;
          fence.proxy.async.shared::cta;
          barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;
          // The expected bytes: 128 on the even CTAs' bar, 512/256 on bar2 of CTAs 0/2 and on
          // bar3 of CTAs 1/3.
          and.b32 %r2, %r1, 1;
          setp.eq.u32 %p2, %r2, 0;
          setp.lt.u32 %p3, %r1, 2;
          selp.u32 %r3, 512, 256, %p3;
          @%p2 mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 128;
          @%p2 mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar2], %r3;
          @!%p2 mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar3], %r3;
          // The copies, box r of the tensor each.
          shl.b32 %r4, %r1, 4;
          mov.u32 %r5, box;
          mov.u32 %r6, bar;
          and.b32 %r6, %r6, 0xFEFFFFFF;
          cp.async.bulk.tensor.1d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd1, {{%r4}}], [%r6];
          mov.u16 %h1, 7;
          shl.b32 %r7, %r1, 6;
          mov.u32 %r5, box2;
          add.u32 %r5, %r5, %r7;
          mov.u32 %r6, bar2;
          and.b32 %r6, %r6, 0xFEFFFFFF;
          cp.async.bulk.tensor.1d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r5], [%rd1, {{%r4}}], [%r6], %h1;
          mov.u32 %r5, box3;
          add.u32 %r5, %r5, %r7;
          mov.u32 %r6, bar3;
          mapa.shared::cluster.u32 %r6, %r6, 1;
          cp.async.bulk.tensor.1d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r5], [%rd1, {{%r4}}], [%r6], %h1;
          barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;
          // The mbarriers that expect no bytes: completed by this arrival if none came.
          @!%p2 mbarrier.arrive.shared.b64 %rd3, [bar];
          @!%p2 mbarrier.arrive.shared.b64 %rd3, [bar2];
          @%p2 mbarrier.arrive.shared.b64 %rd3, [bar3];
          // out[164 r ..]: the three completions of phase 0 (tried a bounded number of times),
          // then box, box2 and box3.
          mul.lo.u32 %r8, %r1, 656;
          cvt.u64.u32 %rd4, %r8;
          add.u64 %rd4, %rd2, %rd4;
          mov.u32 %r9, 0;
        wait:
          mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;
          selp.u32 %r12, 1, 0, %p1;
          mbarrier.try_wait.parity.shared.b64 %p1, [bar2], 0;
          selp.u32 %r13, 1, 0, %p1;
          mbarrier.try_wait.parity.shared.b64 %p1, [bar3], 0;
          selp.u32 %r14, 1, 0, %p1;
          and.b32 %r15, %r12, %r13;
          and.b32 %r15, %r15, %r14;
          add.u32 %r9, %r9, 1;
          setp.eq.u32 %p1, %r15, 0;
          setp.lt.u32 %p3, %r9, 100;
          and.pred %p1, %p1, %p3;
          @%p1 bra wait;
          st.global.v2.u32 [%rd4], {{%r12, %r13}};
          st.global.u32 [%rd4+8], %r14;
          mov.u32 %r10, 0;
        copy:
          mov.u32 %r11, box;
          add.u32 %r11, %r11, %r10;
          ld.shared.u32 %r16, [%r11];
          cvt.u64.u32 %rd5, %r10;
          add.u64 %rd5, %rd4, %rd5;
          st.global.u32 [%rd5+16], %r16;
          add.u32 %r10, %r10, 4;
          setp.lt.u32 %p1, %r10, 640;
          @%p1 bra copy;
          barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;
          ret;
        }}"
    );
    if let Ok(dir) = std::env::var("TENSORMAP_PTX_DIR") {
        std::fs::write(format!("{dir}/cta_group_2.ptx"), &src).ok();
    }
    let m = Module::load(&src, "pair.ptx").unwrap_or_else(|e| panic!("{e}"));
    let tensor: Vec<u32> = (0..64).map(|i| 100 + i).collect();
    let t = upload(&tensor);
    let map = crate::tensormap::Map {
        addr: t,
        rank: 1,
        dims: [64, 0, 0, 0, 0],
        box_dim: [16, 0, 0, 0, 0],
        elem_strides: [1, 0, 0, 0, 0],
        elemtype: 2,
        ..Default::default()
    };
    let obj = upload(&map.to_bytes());
    const N: usize = 164;
    let out = upload(&vec![0u32; 4 * N]);
    let mut params = obj.to_le_bytes().to_vec();
    params.extend_from_slice(&out.to_le_bytes());
    let mut config = cfg(4, 1);
    config.cluster = [4, 1, 1];
    config.explicit_cluster = true;
    launch(&m.kernel("k").unwrap(), &config, &params).unwrap_or_else(|e| panic!("{e}"));
    let got = download::<u32>(out, 4 * N);
    for p in [t, obj, out] {
        mem::free(p).unwrap();
    }
    let boxes = |r: u32| (0..16).map(move |j| 100 + 16 * r + j);
    for r in 0..4u32 {
        let mut want = vec![1, 1, 1, 0];
        // box: its 64 bytes, the rest untouched; box2 and box3: the four boxes in CTAs 0-2,
        // untouched in CTA 3.
        want.extend(boxes(r));
        want.extend([0xeeee_eeee; 16]);
        for _ in 0..2 {
            match r {
                3 => want.extend([0xeeee_eeee; 64]),
                _ => want.extend((0..4).flat_map(boxes)),
            }
        }
        let at = r as usize * N;
        assert_eq!(got[at..at + N], want[..], "CTA {r}");
    }
}

/// What the ISA leaves undefined for `.cta_group::2` loads stops the kernel, naming it: an
/// mbarrier in neither the destination's CTA nor its peer (CTA 0 naming CTA 2's), and a
/// multicast whose signal would go to a peer the cluster lacks (destination 2 of a cluster of
/// 3, the mbarrier's CTA odd: CTA 3).
#[test]
fn cta_group_2_loads_outside_the_pair_are_stopped() {
    let run = |mapa_rank: u32, multicast: bool, ctas: u32| {
        let (suffix, mask) = match multicast {
            true => (".multicast::cluster", ", %h1"),
            false => ("", ""),
        };
        let src = format!(
            "{TM100}.visible .entry k(.param .u64 obj)
            {{
              .reg .b64 %rd<4>; .reg .b32 %r<8>; .reg .b16 %h<2>; .reg .pred %p;
              .shared .align 128 .b8 box[64];
              .shared .align 8 .b64 bar;
              ld.param.u64 %rd1, [obj];
              mbarrier.init.shared.b64 [bar], 1;
              barrier.cluster.arrive.release.aligned;
              barrier.cluster.wait.acquire.aligned;
              mov.u32 %r1, %cluster_ctarank;
              setp.ne.u32 %p, %r1, 0;
              @%p bra done;
              mov.u32 %r2, 0;
              mov.u16 %h1, 4;
              mov.u32 %r5, box;
              mov.u32 %r6, bar;
              mapa.shared::cluster.u32 %r6, %r6, {mapa_rank};
              cp.async.bulk.tensor.1d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes{suffix} [%r5], [%rd1, {{%r2}}], [%r6]{mask};
            done:
              barrier.cluster.arrive.release.aligned;
              barrier.cluster.wait.acquire.aligned;
              ret;
            }}"
        );
        if let Ok(dir) = std::env::var("TENSORMAP_PTX_DIR") {
            let name = format!("{dir}/cta_group_2_bad_{mapa_rank}_{multicast}.ptx");
            std::fs::write(name, &src).ok();
        }
        let m = Module::load(&src, "pair.ptx").unwrap_or_else(|e| panic!("{e}"));
        let t = upload(&[0u32; 16]);
        let map = crate::tensormap::Map {
            addr: t,
            rank: 1,
            dims: [16, 0, 0, 0, 0],
            box_dim: [16, 0, 0, 0, 0],
            elem_strides: [1, 0, 0, 0, 0],
            elemtype: 2,
            ..Default::default()
        };
        let obj = upload(&map.to_bytes());
        let mut config = cfg(ctas, 1);
        config.cluster = [ctas, 1, 1];
        config.explicit_cluster = true;
        let r = launch(&m.kernel("k").unwrap(), &config, &obj.to_le_bytes());
        for p in [t, obj] {
            mem::free(p).unwrap();
        }
        r
    };
    // The peer's mbarrier is allowed: CTA 1's.
    run(1, false, 4).unwrap_or_else(|e| panic!("{e}"));
    let e = run(2, false, 4).unwrap_err().to_string();
    assert!(
        e.contains("neither the destination's CTA 0 nor its peer"),
        "{e}"
    );
    let e = run(1, true, 3).unwrap_err().to_string();
    assert!(
        e.contains("signals CTA 3, the peer of CTA 2, in a cluster of 3"),
        "{e}"
    );
}

/// The packed 4- and 6-bit types (ISA 5.5.1.1; cuda.h's 16U4_ALIGN8B = 13, 16U4_ALIGN16B = 14,
/// 16U6_ALIGN16B = 15): a load moves each unit's packed bytes (16 elements of 4 bits = 8 bytes,
/// of 6 bits = 12, or 2 elements of 4 bits = 1 byte for ALIGN8B) to the start of its place in
/// shared memory (16 bytes, or 1) and leaves the padding alone; outside the tensor the packed
/// bytes read as zeros; a 6-bit store (`.b6p2x16`) packs the low 6 bits of each shared byte.
/// Expected boxes worked out here from those rules; the kernels pass `ptxas -arch=sm_100a`.
#[test]
fn packed_4_and_6_bit_tensors_move_in_units() {
    // Tensor bytes `i * 7 + 3` (as little-endian words).
    let bytes: Vec<u8> = (0..384u32).map(|i| (i * 7 + 3) as u8).collect();
    let t: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let load = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2}], [bar];";
    let map = |ty: u8, dims: [u64; 2], stride: u64, boxd: [u32; 2]| crate::tensormap::Map {
        rank: 2,
        dims: [dims[0], dims[1], 0, 0, 0],
        strides: [stride, 0, 0, 0, 0],
        box_dim: [boxd[0], boxd[1], 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        elemtype: ty,
        ..Default::default()
    };
    // The box a load fills: for box row r at tensor row `row0 + r`, unit j of `per_row` at
    // global byte `unit0 * gb + j * gb` of the row, `gb` bytes into a slot of `sb`.
    let want = |stride: usize,
                rows: usize,
                row0: usize,
                nrows: usize,
                unit0: usize,
                per_row: usize,
                gb: usize,
                sb: usize| {
        let mut v = vec![0xeeu8; nrows * per_row * sb];
        for r in 0..nrows {
            for j in 0..per_row {
                let slot = &mut v[(r * per_row + j) * sb..][..gb];
                if row0 + r < rows {
                    let at = (row0 + r) * stride + (unit0 + j) * gb;
                    slot.copy_from_slice(&bytes[at..at + gb]);
                } else {
                    slot.fill(0);
                }
            }
        }
        v
    };
    // 16U4_ALIGN16B: 256 elements (128 bytes) a row, 3 rows; a box of 128 x 2 at column 128:
    // 8 units a row, 16 bytes each in shared memory, 256 bytes in all.
    let m14 = map(14, [256, 3], 128, [128, 2]);
    let got = copy(&t, m14, load, &[128, 1], [0, 0], 256, 256).unwrap();
    assert_eq!(got, (true, want(128, 3, 1, 2, 8, 8, 8, 16)));
    // Its second row past the tensor's last: zeros, the padding untouched.
    let got = copy(&t, m14, load, &[128, 2], [0, 0], 256, 256).unwrap();
    assert_eq!(got, (true, want(128, 3, 2, 2, 8, 8, 8, 16)));
    // The ISA: the innermost coordinate a multiple of 128.
    let e = copy(&t, m14, load, &[64, 0], [0, 0], 256, 256).unwrap_err();
    assert!(e.to_string().contains("multiple of 128"), "{e}");
    // 16U6_ALIGN16B: 128 elements (96 bytes) a row, 2 rows; row 1: 8 units of 12 bytes.
    let m15 = map(15, [128, 2], 96, [128, 1]);
    let got = copy(&t, m15, load, &[0, 1], [0, 0], 128, 128).unwrap();
    assert_eq!(got, (true, want(96, 2, 1, 1, 0, 8, 12, 16)));
    // 16U4_ALIGN8B: 64 elements (32 bytes) a row; a box of 32 x 2 at column 32: bytes 16..32
    // of rows 0 and 1, packed as they are.
    let m13 = map(13, [64, 2], 32, [32, 2]);
    let got = copy(&t, m13, load, &[32, 0], [0, 0], 32, 32).unwrap();
    assert_eq!(got, (true, want(32, 2, 0, 2, 16, 16, 1, 1)));

    // A 6-bit store (.b6p2x16): shared byte k = k | 0xc0 (padding bits set) for 128 elements;
    // the tensor row gets their low 6 bits, 16 to each 12 bytes, the first lowest.
    let src = format!(
        "{TM100}.visible .entry k(.param .u64 obj)
        {{
          .reg .b64 %rd<4>; .reg .b32 %r<16>; .reg .pred %p;
          .shared .align 128 .b8 box[128];
          ld.param.u64 %rd1, [obj];
          mov.u32 %r10, 0;
        fill:
          mov.u32 %r11, box;
          add.u32 %r11, %r11, %r10;
          or.b32 %r12, %r10, 0xc0;
          st.shared.u8 [%r11], %r12;
          add.u32 %r10, %r10, 1;
          setp.lt.u32 %p, %r10, 128;
          @%p bra fill;
          fence.proxy.async.shared::cta;
          mov.u32 %r1, 0; mov.u32 %r2, 1;
          cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {{%r1, %r2}}], [box];
          cp.async.bulk.commit_group;
          cp.async.bulk.wait_group 0;
          ret;
        }}"
    );
    let m = Module::load(&src, "packed_store.ptx").unwrap_or_else(|e| panic!("{e}"));
    let tensor = upload(&[0u8; 192]);
    let obj = upload(
        &crate::tensormap::Map {
            addr: tensor,
            ..m15
        }
        .to_bytes(),
    );
    launch(&m.kernel("k").unwrap(), &cfg(1, 1), &obj.to_le_bytes()).unwrap();
    let mut want = vec![0u8; 192];
    for u in 0..8 {
        let w = (0..16).fold(0u128, |w, e| w | (((16 * u + e) as u128) & 0x3f) << (6 * e));
        want[96 + 12 * u..96 + 12 * u + 12].copy_from_slice(&w.to_le_bytes()[..12]);
    }
    assert_eq!(download::<u8>(tensor, 192), want);
    // A .b4x16_p64 store: the ISA has none.
    let src14 = src.replace("packed_store", "p14");
    let m = Module::load(&src14, "p14.ptx").unwrap();
    let obj14 = upload(
        &crate::tensormap::Map {
            addr: tensor,
            ..m14
        }
        .to_bytes(),
    );
    let e = launch(&m.kernel("k").unwrap(), &cfg(1, 1), &obj14.to_le_bytes()).unwrap_err();
    assert!(e.to_string().contains("b4x16_p64"), "{e}");
    for p in [tensor, obj, obj14] {
        mem::free(p).unwrap();
    }
}

#[test]
fn the_96_byte_swizzle_packs_rows_and_swaps_units_in_odd_lines() {
    // ISA 5.5.7, figure 31: a tensor of 128-byte rows (eight 16-byte cells, numbered across
    // the rows), a box of 96-byte rows (six cells) by 8 rows, in shared memory at a 256-byte
    // boundary. The figure's shared layout, cell by cell:
    const FIGURE_31: [usize; 48] = [
        0, 1, 2, 3, 4, 5, 8, 9, //
        11, 10, 13, 12, 17, 16, 19, 18, //
        20, 21, 24, 25, 26, 27, 28, 29, //
        33, 32, 35, 34, 37, 36, 41, 40, //
        42, 43, 44, 45, 48, 49, 50, 51, //
        53, 52, 57, 56, 59, 58, 61, 60,
    ];
    let t: Vec<u32> = (0..256).map(|i| i * 3 + 1).collect();
    let map = crate::tensormap::Map {
        rank: 2,
        dims: [32, 8, 0, 0, 0],
        strides: [128, 0, 0, 0, 0],
        box_dim: [24, 8, 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        elemtype: 2,
        swizzle: 4,
        ..Default::default()
    };
    let load = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2}], [bar];";
    let want: Vec<u8> = (FIGURE_31.iter())
        .flat_map(|&c| t[4 * c..4 * c + 4].iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    assert_eq!(
        copy(&t, map, load, &[0, 0], [0, 0], 768, 768).unwrap(),
        (true, want)
    );
    // 9.7.9.25.5.1's restrictions on it: 16-byte atomicity, rows of at most 96 bytes, no
    // interleave.
    for (bad, why) in [
        (
            crate::tensormap::Map {
                atomicity: 1,
                ..map
            },
            "atomicity",
        ),
        (
            crate::tensormap::Map {
                box_dim: [32, 8, 0, 0, 0],
                ..map
            },
            "over 96 bytes",
        ),
        (
            crate::tensormap::Map {
                interleave: 1,
                ..map
            },
            "interleave",
        ),
    ] {
        let e = copy(&t, bad, load, &[0, 0], [0, 0], 1024, 768).unwrap_err();
        assert!(e.to_string().contains(why), "{e}");
    }
}

#[test]
fn interleaved_maps_read_slices_of_channels() {
    // ISA 5.5.6: NC/xHWCx tensors, the channels in slices of 16 or 32 bytes, each slice an
    // image of its own (N and C/x the outermost dimension). The expected boxes come from the
    // logical NCHW tensor, element (n, c, h, w) holding `elem(n, h, w, c)`.
    let load = "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r2, %r3, %r4}], [bar];";
    // `x` u32 channels a slice, C channels, H x W pixels, N images.
    let tensor = |x: i64, c: i64, h: i64, w: i64, n: i64| -> Vec<u32> {
        let mut v = Vec::new();
        for k in 0..n * c / x {
            for hi in 0..h {
                for wi in 0..w {
                    for ci in 0..x {
                        let (ni, ch) = (k / (c / x), (k % (c / x)) * x + ci);
                        v.push(elem(ni, hi, wi, ch));
                    }
                }
            }
        }
        v
    };
    // 16-byte interleave (NC/4HWC4 of u32): N 2, C 8, H 3, W 5; a box of the whole slice by
    // 4 x 2 pixels at w 2, h 1 of slice 3 (image 1, channels 4-7); w 5 is past the tensor.
    let t = tensor(4, 8, 3, 5, 2);
    let map = crate::tensormap::Map {
        rank: 4,
        dims: [4, 5, 3, 4, 0],
        strides: [16, 80, 240, 0, 0],
        box_dim: [4, 4, 2, 1, 0],
        elem_strides: [1, 1, 1, 1, 0],
        elemtype: 2,
        interleave: 1,
        ..Default::default()
    };
    let mut want = Vec::new();
    for h in 1..3 {
        for w in 2..6 {
            for c in 4..8 {
                let v = if w < 5 { elem(1, h, w, c) } else { 0 };
                want.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    assert_eq!(
        copy(&t, map, load, &[0, 2, 1, 3], [0, 0], 128, 128).unwrap(),
        (true, want)
    );
    // 32-byte interleave (NC/8HWC8): N 1, C 16, H 2, W 3; a traversal stride of 2 in
    // dimension 0 (5.5.3.2: the interleave layout's) takes channels 8, 10, 12 and 14 of
    // slice 1, 16 bytes a pixel.
    let t = tensor(8, 16, 2, 3, 1);
    let map = crate::tensormap::Map {
        dims: [8, 3, 2, 2, 0],
        strides: [32, 96, 192, 0, 0],
        box_dim: [8, 3, 2, 1, 0],
        elem_strides: [2, 1, 1, 1, 0],
        interleave: 2,
        ..map
    };
    let mut want = Vec::new();
    for h in 0..2 {
        for w in 0..3 {
            for c in [8, 10, 12, 14] {
                want.extend_from_slice(&elem(0, h, w, c).to_le_bytes());
            }
        }
    }
    assert_eq!(
        copy(&t, map, load, &[0, 0, 0, 1], [0, 0], 96, 96).unwrap(),
        (true, want)
    );
    // A stride that leaves rows of part units (3 of 8 channels: 12 bytes): the ISA does not
    // say where such rows lie, and the copy stops saying so.
    let odd = crate::tensormap::Map {
        elem_strides: [3, 1, 1, 1, 0],
        ..map
    };
    let e = copy(&t, odd, load, &[0, 0, 0, 1], [0, 0], 96, 72).unwrap_err();
    assert!(e.to_string().contains("not whole 16-byte units"), "{e}");
}
