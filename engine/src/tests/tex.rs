//! Texture and surface references the way the driver binds them (a handle written into the
//! module's `.texref`/`.surfref` variable), in the corners of issue 15: `clamp_ogl` addressing,
//! indirect access through a register holding a reference variable's address, and opaque
//! kernel parameters (refused at load, as the CUDA driver refuses them). Every PTX text here
//! was checked with `ptxas -arch=sm_80` (13.5). Expected values: the texels themselves, and a
//! small model of OpenGL's `GL_CLAMP` written below from its specification.

use super::*;
use crate::surf::{self, Format, Surface};
use crate::tex::{self, Channel, Level, Texture};

/// A 1-D texture of f32 texels over fresh memory, registered as `handle`; its memory.
fn texture_1d(handle: u64, texels: &[f32], border: f32, normalized: bool) -> u64 {
    let base = upload(texels);
    let level = Level {
        base,
        size: [texels.len() as u32, 1, 1],
        row_pitch: 4 * texels.len() as u64,
        slice_pitch: 4 * texels.len() as u64,
    };
    let mut t = Texture::new(level, Channel::F32, 1);
    t.border = [border; 4];
    t.normalized_coords = normalized;
    tex::TEXTURES.register(handle, t);
    base
}

/// Writes `handle` into the reference variable `name` of `m`, as the driver binds one.
fn bind(m: &Module, name: &str, handle: u64) {
    let g = m.global(name).unwrap();
    // SAFETY: the variable is eight bytes of the module's live device memory.
    unsafe { (g.address as *mut u64).write_unaligned(handle) };
}

/// OpenGL's GL_CLAMP along one axis of the 1-D texture `t` with border colour `b`, from the
/// OpenGL 4.6 compatibility profile specification (section 8.14.2, Table 8.20): the
/// coordinate in texels `u` is clamped to [0, size]; NEAREST reads texel clamp(floor(u), 0,
/// size - 1); LINEAR weighs i0 = floor(u - 1/2) and i0 + 1 by 1 - a and a, a = frac(u - 1/2),
/// the indices -1 and size being the border colour.
fn gl_clamp(t: &[f32], b: f32, u: f64, linear: bool) -> f32 {
    let n = t.len() as i64;
    let u = u.clamp(0.0, n as f64);
    let at = |i: i64| {
        if (0..n).contains(&i) {
            t[i as usize] as f64
        } else {
            b as f64
        }
    };
    if !linear {
        return t[(u.floor() as i64).clamp(0, n - 1) as usize];
    }
    let i0 = (u - 0.5).floor();
    let a = u - 0.5 - i0;
    ((1.0 - a) * at(i0 as i64) + a * at(i0 as i64 + 1)) as f32
}

const INDEPENDENT: &str = ".version 9.5\n.target sm_80, texmode_independent\n.address_size 64\n";

/// Thread i fetches at xs[i] through `gt` with the samplers `ol` (clamp_ogl, linear), `on`
/// (clamp_ogl, nearest) and `ou` (clamp_ogl, linear, forced texel coordinates); out[3i..] the
/// three red channels. Thread 0 also writes the samplers' txq.addr_mode_0 to out[3n..].
const CLAMP_OGL: &str = r#"
.global .texref gt;
.global .samplerref ol = { addr_mode_0 = clamp_ogl, filter_mode = linear };
.global .samplerref on = { addr_mode_0 = clamp_ogl, filter_mode = nearest };
.global .samplerref ou = { addr_mode_0 = clamp_ogl, filter_mode = linear, force_unnormalized_coords = 1 };
.entry k(.param .u64 out, .param .u64 xs, .param .u32 n)
{
  .reg .b64 %rd<8>; .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .pred %p;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [xs];
  ld.param.u32 %r2, [n];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mul.wide.u32 %rd3, %r1, 12;
  add.s64 %rd5, %rd1, %rd3;
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [gt, ol, {%f1}];
  st.global.f32 [%rd5], %f2;
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [gt, on, {%f1}];
  st.global.f32 [%rd5+4], %f2;
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [gt, ou, {%f1}];
  st.global.f32 [%rd5+8], %f2;
  setp.ne.u32 %p, %r1, 0;
  @%p bra done;
  mul.wide.u32 %rd3, %r2, 12;
  add.s64 %rd5, %rd1, %rd3;
  txq.addr_mode_0.b32 %r3, [ol];
  txq.addr_mode_0.b32 %r4, [on];
  st.global.u32 [%rd5], %r3;
  st.global.u32 [%rd5+4], %r4;
done:
  ret;
}
"#;

