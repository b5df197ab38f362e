//! Surface objects and the rules of the surface instructions (ISA 9.7.11): the driver registers
//! each surface object's CUDA array under its 64-bit handle (`cuSurfObjectCreate`), and `suld`,
//! `sust`, `sured` and `suq` look the handle up. Here: where an access lands ([`locate`]: the
//! x coordinate in bytes for the `.b` forms, the layer index first for the array geometries,
//! and the `.trap`/`.clamp`/`.zero` handling of coordinates outside), what a formatted store
//! writes ([`format_channel`]) and what `suq` answers ([`query`]).

use crate::tex::Channel;

/// The format of one channel of a surface element (the array's `CUarray_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
    Unorm8,
    Snorm8,
    Unorm16,
    Snorm16,
}

impl Format {
    /// The format of texels of `channel` type, UNORM/SNORM when `normalized` (as the driver
    /// decodes a `CUarray_format`; a float channel is never normalised).
    pub fn of(channel: Channel, normalized: bool) -> Format {
        match (channel, normalized) {
            (Channel::U8, false) => Format::U8,
            (Channel::S8, false) => Format::S8,
            (Channel::U16, false) => Format::U16,
            (Channel::S16, false) => Format::S16,
            (Channel::U32, _) => Format::U32,
            (Channel::S32, _) => Format::S32,
            (Channel::F16, _) => Format::F16,
            (Channel::F32, _) => Format::F32,
            (Channel::U8, true) => Format::Unorm8,
            (Channel::S8, true) => Format::Snorm8,
            (Channel::U16, true) => Format::Unorm16,
            (Channel::S16, true) => Format::Snorm16,
        }
    }

    /// The channel type and whether it is normalised: [`Format::of`] undone.
    pub fn channel(self) -> (Channel, bool) {
        match self {
            Format::U8 => (Channel::U8, false),
            Format::S8 => (Channel::S8, false),
            Format::U16 => (Channel::U16, false),
            Format::S16 => (Channel::S16, false),
            Format::U32 => (Channel::U32, false),
            Format::S32 => (Channel::S32, false),
            Format::F16 => (Channel::F16, false),
            Format::F32 => (Channel::F32, false),
            Format::Unorm8 => (Channel::U8, true),
            Format::Snorm8 => (Channel::S8, true),
            Format::Unorm16 => (Channel::U16, true),
            Format::Snorm16 => (Channel::S16, true),
        }
    }

    pub fn bytes(self) -> usize {
        match self {
            Format::U8 | Format::S8 | Format::Unorm8 | Format::Snorm8 => 1,
            Format::U16 | Format::S16 | Format::F16 | Format::Unorm16 | Format::Snorm16 => 2,
            Format::U32 | Format::S32 | Format::F32 => 4,
        }
    }
}

/// One surface object: a CUDA array as the surface unit addresses it.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// Device address of element (0, 0, 0).
    pub base: u64,
    /// Elements per row, rows per slice, and slices (the depth of a 3-D array, the layers of a
    /// layered one, six faces per cube of a cubemap); 1 for the dimensions the array lacks.
    pub size: [u32; 3],
    /// The slices are layers (layered and cubemap arrays), which the `.a1d`/`.a2d` geometries
    /// select, rather than a depth.
    pub layered: bool,
    pub row_pitch: u64,
    pub slice_pitch: u64,
    pub format: Format,
    /// Channels per element: 1, 2 or 4.
    pub channels: u8,
}

impl Surface {
    /// Bytes per element.
    pub fn elem(&self) -> u64 {
        (self.format.bytes() * self.channels as usize) as u64
    }

    /// Bytes of device memory the elements span, from `base`.
    pub fn extent(&self) -> u64 {
        (self.size[2] as u64 - 1) * self.slice_pitch
            + (self.size[1] as u64 - 1) * self.row_pitch
            + self.size[0] as u64 * self.elem()
    }
}

/// The live surface objects (and surface references' surfaces), by handle.
pub static SURFACES: crate::handles::Handles<Surface> = crate::handles::Handles::new();

/// The `.geom` of a surface instruction: the texture geometries 1d, 2d, 3d, a1d and a2d (the
/// array forms put the layer index first; surfaces have no cube geometries).
pub use crate::tex::Geom;

/// The `.clamp` field: what a coordinate outside the surface does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Trap,
    Clamp,
    Zero,
}

/// Where an access lands, as [`locate`] decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Bytes from the surface's base.
    At(u64),
    /// Outside with `.zero`: a load reads zeros, a store or reduction does nothing.
    Dropped,
    /// Outside with `.trap`: the instruction faults.
    Trapped,
    /// The byte coordinate is not a multiple of the access size (the ISA leaves it undefined:
    /// the access "may fault"; here it does).
    Misaligned,
}

