//! House rules: optional variants of the rules as written, chosen when a
//! game is made (`--variant NAME`), off by default. Each is listed with
//! its reason and its figures in docs/rules.md, "House rules (optional
//! variants)".

use std::fmt;

use serde::{Deserialize, Serialize};

/// One house rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Variant {
    /// Gordon stays in Khartoum: no order may take him out of it (in 1884
    /// he refused to leave the town he was sent to evacuate).
    #[serde(rename = "gordon-stays")]
    GordonStays,
    /// Steamers run the siege: a river march of supply units carried by
    /// boats and gunboats, with a gunboat among them, may end in a
    /// besieged friendly town (in 1884 Gordon's steamers went up and down
    /// the Nile through the Mahdi's lines).
    #[serde(rename = "steamers-run-the-siege")]
    SteamersRunTheSiege,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::GordonStays, Variant::SteamersRunTheSiege];

    /// The name players write (`gordon-stays`).
    pub fn key(self) -> &'static str {
        match self {
            Variant::GordonStays => "gordon-stays",
            Variant::SteamersRunTheSiege => "steamers-run-the-siege",
        }
    }

    /// What it does, in a few words, for listings and reports.
    pub fn title(self) -> &'static str {
        match self {
            Variant::GordonStays => "Gordon stays in Khartoum",
            Variant::SteamersRunTheSiege => "Steamers run the siege",
        }
    }

    /// The leader the house rule keeps, and the town he stays in, if it
    /// keeps one.
    pub fn kept(self) -> Option<(&'static str, &'static str)> {
        match self {
            Variant::GordonStays => Some(("Gordon", "Khartoum")),
            Variant::SteamersRunTheSiege => None,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl std::str::FromStr for Variant {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Variant::ALL
            .into_iter()
            .find(|v| v.key().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| {
                let known: Vec<&str> = Variant::ALL.iter().map(|v| v.key()).collect();
                format!(
                    "no house rule called {wanted:?}; the variants are: {} (docs/rules.md, \"House rules\")",
                    known.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_reads_back_from_its_name() {
        for v in Variant::ALL {
            assert_eq!(v.key().parse::<Variant>(), Ok(v));
        }
        assert_eq!("Gordon-Stays".parse::<Variant>(), Ok(Variant::GordonStays));
        assert_eq!(
            "steamers-run-the-siege".parse::<Variant>(),
            Ok(Variant::SteamersRunTheSiege)
        );
    }

    #[test]
    fn an_unknown_variant_names_the_known_ones() {
        let e = "gordon-goes".parse::<Variant>().unwrap_err();
        assert!(
            e.contains("gordon-goes") && e.contains("gordon-stays"),
            "{e}"
        );
    }
}
