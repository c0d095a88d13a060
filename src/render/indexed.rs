//! A drawn map's pixels written as an indexed-colour PNG: a palette of at
//! most 256 colours and one byte a pixel.
//!
//! The map is flat colours with anti-aliased edges and text: a 1000-pixel
//! picture holds about 1,200 to 5,000 distinct colours, of which the 256
//! most used cover over 99.3% of the pixels. The palette is those 256
//! (every colour when there are no more); each other colour, a step of an
//! edge's blend, is drawn with the palette colour nearest to it. One byte
//! a pixel instead of four is about half the size of the RGBA picture
//! and several times quicker to compress.
//!
//! The same pixels always give the same bytes: the palette is ordered by
//! how often a colour is used, then by the colour, and nothing depends on
//! a hash map's order.

use resvg::tiny_skia::PremultipliedColorU8;
use rustc_hash::FxHashMap;

/// The most colours a PNG palette holds.
const PALETTE: usize = 256;

/// The zlib level the pixels are compressed with: level 2 is about three
/// times quicker than the default 6 and its pictures about a tenth
/// larger, well under half the 200,000-byte limit (docs/performance.md,
/// "The drawn maps").
const LEVEL: u32 = 2;

/// How a pixel's colour channels stand to its alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alpha {
    /// Red, green and blue as they are (as a PNG holds them).
    Straight,
    /// Red, green and blue multiplied by the alpha (as tiny-skia draws
    /// them): each colour is divided out once, not each pixel.
    Premultiplied,
}

/// Pixels as RGBA, 4 bytes each, row by row.
pub struct Rgba<'p> {
    pub width: u32,
    pub height: u32,
    pub data: &'p [u8],
    pub alpha: Alpha,
}

/// The PNG of `image` with indexed colour.
pub fn encode(image: &Rgba<'_>) -> Result<Vec<u8>, String> {
    let expected = image.width as usize * image.height as usize * 4;
    if image.data.len() != expected {
        return Err(format!(
            "the picture has {} bytes of pixels, not {expected}",
            image.data.len()
        ));
    }
    let (pixels, _) = image.data.as_chunks::<4>();
    let mut table = colour_counts(pixels);
    let straight = straight_counts(&table, image.alpha);
    let palette = palette_of(&straight);
    table.set_entries(image.alpha, &palette);
    let rows = indexed_rows(pixels, image.width as usize, &table);
    write_png(image.width, image.height, &palette, &rows)
}

/// A pixel's colour as one number (R, G, B, A from the high byte down).
fn colour(px: [u8; 4]) -> u32 {
    u32::from_be_bytes(px)
}

/// The colours of a picture, each with how many pixels have it and,
/// once the palette is chosen, its palette entry: a table with open
/// addressing (a picture has a few thousand colours, looked up once a
/// run of equal pixels).
struct Colours {
    keys: Vec<u32>,
    /// Pixels of the colour; 0 marks a free slot.
    counts: Vec<u32>,
    entries: Vec<u8>,
    /// log2 of the number of slots.
    bits: u32,
    len: usize,
}

impl Colours {
    fn new() -> Colours {
        Colours::with_bits(12)
    }

    fn with_bits(bits: u32) -> Colours {
        let slots = 1usize << bits;
        Colours {
            keys: vec![0; slots],
            counts: vec![0; slots],
            entries: Vec::new(),
            bits,
            len: 0,
        }
    }

    /// The slot of colour `c`: where it is, or the free slot where it
    /// goes (Fibonacci hashing, then the next slots in turn).
    fn slot(&self, c: u32) -> usize {
        let mask = self.keys.len() - 1;
        let mut i = (c.wrapping_mul(0x9E37_79B9) >> (32 - self.bits)) as usize;
        while self.counts[i] != 0 && self.keys[i] != c {
            i = (i + 1) & mask;
        }
        i
    }

    /// `n` more pixels of colour `c`.
    fn add(&mut self, c: u32, n: u32) {
        let i = self.slot(c);
        if self.counts[i] == 0 {
            self.keys[i] = c;
            self.len += 1;
            self.counts[i] = n;
            if self.len * 2 > self.keys.len() {
                self.grow();
            }
        } else {
            self.counts[i] += n;
        }
    }

    fn grow(&mut self) {
        let mut bigger = Colours::with_bits(self.bits + 1);
        for (c, n) in self.iter() {
            bigger.add(c, n);
        }
        *self = bigger;
    }

