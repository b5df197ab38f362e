//! The surface instructions (ISA 9.7.11) on a surface registered by hand over engine memory:
//! 64-bit vector loads and stores in 3-D, the 64-bit reductions, the faults (a handle that names
//! no live surface, a misaligned byte coordinate, `.trap` outside), and the forms refused at
//! load. Every form below was checked with `ptxas -arch=sm_80` (13.5); expected values are the
//! ISA's arithmetic worked here.

use super::*;
use crate::surf::{self, Format, Surface};
use crate::ExecErrorKind;

/// A 3-D surface of `w x h x d` elements of two u32 channels (8 bytes) over fresh memory
/// holding `fill`, registered as `handle`.
fn surface(handle: u64, [w, h, d]: [u32; 3], fill: &[u64]) -> u64 {
    let base = upload(fill);
    let row = w as u64 * 8;
    surf::SURFACES.register(
        handle,
        Surface {
            base,
            size: [w, h, d],
            layered: false,
            row_pitch: row,
            slice_pitch: row * h as u64,
            format: Format::U32,
            channels: 2,
        },
    );
    base
}

/// Runs `body` in `k(.param .u64 s)` (the handle in %rd1) with one thread.
fn run(body: &str, handle: u64) -> Result<(), crate::ExecError> {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 s)
        {{
          .reg .b64 %rd<8>; .reg .b32 %r<8>;
          ld.param.u64 %rd1, [s];
          {body}
          ret;
        }}"
    );
    let m = Module::load(&src, "s.ptx").unwrap_or_else(|e| panic!("{e}"));
    launch(&m.kernel("k").unwrap(), &cfg(1, 1), &handle.to_le_bytes())
}

#[test]
fn vector_loads_stores_and_64_bit_reductions() {
    // 4 x 2 x 2 elements, element i holding i * 0x1_0000_0001.
    let fill: Vec<u64> = (0..16).map(|i| i * 0x1_0000_0001).collect();
    let h = 0x5_0000_0001;
    let base = surface(h, [4, 2, 2], &fill);
    // Elements (2, 1, 1) and (3, 1, 1) (indices 14, 15) as a v2.b64 at byte x = 16 (aligned to
    // the 16-byte access): stored swapped into (0, 0, 0) and (1, 0, 0); then a u64 min into
    // element (2, 0, 0) and an s64 max into (0, 0, 0).
    run(
        "mov.u32 %r1, 16; mov.u32 %r2, 1; mov.u32 %r3, 0;
         suld.b.3d.v2.b64.trap {%rd2, %rd3}, [%rd1, {%r1, %r2, %r2, %r3}];
         sust.b.3d.v2.b64.trap [%rd1, {%r3, %r3, %r3, %r3}], {%rd3, %rd2};
         mov.u64 %rd4, 1;
         sured.b.min.1d.u64.trap [%rd1, {%r1}], %rd4;
         mov.u64 %rd5, -1;
         sured.b.max.1d.s64.trap [%rd1, {%r3}], %rd5;",
        h,
    )
    .unwrap();
    let got = download::<u64>(base, 16);
    let mut want = fill.clone();
    want[0] = fill[15]; // then max(fill[15], -1) as s64: fill[15], positive
    want[1] = fill[14];
    want[2] = 1; // min(2 * 0x1_0000_0001, 1) as u64
    assert_eq!(got, want);
    surf::SURFACES.unregister(h);
    mem::free(base).unwrap();
}