/// Where an access of `size` bytes at `x` bytes into the row (the `.b` forms; the `.p` forms
/// pass the sample index times the element size), row `y`, slice `z` (3-D) or layer `layer`
/// (array geometries) of `s` lands. Coordinates a geometry lacks are 0; each one outside the
/// surface is handled by `bound`: `.clamp` moves it to the nearest element in range (the byte
/// coordinate to the last whole access in the row, so that the access stays inside).
pub fn locate(
    s: &Surface,
    geom: Geom,
    [x, y, z]: [i64; 3],
    layer: u32,
    size: u64,
    bound: Bound,
) -> Place {
    if x.rem_euclid(size as i64) != 0 {
        return Place::Misaligned;
    }
    let row = s.size[0] as u64 * s.elem();
    let dims = geom.dims();
    let slice = if geom.indexed() {
        layer as i64
    } else if dims == 3 {
        z
    } else {
        0
    };
    let y = if dims >= 2 { y } else { 0 };
    // (coordinate, last valid value) per dimension; the row's in bytes.
    let last_x = row as i64 - size as i64;
    let axes = [
        (x, last_x),
        (y, s.size[1] as i64 - 1),
        (slice, s.size[2] as i64 - 1),
    ];
    let mut at = [0i64; 3];
    for (k, &(v, last)) in axes.iter().enumerate() {
        if (0..=last).contains(&v) {
            at[k] = v;
            continue;
        }
        match bound {
            Bound::Trap => return Place::Trapped,
            Bound::Zero => return Place::Dropped,
            // An access wider than the row has no place in it at all.
            Bound::Clamp if last < 0 => return Place::Trapped,
            Bound::Clamp => {
                let c = v.clamp(0, last);
                at[k] = if k == 0 { c - c % size as i64 } else { c };
            }
        }
    }
    Place::At(at[2] as u64 * s.slice_pitch + at[1] as u64 * s.row_pitch + at[0] as u64)
}

/// The `suq` queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    ArraySize,
    MemoryLayout,
}

