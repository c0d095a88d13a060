//! Label placement for the drawn maps sent by mail (`svg::View::legible_at`):
//! each text's box is estimated from its characters and font size, and a
//! label is put at the first of its positions around what it names where
//! its box overlaps no text already placed and no marker; a label with no
//! such position is left out. Labels are placed in order of priority
//! (stack counts, battle results, towns, ... hex numbers last), so the
//! least needed give way.

use std::fmt::Write as _;

/// Where the position is on the text, as SVG's `text-anchor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A rectangle in map units: left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// The box `w` by `h` centred on `x`, `y`.
    pub fn centred(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect {
            x0: x - w / 2.0,
            y0: y - h / 2.0,
            x1: x + w / 2.0,
            y1: y + h / 2.0,
        }
    }

    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Width of a character of DejaVu Sans, in font sizes, generous (digits
/// are 0.64, bold ones 0.70; capitals up to 0.77).
const CHAR_W: f64 = 0.64;
const BOLD_CHAR_W: f64 = 0.72;

/// The box of `text` at `size` written at `x`, `y` (the baseline) with
/// `anchor`: the font's line, from its ascender to its descender (DejaVu
/// Sans: 0.93 and 0.24 of the size), as resvg lays the text out.
pub fn text_box(text: &str, size: f64, bold: bool, x: f64, y: f64, anchor: Anchor) -> Rect {
    let w = text.chars().count() as f64 * size * if bold { BOLD_CHAR_W } else { CHAR_W };
    let x0 = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    Rect {
        x0,
        y0: y - 0.95 * size,
        x1: x0 + w,
        y1: y + 0.25 * size,
    }
}

/// One text to place.
#[derive(Clone, Debug)]
pub struct Label {
    /// The CSS class (its font size and colour).
    pub class: &'static str,
    /// Extra attributes, written as they are (` data-hex="1942"`).
    pub attrs: String,
    pub text: String,
    pub size: f64,
    pub bold: bool,
    /// Lower first.
    pub priority: u8,
    /// Where it may go, the best first.
    pub at: Vec<(f64, f64, Anchor)>,
    /// Put at its first position whatever it overlaps (a stack's count on
    /// its counter).
    pub fixed: bool,
    /// A shorter text tried at every position when the text has no room
    /// ("Gordon +1" for "Gordon, J. Stewart").
    pub short: Option<String>,
}

/// The labels of one map and the markers they must not cover.
#[derive(Default)]
pub struct Board {
    labels: Vec<Label>,
    /// Markers, each with the lowest priority it keeps off (0: every
    /// label).
    blocks: Vec<(Rect, u8)>,
    /// The map's frame, which every label stays inside (the map is cut
    /// at its edge).
    frame: Option<Rect>,
}

/// A label put down: the SVG and its box.
#[derive(Clone, Debug)]
pub struct Placed {
    pub svg: String,
    pub rect: Rect,
}

impl Board {
    /// A board whose labels stay inside `frame`.
    pub fn within(frame: Rect) -> Board {
        Board {
            frame: Some(frame),
            ..Board::default()
        }
    }

    /// A marker no label may cover.
    pub fn block(&mut self, r: Rect) {
        self.blocks.push((r, 0));
    }

    /// A marker only labels of `priority` or lower (a larger number) may
    /// not cover: a battle's burst keeps hex numbers off, not names.
    pub fn block_from(&mut self, r: Rect, priority: u8) {
        self.blocks.push((r, priority));
    }

    pub fn add(&mut self, l: Label) {
        self.labels.push(l);
    }

    /// Every label at its first free position, by priority (in the order
    /// added within one); those with none left out.
    pub fn place(mut self) -> Vec<Placed> {
        self.labels.sort_by_key(|l| l.priority);
        let mut taken: Vec<Rect> = Vec::new();
        let mut out = Vec::new();
        for l in &self.labels {
            let inside = |r: &Rect| {
                self.frame
                    .is_none_or(|f| r.x0 >= f.x0 && r.y0 >= f.y0 && r.x1 <= f.x1 && r.y1 <= f.y1)
            };
            let free = |r: &Rect| {
                inside(r)
                    && !taken.iter().any(|t| t.overlaps(r))
                    && !self
                        .blocks
                        .iter()
                        .any(|(b, from)| l.priority >= *from && b.overlaps(r))
            };
            let texts = std::iter::once(&l.text).chain(l.short.as_ref());
            let mut boxes = texts.flat_map(|text| {
                l.at.iter().map(move |&(x, y, a)| {
                    ((text, x, y, a), text_box(text, l.size, l.bold, x, y, a))
                })
            });
            let chosen = if l.fixed {
                boxes.next()
            } else {
                boxes.find(|(_, r)| free(r))
            };
            let Some(((text, x, y, a), rect)) = chosen else {
                continue;
            };
            taken.push(rect);
            let mut svg = String::new();
            let _ = write!(
                svg,
                "<text class=\"{}\"{} x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>",
                l.class,
                l.attrs,
                super::num(x),
                super::num(y),
                a.as_str(),
                super::escape(text)
            );
            out.push(Placed { svg, rect });
        }
        out
    }
}

/// Positions around a marker centred on `x`, `y` that is `w` by `h`, for
/// a text of `size`: below, above, right, left (centred on it), then
/// below and above starting at its left or ending at its right (for a
/// long text); then the same a step farther out, and two.
pub fn around(x: f64, y: f64, w: f64, h: f64, size: f64) -> Vec<(f64, f64, Anchor)> {
    let mut v = Vec::new();
    for step in [0.0, size * 0.9, size * 1.8] {
        let (hw, hh) = (w / 2.0 + 1.0 + step, h / 2.0 + 1.0 + step);
        let (below, above) = (y + hh + 0.95 * size, y - hh - 0.25 * size);
        v.extend([
            (x, below, Anchor::Middle),
            (x, above, Anchor::Middle),
            (x + hw, y + 0.3 * size, Anchor::Start),
            (x - hw, y + 0.3 * size, Anchor::End),
            (x - w / 2.0, below, Anchor::Start),
            (x - w / 2.0, above, Anchor::Start),
            (x + w / 2.0, below, Anchor::End),
            (x + w / 2.0, above, Anchor::End),
        ]);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str, priority: u8, at: Vec<(f64, f64, Anchor)>) -> Label {
        Label {
            class: "t",
            attrs: String::new(),
            text: text.to_string(),
            size: 10.0,
            bold: false,
            priority,
            at,
            fixed: false,
            short: None,
        }
    }

    #[test]
    fn a_label_that_would_overlap_moves_or_gives_way() {
        let mut b = Board::default();
        b.add(label("Hasheen", 2, around(0.0, 0.0, 4.0, 4.0, 10.0)));
        b.add(label("Tofrek", 2, around(20.0, 0.0, 4.0, 4.0, 10.0)));
        b.add(label("5319", 6, vec![(10.0, 10.0, Anchor::Middle)]));
        let placed = b.place();
        assert_eq!(placed.len(), 2, "the hex number gives way: {placed:?}");
        assert!(!placed[0].rect.overlaps(&placed[1].rect), "{placed:?}");
        assert!(placed[1].svg.contains(">Tofrek<"), "{placed:?}");
    }

    #[test]
    fn a_marker_is_never_covered() {
        let mut b = Board::default();
        b.block(Rect::centred(0.0, 0.0, 100.0, 100.0));
        b.add(label("Souakim", 2, vec![(0.0, 0.0, Anchor::Middle)]));
        assert!(b.place().is_empty());
    }
}