    /// Each colour and its count, in the table's order.
    fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.keys
            .iter()
            .zip(&self.counts)
            .filter(|&(_, &n)| n != 0)
            .map(|(&c, &n)| (c, n))
    }

    /// Each colour's palette entry: its own (straight) colour's, or the
    /// nearest.
    fn set_entries(&mut self, alpha: Alpha, palette: &[u32]) {
        let own: FxHashMap<u32, u8> = palette
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, i as u8))
            .collect();
        let channels = Channels::of(palette);
        self.entries = vec![0; self.keys.len()];
        for i in 0..self.keys.len() {
            if self.counts[i] != 0 {
                let c = straight(self.keys[i], alpha);
                self.entries[i] = own.get(&c).copied().unwrap_or_else(|| channels.nearest(c));
            }
        }
    }

    /// The palette entry of colour `c` (one of the picture's).
    fn entry(&self, c: u32) -> u8 {
        self.entries[self.slot(c)]
    }
}

/// Colour `c` with straight alpha: as it is, or divided by its alpha as
/// tiny-skia does (`PremultipliedColorU8::demultiply`).
fn straight(c: u32, alpha: Alpha) -> u32 {
    let [r, g, b, a] = c.to_be_bytes();
    match alpha {
        Alpha::Straight => c,
        Alpha::Premultiplied => PremultipliedColorU8::from_rgba(r, g, b, a).map_or(c, |p| {
            let s = p.demultiply();
            u32::from_be_bytes([s.red(), s.green(), s.blue(), s.alpha()])
        }),
    }
}

/// How many pixels have each colour. Neighbouring pixels are mostly the
/// same colour, counted as one run.
fn colour_counts(pixels: &[[u8; 4]]) -> Colours {
    let mut table = Colours::new();
    let Some((&first, rest)) = pixels.split_first() else {
        return table;
    };
    let mut run_colour = colour(first);
    let mut run = 1u32;
    for &px in rest {
        let c = colour(px);
        if c == run_colour {
            run += 1;
        } else {
            table.add(run_colour, run);
            run_colour = c;
            run = 1;
        }
    }
    table.add(run_colour, run);
    table
}

/// The pixels of each straight colour: premultiplied colours that are
/// one colour once divided out are counted together.
fn straight_counts(table: &Colours, alpha: Alpha) -> FxHashMap<u32, u32> {
    let mut counts: FxHashMap<u32, u32> = FxHashMap::default();
    for (c, n) in table.iter() {
        *counts.entry(straight(c, alpha)).or_default() += n;
    }
    counts
}

/// The palette: the most used colours, most used first (ties by colour).
fn palette_of(counts: &FxHashMap<u32, u32>) -> Vec<u32> {
    let mut by_use: Vec<(u32, u32)> = counts.iter().map(|(&c, &n)| (c, n)).collect();
    by_use.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    by_use.truncate(PALETTE);
    by_use.into_iter().map(|(c, _)| c).collect()
}

/// The palette's channels apart, for [`Channels::nearest`]: red, green,
/// blue and alpha of each entry; the entries past the palette's end far
/// from every colour.
struct Channels([[i32; PALETTE]; 4]);

impl Channels {
    fn of(palette: &[u32]) -> Channels {
        // Far: (FAR - 255)² four times stays within an i32.
        const FAR: i32 = 10_000;
        let mut ch = [[FAR; PALETTE]; 4];
        for (i, c) in palette.iter().take(PALETTE).enumerate() {
            for (k, v) in c.to_be_bytes().into_iter().enumerate() {
                ch[k][i] = i32::from(v);
            }
        }
        Channels(ch)
    }

    /// The palette entry nearest to `c`: the least sum of squared
    /// differences of red, green, blue and alpha (the first such entry).
    /// Every entry is measured in one loop of fixed length, which the
    /// compiler does several entries at a time.
    fn nearest(&self, c: u32) -> u8 {
        let [r, g, b, a] = c.to_be_bytes().map(i32::from);
        let [pr, pg, pb, pa] = &self.0;
        let mut d = [0i32; PALETTE];
        for i in 0..PALETTE {
            let (dr, dg, db, da) = (pr[i] - r, pg[i] - g, pb[i] - b, pa[i] - a);
            d[i] = dr * dr + dg * dg + db * db + da * da;
        }
        let mut best = (i32::MAX, 0u8);
        for (i, &di) in d.iter().enumerate() {
            if di < best.0 {
                best = (di, i as u8);
            }
        }
        best.1
    }
}