impl Query {
    pub const WORDS: [(&'static str, Query); 7] = [
        ("width", Query::Width),
        ("height", Query::Height),
        ("depth", Query::Depth),
        ("channel_data_type", Query::ChannelDataType),
        ("channel_order", Query::ChannelOrder),
        ("array_size", Query::ArraySize),
        ("memory_layout", Query::MemoryLayout),
    ];
}

/// `suq`'s answer. Sizes are in elements, 1 for a dimension the surface lacks (and the depth
/// of a layered surface); the array size is the layer count of a layered surface (six per
/// cube of a cubemap), 0 otherwise; surfaces are always over CUDA arrays, whose layout is not
/// linear (0).
pub fn query(s: &Surface, q: Query) -> u32 {
    match q {
        Query::Width => s.size[0],
        Query::Height => s.size[1],
        Query::Depth if s.layered => 1,
        Query::Depth => s.size[2],
        // OpenCL's enumerations, the only ones the ISA names (5.3.3), as `txq` answers.
        Query::ChannelDataType => {
            let (channel, normalized) = s.format.channel();
            crate::tex::opencl_data_type(channel, normalized)
        }
        Query::ChannelOrder => crate::tex::opencl_channel_order(s.channels),
        Query::ArraySize if s.layered => s.size[2],
        Query::ArraySize => 0,
        Query::MemoryLayout => 0,
    }
}

/// One 32-bit source of `sust.p` converted to a channel of `format`, as the ISA says: read as
/// `.f32` for float and normalised formats, `.u32` for unsigned and `.s32` for signed integer
/// ones, then converted to the channel. Normalised channels clamp to [0, 1] ([-1, 1]) and round
/// to nearest (NaN stores 0); integer channels saturate to their range; half rounds to nearest
/// even. The result is the channel's bits in the low `format.bytes()` bytes.
pub fn format_channel(format: Format, v: u32) -> u32 {
    let f = f32::from_bits(v);
    let norm = |max: f32, lo: f32| -> i64 {
        if f.is_nan() {
            0
        } else {
            (f.clamp(lo, 1.0) * max).round_ties_even() as i64
        }
    };
    let sat_u = |max: u32| v.min(max);
    let sat_s = |lo: i32, hi: i32| (v as i32).clamp(lo, hi) as u32;
    match format {
        Format::F32 => v,
        Format::F16 => {
            use crate::sem::softfloat::{convert, Mode, F16, F32};
            convert(F32, F16, v as u64, Mode::Rn) as u32
        }
        Format::U8 => sat_u(0xff),
        Format::U16 => sat_u(0xffff),
        Format::U32 => v,
        Format::S8 => sat_s(-128, 127) & 0xff,
        Format::S16 => sat_s(-32768, 32767) & 0xffff,
        Format::S32 => v,
        Format::Unorm8 => norm(255.0, 0.0) as u32,
        Format::Unorm16 => norm(65535.0, 0.0) as u32,
        Format::Snorm8 => norm(127.0, -1.0) as u32 & 0xff,
        Format::Snorm16 => norm(32767.0, -1.0) as u32 & 0xffff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(size: [u32; 3], format: Format, channels: u8, layered: bool) -> Surface {
        let row = size[0] as u64 * (format.bytes() as u64 * channels as u64);
        Surface {
            base: 0,
            size,
            layered,
            row_pitch: row,
            slice_pitch: row * size[1] as u64,
            format,
            channels,
        }
    }

    /// The x coordinate of the `.b` forms is in bytes (ISA 9.7.11.1): element 3 of a float2
    /// surface is at byte 24; rows and slices are in elements.
    #[test]
    fn x_is_in_bytes_and_rows_in_elements() {
        let s = surface([5, 4, 3], Format::F32, 2, false);
        let at = |c, size| locate(&s, Geom::D3, c, 0, size, Bound::Trap);
        assert_eq!(at([24, 0, 0], 8), Place::At(24));
        assert_eq!(at([24, 2, 1], 8), Place::At(24 + 2 * 40 + 160));
        // One float of an element: aligned to its own size.
        assert_eq!(at([28, 0, 0], 4), Place::At(28));
        assert_eq!(at([28, 0, 0], 8), Place::Misaligned);
        // The last whole access in the row, and one past it.
        assert_eq!(at([32, 3, 2], 8), Place::At(32 + 120 + 320));
        assert_eq!(at([40, 0, 0], 8), Place::Trapped);
        assert_eq!(at([0, 4, 0], 8), Place::Trapped);
        assert_eq!(at([0, 0, 3], 8), Place::Trapped);
        assert_eq!(at([-8, 0, 0], 8), Place::Trapped);
    }

    /// `.clamp` loads from / stores to the nearest element, `.zero` drops the access, each
    /// dimension separately; coordinates a geometry lacks are ignored.
    #[test]
    fn clamp_and_zero() {
        let s = surface([4, 3, 1], Format::U8, 4, false);
        let at = |c, b| locate(&s, Geom::D2, c, 0, 4, b);
        assert_eq!(at([100, -5, 0], Bound::Clamp), Place::At(12));
        assert_eq!(at([-4, 7, 0], Bound::Clamp), Place::At(2 * 16));
        assert_eq!(at([100, 1, 0], Bound::Zero), Place::Dropped);
        assert_eq!(
            at([4, 1, 9], Bound::Zero),
            Place::At(4 + 16),
            "z unused in 2d"
        );
        // A 2-byte access clamped into a row of 16 bytes: its last whole place, 14.
        assert_eq!(
            locate(&s, Geom::D1, [98, 0, 0], 0, 2, Bound::Clamp),
            Place::At(14)
        );
    }

    /// The array geometries take the layer index (unsigned) and select the slice with it.
    #[test]
    fn layers() {
        let s = surface([4, 2, 6], Format::F32, 1, true);
        let at = |l, b| locate(&s, Geom::A2, [4, 1, 0], l, 4, b);
        assert_eq!(at(5, Bound::Trap), Place::At(5 * 32 + 16 + 4));
        assert_eq!(at(6, Bound::Trap), Place::Trapped);
        assert_eq!(at(u32::MAX, Bound::Clamp), Place::At(5 * 32 + 16 + 4));
        assert_eq!(at(7, Bound::Zero), Place::Dropped);
        assert_eq!(query(&s, Query::ArraySize), 6);
        assert_eq!(query(&s, Query::Depth), 1);
        let v = surface([4, 2, 3], Format::F32, 1, false);
        assert_eq!(query(&v, Query::ArraySize), 0);
        assert_eq!(query(&v, Query::Depth), 3);
    }

    /// sust.p's conversions (ISA 9.7.11.2): f32 into normalised and half channels, integers
    /// saturated.
    #[test]
    fn formatted_channels() {
        let f = |x: f32| x.to_bits();
        assert_eq!(format_channel(Format::Unorm8, f(0.5)), 128);
        assert_eq!(format_channel(Format::Unorm8, f(2.0)), 255);
        assert_eq!(format_channel(Format::Unorm8, f(f32::NAN)), 0);
        assert_eq!(format_channel(Format::Snorm8, f(-1.5)), 0x81);
        assert_eq!(format_channel(Format::Unorm16, f(1.0)), 65535);
        assert_eq!(format_channel(Format::F16, f(1.5)), 0x3e00);
        assert_eq!(format_channel(Format::U8, 300), 255);
        assert_eq!(format_channel(Format::S16, (-40000i32) as u32), 0x8000);
        assert_eq!(format_channel(Format::S8, (-3i32) as u32), 0xfd);
        assert_eq!(format_channel(Format::F32, f(2.25)), f(2.25));
    }
}