#[test]
fn faults_name_the_access() {
    let fill = [0u64; 4];
    let h = 0x5_0000_0002;
    let base = surface(h, [2, 2, 1], &fill);
    let fault = |body: &str, handle: u64| run(body, handle).unwrap_err();
    // x = 16 is past the row of 2 elements (16 bytes): .trap faults as an illegal address.
    let e = fault(
        "mov.u32 %r1, 16; suld.b.2d.b64.trap %rd2, [%rd1, {%r1, %r1}];",
        h,
    );
    assert_eq!(e.kind, ExecErrorKind::IllegalAddress, "{e}");
    assert!(
        e.message.contains("out of bounds with .trap at (16, 16)"),
        "{e}"
    );
    // A byte coordinate that is not a multiple of the access size.
    let e = fault(
        "mov.u32 %r1, 4; mov.u32 %r2, 0; suld.b.2d.b64.trap %rd2, [%rd1, {%r1, %r2}];",
        h,
    );
    assert_eq!(e.kind, ExecErrorKind::MisalignedAddress, "{e}");
    // A handle that names no surface, and one whose memory was freed.
    let e = fault("suq.width.b32 %r1, [%rd1];", 12345);
    assert_eq!(e.kind, ExecErrorKind::IllegalAddress, "{e}");
    assert!(e.message.contains("no live surface object"), "{e}");
    // A surface whose memory is gone. (Not by freeing `base` here: a test running in parallel
    // may get that address from its next allocation, and the surface's memory would be live
    // again. An address no allocation can hold is gone the same way to the check.)
    mem::free(base).unwrap();
    surf::SURFACES.unregister(h);
    let gone = 0x5_0000_0003;
    surf::SURFACES.register(
        gone,
        Surface {
            base: 0x10,
            size: [2, 2, 1],
            layered: false,
            row_pitch: 16,
            slice_pitch: 32,
            format: Format::U32,
            channels: 2,
        },
    );
    let e = fault("suq.width.b32 %r1, [%rd1];", gone);
    assert!(e.message.contains("no live surface object"), "{e}");
    surf::SURFACES.unregister(gone);
}

#[test]
fn unlisted_forms_are_refused_at_load() {
    for inst in [
        // A variable that is not a .surfref (ptxas: ".surfref or .u64 register expected").
        "suld.b.1d.b32.trap %r3, [gvar, {%r1}];",
        // ptxas refuses these: types or geometries the ISA does not list for sured.
        "sured.b.add.1d.b32.trap [%rd1, {%r1}], %r1;",
        "sured.b.add.a1d.u32.trap [%rd1, {%r1, %r1}], %r1;",
        "sured.p.add.1d.b64.trap [%rd1, {%r1}], %rd1;",
    ] {
        let src = format!(
            "{HEAD}.global .u64 gvar;
            .visible .entry k(.param .u64 s)
            {{ .reg .b64 %rd<4>; .reg .b32 %r<4>; ld.param.u64 %rd1, [s]; mov.u32 %r1, 0; {inst} ret; }}"
        );
        let e = Module::load(&src, "s.ptx").unwrap_err();
        let op = inst.split('.').next().unwrap();
        assert!(e.to_string().contains(&format!("'{op}")), "{inst}: {e}");
    }
}

/// The independent mode: a `.surfref` variable holds the handle of the surface bound to it
/// (the driver's cuSurfRefSetArray writes it); unbound, an access faults.
#[test]
fn surfref_variables_name_the_surface_bound_to_them() {
    let src = format!(
        "{HEAD}.global .surfref sref;
        .visible .entry k()
        {{
          .reg .b64 %rd<4>; .reg .b32 %r<4>;
          mov.u32 %r1, 8;
          mov.u64 %rd1, 77;
          sust.b.1d.b64.trap [sref, {{%r1}}], %rd1;
          suq.width.b32 %r2, [sref];
          suq.channel_data_type.b32 %r3, [sref];
          mad.lo.u32 %r2, %r3, 1000, %r2;
          cvt.u64.u32 %rd2, %r2;
          mov.u32 %r1, 0;
          sust.b.1d.b64.trap [sref, {{%r1}}], %rd2;
          ret;
        }}"
    );
    let m = Module::load(&src, "r.ptx").unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("k").unwrap();
    let e = launch(&k, &cfg(1, 1), &[]).unwrap_err();
    assert!(
        e.message.contains("through 0x0, which is no live surface"),
        "{e}"
    );
    let h = 0x5_0000_0003;
    let base = surface(h, [3, 1, 1], &[0u64; 3]);
    let var = m.global("sref").unwrap().address;
    // SAFETY: the module's 8-byte variable.
    unsafe { (var as *mut u64).write_unaligned(h) };
    launch(&k, &cfg(1, 1), &[]).unwrap();
    // The width, 3, plus 1000 times the data type: CL_UNSIGNED_INT32 (0x10DC, PTX ISA 5.3.3).
    assert_eq!(download::<u64>(base, 3), vec![0x10DC * 1000 + 3, 77, 0]);
    surf::SURFACES.unregister(h);
    mem::free(base).unwrap();
}