/// The picture as PNG rows of palette entries: each row a filter byte
/// (0, none, as suits a palette picture) and one byte a pixel.
fn indexed_rows(pixels: &[[u8; 4]], width: usize, table: &Colours) -> Vec<u8> {
    let mut out = vec![0u8; pixels.len() + pixels.len() / width.max(1)];
    let mut last = pixels
        .first()
        .map(|&px| (colour(px), table.entry(colour(px))));
    for (row, line) in pixels
        .chunks_exact(width.max(1))
        .zip(out.chunks_exact_mut(width + 1))
    {
        for (&px, slot) in row.iter().zip(&mut line[1..]) {
            let c = colour(px);
            let i = match last {
                Some((lc, li)) if lc == c => li,
                _ => table.entry(c),
            };
            last = Some((c, i));
            *slot = i;
        }
    }
    out
}

/// The PNG: 8-bit indexed colour, its palette, the palette's alpha if any
/// entry is not opaque, and the rows compressed in one go (zlib level
/// [`LEVEL`]).
fn write_png(width: u32, height: u32, palette: &[u32], rows: &[u8]) -> Result<Vec<u8>, String> {
    let failed = |e: png::EncodingError| format!("the PNG could not be written: {e}");
    let rgb: Vec<u8> = palette
        .iter()
        .flat_map(|c| {
            let [r, g, b, _] = c.to_be_bytes();
            [r, g, b]
        })
        .collect();
    let alpha: Vec<u8> = palette.iter().map(|c| c.to_be_bytes()[3]).collect();
    let compressed = deflated(rows)?;
    let mut out = Vec::with_capacity(compressed.len() + 1024);
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(rgb);
        if alpha.iter().any(|&a| a != u8::MAX) {
            encoder.set_trns(alpha);
        }
        let mut writer = encoder.write_header().map_err(failed)?;
        writer
            .write_chunk(png::chunk::IDAT, &compressed)
            .map_err(failed)?;
        writer.finish().map_err(failed)?;
    }
    Ok(out)
}