/// Fetches through `CLAMP_OGL` at each coordinate of `xs` (texel coordinates, divided by
/// the width when `normalized`); per coordinate the linear, nearest and forced-texel results,
/// and the two samplers' addressing modes.
fn clamp_ogl_fetches(texels: &[f32], border: f32, xs: &[f64], normalized: bool) -> Vec<f32> {
    let m = Module::load(&format!("{INDEPENDENT}{CLAMP_OGL}"), "ogl.ptx")
        .unwrap_or_else(|e| panic!("{e}"));
    let h = 0x7e0_0001 + normalized as u64;
    let base = texture_1d(h, texels, border, normalized);
    bind(&m, "gt", h);
    let w = texels.len() as f64;
    let coords: Vec<f32> = xs
        .iter()
        .map(|&x| if normalized { x / w } else { x } as f32)
        .collect();
    let xs_dev = upload(&coords);
    let n = xs.len();
    let out = upload(&vec![0u32; 3 * n + 2]);
    let mut params = out.to_le_bytes().to_vec();
    params.extend(xs_dev.to_le_bytes());
    params.extend((n as u32).to_le_bytes());
    launch(&m.kernel("k").unwrap(), &cfg(1, n as u32), &params).unwrap_or_else(|e| panic!("{e}"));
    let got = download::<u32>(out, 3 * n + 2);
    tex::TEXTURES.unregister(h);
    for p in [base, xs_dev, out] {
        mem::free(p).unwrap();
    }
    // The ISA's enumeration of addressing modes (Table 10: wrap, mirror, clamp_ogl,
    // clamp_to_edge, clamp_to_border): clamp_ogl is 2.
    assert_eq!(got[3 * n..], [2, 2]);
    got[..3 * n].iter().map(|&b| f32::from_bits(b)).collect()
}

#[test]
fn clamp_ogl_blends_the_edge_texels_with_the_border_colour() {
    let texels = [1.0f32, 2.0, 4.0, 8.0];
    let border = 32.0;
    // Texel coordinates whose linear weights are multiples of 1/4 (exact in the texture
    // unit's 1/256 steps), inside, at and past both edges.
    let xs = [
        -1.0, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 2.0, 3.25, 3.5, 3.75, 4.0, 4.5, 9.0,
    ];
    for normalized in [false, true] {
        let got = clamp_ogl_fetches(&texels, border, &xs, normalized);
        for (k, &x) in xs.iter().enumerate() {
            let linear = gl_clamp(&texels, border, x, true);
            let nearest = gl_clamp(&texels, border, x, false);
            // force_unnormalized_coords reads the coordinate as texels whatever the texture
            // says: the normalised coordinate x / 4 as a texel coordinate.
            let forced_u = if normalized { x / 4.0 } else { x };
            let forced = gl_clamp(&texels, border, forced_u, true);
            let what = format!("x = {x} texels, normalized {normalized}");
            assert_eq!(got[3 * k], linear, "linear, {what}");
            assert_eq!(got[3 * k + 1], nearest, "nearest, {what}");
            assert_eq!(got[3 * k + 2], forced, "forced texel coordinates, {what}");
        }
    }
    // The edges by hand: at x = 0 the footprint is half border, half texel 0; at 0.25 a
    // quarter border; at the far edge (4 texels) half texel 3, half border.
    assert_eq!(gl_clamp(&texels, border, 0.0, true), 16.5);
    assert_eq!(gl_clamp(&texels, border, 0.25, true), 8.75);
    assert_eq!(gl_clamp(&texels, border, 4.0, true), 20.0);
    assert_eq!(gl_clamp(&texels, border, 4.0, false), 8.0);
}

/// Indirect access (PTX ISA 5.3): `mov.u64 r, var` of a `.texref` or `.surfref`, then `tex`,
/// `txq`, `suld` and `suq` through the register. out = { T[3], txq.width, S[3], suq.width }.
const INDIRECT: &str = r#"
.global .texref gt;
.global .surfref gs;
.global .u64 plain;
.entry k(.param .u64 out)
{
  .reg .b64 %rd<8>; .reg .b32 %r<8>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, gt;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd2, {3}];
  st.global.f32 [%rd1], %f1;
  txq.width.b32 %r1, [%rd2];
  st.global.u32 [%rd1+4], %r1;
  mov.u64 %rd3, gs;
  suld.b.1d.b32.trap {%r2}, [%rd3, {12}];
  st.global.u32 [%rd1+8], %r2;
  suq.width.b32 %r3, [%rd3];
  st.global.u32 [%rd1+12], %r3;
  ret;
}
.entry plain_address(.param .u64 out)
{
  .reg .b64 %rd<4>; .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, plain;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd2, {0}];
  st.global.f32 [%rd1], %f1;
  ret;
}
"#;

