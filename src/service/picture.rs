//! The drawn maps sent with a player's results mail: the player's area
//! after the turn with the month's marches and battles over it, and, when
//! what the player must see does not fit one readable area, an overview of
//! the whole theatre as well (`render::frame`); each drawn as SVG
//! (`render::svg::map_svg`, readable at the width sent) and then as a PNG
//! of at most [`MAX_PICTURE_BYTES`] (resvg).
//!
//! The pictures only repeat what the text says, so they never hold a mail
//! back: drawing may fail (no memory, a map resvg refuses, a panic
//! inside the renderer), a picture may come out too large at every width
//! tried, or the mail with it may be too large; the mail then goes
//! without it, and the log says why.

use std::panic::{self, AssertUnwindSafe};

use crate::engine::events::Event;
use crate::mail::outbound::Attachment;
use crate::render::frame::frame;
use crate::render::svg::{self, Area, View};
use crate::scenario::{Scenario, Side};
use crate::state::GameState;
use crate::store::TurnKind;

/// The largest picture sent, in bytes of PNG: "a results mail's PNG map is
/// under 200 KB" (200,000 bytes, so under either reading of KB).
pub const MAX_PICTURE_BYTES: usize = 200_000;

/// The narrowest picture drawn: below this the map's words cannot be read,
/// and the mail goes without a picture instead.
pub const MIN_WIDTH_PX: u32 = 400;

/// A picture drawn.
#[derive(Clone, Debug)]
pub struct Picture {
    pub png: Vec<u8>,
    /// Its width in pixels, the first tried that gave a PNG small enough.
    pub width_px: u32,
    /// The area drawn: an area around the player's action, or the theatre.
    pub area: Area,
    /// Whether it is the overview of the whole theatre.
    pub overview: bool,
}

/// The picture's file name: `<game>-<month>-map.png`, with the player
/// turn in alternating mode (as the log's name).
pub fn file_name(game: &str, month: &str, kind: TurnKind) -> String {
    named(game, month, kind, "map")
}

/// The overview's file name: `<game>-<month>-overview.png`, with the
/// player turn in alternating mode.
pub fn overview_file_name(game: &str, month: &str, kind: TurnKind) -> String {
    named(game, month, kind, "overview")
}

fn named(game: &str, month: &str, kind: TurnKind, what: &str) -> String {
    let game = super::record::safe(game);
    match kind {
        TurnKind::Month => format!("{game}-{month}-{what}.png"),
        TurnKind::Player(_) | TurnKind::SetUp(_) => {
            format!("{game}-{month}-{}-{what}.png", kind.as_str())
        }
    }
}

/// How an SVG becomes a PNG of a width: [`svg::map_png`] (the system's
/// fonts), or another renderer in tests.
pub type Renderer<'r> = &'r dyn Fn(&str, u32) -> Result<Vec<u8>, String>;

/// What one side's pictures after a turn are drawn from: the state, with
/// the turn's events drawn over it (the side's own marches only).
#[derive(Clone, Copy)]
pub struct Scene<'a> {
    pub scn: &'a Scenario,
    pub state: &'a GameState,
    pub events: &'a [Event],
    pub side: Side,
}

impl<'a> Scene<'a> {
    pub fn new(scn: &'a Scenario, state: &'a GameState, events: &'a [Event], side: Side) -> Self {
        Scene {
            scn,
            state,
            events,
            side,
        }
    }

    /// The pictures [`frame`] asks for, each an area and whether it is the
    /// overview: the detail first, then the overview if any.
    fn pictures(&self) -> Vec<(Area, bool)> {
        let framing = frame(self.scn, self.state, self.events, self.side);
        let mut out: Vec<(Area, bool)> = framing.detail.map(|a| (a, false)).into_iter().collect();
        if framing.overview {
            out.push((Area::Theatre, true));
        }
        out
    }

    /// The SVG of one picture, drawn for `width_px`.
    fn svg(&self, area: Area, overview: bool, width_px: u32) -> String {
        let view = if overview {
            View::overview(width_px)
        } else {
            View::picture(area, width_px)
        };
        let view = view.with_overlay(self.events, Some(self.side));
        svg::map_svg(self.scn, Some(self.state), &view)
    }

    /// One picture: the SVG drawn for `width_px`, then the PNG that wide,
    /// and a quarter narrower each time it is [`MAX_PICTURE_BYTES`] or
    /// more, down to [`MIN_WIDTH_PX`] (the SVG drawn again for each width,
    /// so its words stay readable).
    fn draw(
        &self,
        area: Area,
        overview: bool,
        width_px: u32,
        render: Renderer<'_>,
    ) -> Result<Picture, String> {
        let mut width = width_px;
        loop {
            if width < MIN_WIDTH_PX {
                return Err(format!(
                    "the picture is {MAX_PICTURE_BYTES} bytes or more even {MIN_WIDTH_PX} pixels wide"
                ));
            }
            let png = render(&self.svg(area, overview, width), width)?;
            if png.len() < MAX_PICTURE_BYTES {
                return Ok(Picture {
                    png,
                    width_px: width,
                    area,
                    overview,
                });
            }
            tracing::debug!(
                width,
                bytes = png.len(),
                "the picture is too large; drawn narrower"
            );
            width = width * 3 / 4;
        }
    }
}

/// The SVGs of the scene's pictures as drawn for a width: each area,
/// whether it is the overview, and the SVG (the detail, then the overview
/// if any), as [`draw_safely`] draws them before they become PNGs.
pub fn svgs(scene: Scene<'_>, width_px: u32) -> Vec<(Area, bool, String)> {
    scene
        .pictures()
        .into_iter()
        .map(|(area, overview)| (area, overview, scene.svg(area, overview, width_px)))
        .collect()
}

/// Draw the scene's pictures, as [`frame`] frames them: the detail first,
/// then the overview if any. A panic inside the renderer is caught and
/// told as an error: the mail goes on without its pictures.
pub fn draw_safely(
    scene: Scene<'_>,
    width_px: u32,
    render: Renderer<'_>,
) -> Result<Vec<Picture>, String> {
    panic::catch_unwind(AssertUnwindSafe(|| {
        scene
            .pictures()
            .into_iter()
            .map(|(area, overview)| scene.draw(area, overview, width_px, render))
            .collect()
    }))
    .unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Err(format!("the renderer panicked: {why}"))
    })
}

/// What the picture shows, for the HTML's alt text.
pub fn alt_text(scn: &Scenario, side: Side, month: &str, p: &Picture) -> String {
    if p.overview {
        return format!(
            "An overview of the whole theatre after {month} for the {side} player: where every stack and town stands, with the month's marches and battles; the text below says the same."
        );
    }
    let area = p.area;
    let where_ = match area {
        Area::Theatre => "the whole theatre".to_string(),
        Area::Around { centre, .. } => format!("around {}", scn.map.describe(centre)),
    };
    format!(
        "The drawn map of the {side} player's area after {month}, {where_}, with the month's marches and battles; the text below says the same."
    )
}

/// The size of a mail as sent, estimated from above: its text twice (the
/// plain part, quoted-printable, and the HTML `<pre>` with its escapes),
/// every file encoded, and room for the headers and MIME boundaries.
pub fn estimated_mail_bytes(text: &str, files: &[Attachment]) -> usize {
    let text = text.len() + text.len() / 10;
    let html = text + text / 10 + 1024;
    text + html + files.iter().map(Attachment::encoded_len).sum::<usize>() + 4096
}
