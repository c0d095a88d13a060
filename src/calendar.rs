//! The game calendar: one game turn is one month (rule 1.2), from October
//! 1882 (scenario 1) to October 1885 (the end of scenario 2).

use std::fmt;
use std::str::FromStr;

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Serialize};

/// The first month any scenario can be played in.
pub const FIRST: GameMonth = GameMonth {
    year: 1882,
    month: 10,
};
/// The last month any scenario can be played in.
pub const LAST: GameMonth = GameMonth {
    year: 1885,
    month: 10,
};

/// A month of the campaign, written `1884-03`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct GameMonth {
    year: i32,
    month: u32,
}

/// A month label that could not be read or lies outside the war.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MonthError {
    #[error("`{0}` is not a month: write the year and month, such as 1884-03")]
    Syntax(String),
    #[error("{0} is outside the war: game months run from October 1882 to October 1885")]
    OutOfRange(String),
}

impl GameMonth {
    /// The month `month` (1-12) of `year`, if it lies within the war.
    pub fn new(year: i32, month: u32) -> Result<GameMonth, MonthError> {
        let m = GameMonth { year, month };
        if !(1..=12).contains(&month) {
            return Err(MonthError::Syntax(format!("{year}-{month:02}")));
        }
        if m < FIRST || m > LAST {
            return Err(MonthError::OutOfRange(m.long_name()));
        }
        Ok(m)
    }

    /// The year.
    pub fn year(self) -> i32 {
        self.year
    }

    /// The calendar month, 1 for January.
    pub fn month(self) -> u32 {
        self.month
    }

    /// The first day of the month.
    pub fn first_day(self) -> NaiveDate {
        NaiveDate::from_ymd_opt(self.year, self.month, 1).unwrap_or(NaiveDate::MIN)
    }

    /// The next month, if the war goes on.
    pub fn next(self) -> Option<GameMonth> {
        let (y, m) = if self.month == 12 {
            (self.year + 1, 1)
        } else {
            (self.year, self.month + 1)
        };
        GameMonth::new(y, m).ok()
    }

    /// The month `n` months later (or earlier, if negative), if within the war.
    pub fn plus(self, n: i32) -> Option<GameMonth> {
        let idx = self.year * 12 + self.month as i32 - 1 + n;
        GameMonth::new(idx.div_euclid(12), idx.rem_euclid(12) as u32 + 1).ok()
    }

    /// Months from `earlier` to `self` (negative if `earlier` is later).
    pub fn months_since(self, earlier: GameMonth) -> i32 {
        (self.year - earlier.year) * 12 + self.month as i32 - earlier.month as i32
    }

    /// Every month from `self` to `last`, both included.
    pub fn through(self, last: GameMonth) -> impl Iterator<Item = GameMonth> {
        std::iter::successors(Some(self), move |m| m.next().filter(|n| *n <= last))
            .take_while(move |m| *m <= last)
    }

    /// Whether seasonally navigable rivers are navigable: November to
    /// February inclusive (rule 8.23 III).
    pub fn seasonal_rivers_navigable(self) -> bool {
        matches!(self.month, 11 | 12 | 1 | 2)
    }

    /// "March 1884".
    pub fn long_name(self) -> String {
        let name = self.first_day().format("%B").to_string();
        format!("{name} {}", self.year)
    }
}

impl fmt::Display for GameMonth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{:02}", self.year, self.month)
    }
}

impl FromStr for GameMonth {
    type Err = MonthError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let syntax = || MonthError::Syntax(s.to_string());
        let (y, m) = t.split_once('-').ok_or_else(syntax)?;
        if y.len() != 4 || m.is_empty() || m.len() > 2 {
            return Err(syntax());
        }
        let year: i32 = y.parse().map_err(|_| syntax())?;
        let month: u32 = m.parse().map_err(|_| syntax())?;
        let d = NaiveDate::from_ymd_opt(year, month, 1).ok_or_else(syntax)?;
        GameMonth::new(d.year(), d.month())
    }
}

impl TryFrom<String> for GameMonth {
    type Error = MonthError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<GameMonth> for String {
    fn from(m: GameMonth) -> String {
        m.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> GameMonth {
        s.parse().unwrap()
    }

    #[test]
    fn months_read_and_print_as_year_dash_month() {
        assert_eq!(m("1884-03").to_string(), "1884-03");
        assert_eq!(m("1884-3"), m("1884-03"));
        assert_eq!(m("1884-03").long_name(), "March 1884");
        for bad in ["1884-13", "March"] {
            let e = bad.parse::<GameMonth>();
            assert!(matches!(e, Err(MonthError::Syntax(_))), "{bad}: {e:?}");
        }
        for outside in ["1886-01", "1882-09"] {
            let e = outside.parse::<GameMonth>();
            assert!(
                matches!(e, Err(MonthError::OutOfRange(_))),
                "{outside}: {e:?}"
            );
        }
    }

    #[test]
    fn the_war_runs_from_october_1882_to_october_1885() {
        let all: Vec<_> = FIRST.through(LAST).collect();
        assert_eq!(all.len(), 37);
        assert_eq!(all[3], m("1883-01"));
        assert_eq!(LAST.next(), None);
        assert_eq!(m("1883-12").next(), Some(m("1884-01")));
        assert_eq!(m("1884-11").plus(2), Some(m("1885-01")));
        assert_eq!(m("1885-01").plus(-3), Some(m("1884-10")));
        assert_eq!(m("1885-01").months_since(m("1884-02")), 11);
        // Scenario 1 runs October 1882 to March 1884: 18 months.
        assert_eq!(m("1882-10").through(m("1884-03")).count(), 18);
    }

    #[test]
    fn rule_8_23_iii_seasonal_rivers_are_navigable_november_to_february() {
        let open: Vec<u32> = (1..=12)
            .filter(|&mo| {
                GameMonth {
                    year: 1884,
                    month: mo,
                }
                .seasonal_rivers_navigable()
            })
            .collect();
        assert_eq!(open, vec![1, 2, 11, 12]);
    }
}