/// `data` as one zlib stream. Compressed in one call: fed row by row (as
/// the `png` crate's writer does) the compressor cleared its 32 KB
/// output buffer for every row.
fn deflated(data: &[u8]) -> Result<Vec<u8>, String> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    let mut z = Compress::new(Compression::new(LEVEL), true);
    let mut out = Vec::with_capacity(data.len() / 4 + 1024);
    loop {
        let read = z.total_in() as usize;
        let status = z
            .compress_vec(&data[read..], &mut out, FlushCompress::Finish)
            .map_err(|e| format!("the PNG could not be compressed: {e}"))?;
        match status {
            Status::StreamEnd => return Ok(out),
            Status::Ok | Status::BufError => out.reserve(out.capacity().max(1024)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(png: &[u8]) -> (png::OutputInfo, Vec<u8>) {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().expect("a PNG header");
        let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut buf).expect("the pixels");
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    /// Few colours: the picture comes back exactly, alpha included.
    #[test]
    fn a_picture_of_few_colours_is_kept_exactly() {
        let mut data = Vec::new();
        for i in 0..64u8 {
            data.extend_from_slice(&[i, 255 - i, i / 2, if i < 8 { 128 } else { 255 }]);
        }
        let png = encode(&Rgba {
            width: 8,
            height: 8,
            data: &data,
            alpha: Alpha::Straight,
        })
        .expect("written");
        let (info, pixels) = decoded(&png);
        assert_eq!((info.width, info.height), (8, 8));
        assert_eq!(info.color_type, png::ColorType::Rgba);
        assert_eq!(pixels, data);
    }

    /// More than 256 colours: the 256 most used are kept; each other pixel
    /// takes the nearest of them; the same pixels give the same bytes.
    #[test]
    fn a_rare_colour_takes_the_nearest_of_the_most_used() {
        let mut data = Vec::new();
        // 256 reds, each on three pixels.
        for i in 0..=255u8 {
            for _ in 0..3 {
                data.extend_from_slice(&[i, 0, 0, 255]);
            }
        }
        let common = data.clone();
        // Two rare colours, once each.
        data.extend_from_slice(&[101, 1, 0, 255]);
        data.extend_from_slice(&[200, 0, 3, 255]);
        let image = Rgba {
            width: (data.len() / 4) as u32,
            height: 1,
            data: &data,
            alpha: Alpha::Straight,
        };
        let png = encode(&image).expect("written");
        assert_eq!(png, encode(&image).expect("written again"));
        let (info, out) = decoded(&png);
        // Opaque: expanded to RGB.
        assert_eq!(info.color_type, png::ColorType::Rgb);
        let rgb = |px: &[u8]| -> Vec<u8> {
            px.chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect()
        };
        let mut expected = rgb(&common);
        expected.extend_from_slice(&[101, 0, 0, 200, 0, 0]);
        assert_eq!(out, expected);
    }

    /// Premultiplied pixels (as tiny-skia draws) give the PNG of the same
    /// pixels divided out, each as tiny-skia divides it.
    #[test]
    fn premultiplied_pixels_are_written_as_their_straight_colours() {
        let mut premultiplied = Vec::new();
        for a in [0u8, 1, 7, 64, 128, 200, 254, 255] {
            for v in [0u8, 1, 3, 50, 99, 128, 200, 255] {
                let v = (u16::from(v) * u16::from(a) / 255) as u8;
                premultiplied.extend_from_slice(&[v, v / 2, v / 3, a]);
            }
        }
        let straight: Vec<u8> = premultiplied
            .chunks_exact(4)
            .flat_map(|p| {
                let s = PremultipliedColorU8::from_rgba(p[0], p[1], p[2], p[3])
                    .expect("premultiplied")
                    .demultiply();
                [s.red(), s.green(), s.blue(), s.alpha()]
            })
            .collect();
        let image = |data: &[u8], alpha| {
            encode(&Rgba {
                width: 8,
                height: 8,
                data,
                alpha,
            })
            .expect("written")
        };
        let png = image(&premultiplied, Alpha::Premultiplied);
        assert_eq!(png, image(&straight, Alpha::Straight));
        assert_eq!(decoded(&png).1, straight);
    }

    /// Thousands of colours (the table grows several times): the 256 most
    /// used come back exactly, row by row.
    #[test]
    fn many_colours_keep_the_most_used_exactly() {
        let mut data = Vec::new();
        for i in 0..256u32 {
            for _ in 0..3 {
                data.extend_from_slice(&[i as u8, 7, 9, 255]);
            }
        }
        let common = data.clone();
        for i in 0..5_000u32 {
            data.extend_from_slice(&[(i % 256) as u8, (i / 256) as u8 + 100, 9, 255]);
        }
        let pixels = data.len() / 4;
        let image = Rgba {
            width: 64,
            height: (pixels / 64) as u32,
            data: &data[..pixels / 64 * 64 * 4],
            alpha: Alpha::Straight,
        };
        let (info, out) = decoded(&encode(&image).expect("written"));
        assert_eq!((info.width, info.height), (64, image.height));
        let rgb: Vec<u8> = common
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        assert_eq!(out[..rgb.len()], rgb[..]);
    }

    /// The nearest entry is the one of least squared distance, the first
    /// of equals, for full and short palettes alike.
    #[test]
    fn the_nearest_entry_is_the_first_of_least_distance() {
        let mut x = 0x1234_5678u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for len in [1, 17, 256] {
            let palette: Vec<u32> = (0..len).map(|_| next() & 0xF0F0_F0FF).collect();
            let channels = Channels::of(&palette);
            for _ in 0..500 {
                let c = next();
                let distance = |p: u32| -> u32 {
                    c.to_be_bytes()
                        .iter()
                        .zip(p.to_be_bytes())
                        .map(|(&a, b)| u32::from(a.abs_diff(b)).pow(2))
                        .sum()
                };
                let least = palette.iter().map(|&p| distance(p)).min().expect("entries");
                let first = palette.iter().position(|&p| distance(p) == least);
                assert_eq!(Some(usize::from(channels.nearest(c))), first);
            }
        }
    }

    #[test]
    fn pixels_that_do_not_fill_the_size_are_refused() {
        let err = encode(&Rgba {
            width: 2,
            height: 2,
            data: &[0; 12],
            alpha: Alpha::Straight,
        })
        .expect_err("refused");
        assert!(err.contains("not 16"), "{err}");
    }
}
