//! Renderers: turn the map, the state and engine events into text for
//! email and into drawn maps (SVG, PNG). Pure functions of their inputs,
//! except that drawing a PNG reads the system's fonts once a process
//! (`svg::map_png`).

pub mod archive;
pub mod ascii;
pub mod frame;
pub mod indexed;
pub mod labels;
pub mod log;
pub mod news;
pub mod roster;
pub mod sectors;
pub mod svg;

/// Text for HTML or SVG, escaped (both the text between tags and the
/// values of attributes in double or single quotes), as the mails' HTML
/// parts escape it.
pub fn escape(s: &str) -> String {
    crate::words::escape_html(s)
}

/// A number with at most one decimal, without a trailing `.0`.
pub(crate) struct N(pub(crate) f64);

impl std::fmt::Display for N {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = (self.0 * 10.0).round() / 10.0;
        if t == t.trunc() {
            write!(f, "{}", t as i64)
        } else {
            write!(f, "{t:.1}")
        }
    }
}

/// A number as the SVG writes it: at most one decimal.
pub(crate) fn num(v: f64) -> String {
    N(v).to_string()
}