#[test]
fn a_register_holding_a_reference_variables_address_reads_what_is_bound_to_it() {
    let m = Module::load(&format!("{HEAD}{INDIRECT}"), "ind.ptx").unwrap_or_else(|e| panic!("{e}"));
    let (t1, t2, s) = (0x7e1_0001, 0x7e1_0002, 0x5_0000_0011);
    let a = texture_1d(t1, &[10.0, 11.0, 12.0, 13.0, 14.0], 0.0, false);
    let b = texture_1d(t2, &[20.0, 21.0, 22.0, 23.0, 24.0, 25.0], 0.0, false);
    let words: Vec<u32> = (300..306).collect();
    let sbase = upload(&words);
    surf::SURFACES.register(
        s,
        Surface {
            base: sbase,
            size: [6, 1, 1],
            layered: false,
            row_pitch: 24,
            slice_pitch: 24,
            format: Format::U32,
            channels: 1,
        },
    );
    let out = upload(&[0u32; 4]);
    let k = m.kernel("k").unwrap();
    let run = || {
        launch(&k, &cfg(1, 1), &out.to_le_bytes()).unwrap_or_else(|e| panic!("{e}"));
        download::<u32>(out, 4)
    };
    bind(&m, "gt", t1);
    bind(&m, "gs", s);
    // Texel 3, the width, the fourth 32-bit element (byte 12), the surface's width.
    assert_eq!(run(), [13.0f32.to_bits(), 5, 303, 6]);
    // Rebinding the variable: the same address now names the other texture.
    bind(&m, "gt", t2);
    assert_eq!(run(), [23.0f32.to_bits(), 6, 303, 6]);
    // The address of a variable that is no reference names nothing.
    let e = launch(
        &m.kernel("plain_address").unwrap(),
        &cfg(1, 1),
        &out.to_le_bytes(),
    )
    .unwrap_err();
    assert!(e.message.contains("no live texture"), "{e}");
    tex::TEXTURES.unregister(t1);
    tex::TEXTURES.unregister(t2);
    surf::SURFACES.unregister(s);
    for p in [a, b, sbase, out] {
        mem::free(p).unwrap();
    }
}

#[test]
fn opaque_kernel_parameters_are_refused_at_load() {
    // ptxas compiles each of these (as a binding outside the parameter buffer); the CUDA
    // driver refuses the module (CUDA_ERROR_INVALID_IMAGE, texref-param-h200.txt).
    let cases = [
        (
            HEAD,
            ".entry k(.param .u64 out, .param .texref t)
             { .reg .b32 %r<2>; txq.width.b32 %r1, [t]; ret; }",
            "t",
            "texref",
        ),
        (
            INDEPENDENT,
            ".global .texref gt;
             .entry k(.param .samplerref s)
             { .reg .f32 %f<6>;
               tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [gt, s, {%f5}]; ret; }",
            "s",
            "samplerref",
        ),
        (
            HEAD,
            ".entry k(.param .surfref s, .param .u32 n)
             { .reg .b32 %r<2>; suq.width.b32 %r1, [s]; ret; }",
            "s",
            "surfref",
        ),
    ];
    for (head, body, name, ty) in cases {
        let e = Module::load(&format!("{head}{body}"), "p.ptx").unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::NotLoadable, "{e}");
        let text = e.to_string();
        assert!(text.contains(&format!("'{name}' is a .{ty}")), "{text}");
    }
}

#[test]
fn samplers_belong_to_the_independent_mode_and_it_always_names_one() {
    // ptxas refuses both (13.5): a `.samplerref` in the unified mode ("violates .target
    // texmode_unified setting") and a fetch without a sampler in the independent mode
    // ("Argument 2 of instruction 'tex': .samplerref or .u64 register expected").
    let fetch = |sampler: &str| {
        format!(
            ".global .texref gt;
             .entry k(.param .u64 o)
             {{ .reg .b64 %rd<2>; .reg .f32 %f<6>;
               ld.param.u64 %rd1, [o];
               tex.1d.v4.f32.f32 {{%f1, %f2, %f3, %f4}}, [gt{sampler}, {{0f3F000000}}];
               st.global.f32 [%rd1], %f1; ret; }}"
        )
    };
    let unified = format!(
        "{HEAD}.global .samplerref sm = {{ filter_mode = linear }};\n{}",
        fetch(", sm")
    );
    let e = Module::load(&unified, "u.ptx").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::InvalidPtx, "{e}");
    assert!(e.to_string().contains("texmode_unified"), "{e}");
    let e = Module::load(&format!("{INDEPENDENT}{}", fetch("")), "i.ptx").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::InvalidPtx, "{e}");
    assert!(e.to_string().contains("names no sampler"), "{e}");
    // The same fetch with its sampler, in its mode, loads.
    let ok = format!(
        "{INDEPENDENT}.global .samplerref sm = {{ filter_mode = linear }};\n{}",
        fetch(", sm")
    );
    Module::load(&ok, "ok.ptx").unwrap_or_else(|e| panic!("{e}"));
}
