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

use rustc_hash::FxHashMap;

/// The most colours a PNG palette holds.
const PALETTE: usize = 256;

/// Pixels as straight (not premultiplied) RGBA, 4 bytes each, row by row.
pub struct Rgba<'p> {
    pub width: u32,
    pub height: u32,
    pub data: &'p [u8],
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
    let counts = colour_counts(image.data);
    let palette = palette_of(&counts);
    let index = index_of(&counts, &palette);
    let pixels = indexed_pixels(image.data, &index);
    write_png(image.width, image.height, &palette, &pixels)
}

/// A pixel's colour as one number (R, G, B, A from the high byte down).
fn colour(px: &[u8]) -> u32 {
    u32::from_be_bytes([px[0], px[1], px[2], px[3]])
}

/// How many pixels have each colour. Neighbouring pixels are mostly the
/// same colour, counted as one run.
fn colour_counts(data: &[u8]) -> FxHashMap<u32, u32> {
    let mut counts: FxHashMap<u32, u32> = FxHashMap::default();
    let mut pixels = data.chunks_exact(4).map(colour);
    let Some(mut run_colour) = pixels.next() else {
        return counts;
    };
    let mut run = 1u32;
    for c in pixels {
        if c == run_colour {
            run += 1;
        } else {
            *counts.entry(run_colour).or_default() += run;
            run_colour = c;
            run = 1;
        }
    }
    *counts.entry(run_colour).or_default() += run;
    counts
}

/// The palette: the most used colours, most used first (ties by colour).
fn palette_of(counts: &FxHashMap<u32, u32>) -> Vec<u32> {
    let mut by_use: Vec<(u32, u32)> = counts.iter().map(|(&c, &n)| (c, n)).collect();
    by_use.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    by_use.truncate(PALETTE);
    by_use.into_iter().map(|(c, _)| c).collect()
}

/// Each colour of the picture to its palette entry: its own, or the
/// nearest.
fn index_of(counts: &FxHashMap<u32, u32>, palette: &[u32]) -> FxHashMap<u32, u8> {
    let mut index: FxHashMap<u32, u8> = palette
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, i as u8))
        .collect();
    for &c in counts.keys() {
        index.entry(c).or_insert_with(|| nearest(c, palette));
    }
    index
}

/// The palette entry nearest to `c`: the least sum of squared differences
/// of red, green, blue and alpha (the first such entry).
fn nearest(c: u32, palette: &[u32]) -> u8 {
    let distance = |p: u32| -> u32 {
        c.to_be_bytes()
            .iter()
            .zip(p.to_be_bytes())
            .map(|(&a, b)| (i32::from(a) - i32::from(b)).unsigned_abs().pow(2))
            .sum()
    };
    let mut best = (u32::MAX, 0u8);
    for (i, &p) in palette.iter().enumerate() {
        let d = distance(p);
        if d < best.0 {
            best = (d, i as u8);
        }
    }
    best.1
}

/// The picture as palette entries, one byte a pixel.
fn indexed_pixels(data: &[u8], index: &FxHashMap<u32, u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 4);
    let mut last: Option<(u32, u8)> = None;
    for c in data.chunks_exact(4).map(colour) {
        let i = match last {
            Some((lc, li)) if lc == c => li,
            _ => index.get(&c).copied().unwrap_or(0),
        };
        last = Some((c, i));
        out.push(i);
    }
    out
}

/// The PNG: 8-bit indexed colour, its palette, the palette's alpha if any
/// entry is not opaque, and the pixels compressed (zlib level 4, no row
/// filter, as suits a palette picture).
fn write_png(width: u32, height: u32, palette: &[u32], pixels: &[u8]) -> Result<Vec<u8>, String> {
    let failed = |e: png::EncodingError| format!("the PNG could not be written: {e}");
    let rgb: Vec<u8> = palette
        .iter()
        .flat_map(|c| {
            let [r, g, b, _] = c.to_be_bytes();
            [r, g, b]
        })
        .collect();
    let alpha: Vec<u8> = palette.iter().map(|c| c.to_be_bytes()[3]).collect();
    let mut out = Vec::with_capacity(pixels.len() / 4);
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(rgb);
        if alpha.iter().any(|&a| a != u8::MAX) {
            encoder.set_trns(alpha);
        }
        encoder.set_deflate_compression(png::DeflateCompression::Level(4));
        encoder.set_filter(png::Filter::NoFilter);
        let mut writer = encoder.write_header().map_err(failed)?;
        writer.write_image_data(pixels).map_err(failed)?;
        writer.finish().map_err(failed)?;
    }
    Ok(out)
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

    #[test]
    fn pixels_that_do_not_fill_the_size_are_refused() {
        let err = encode(&Rgba {
            width: 2,
            height: 2,
            data: &[0; 12],
        })
        .expect_err("refused");
        assert!(err.contains("not 16"), "{err}");
    }
}
