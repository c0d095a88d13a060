//! What checking a sheet of orders gives: the orders the engine is given,
//! the errors, warnings and plans. The checker (`check.rs`) and the house
//! rules' refusals (`house.rs`) both fill it; it uses neither.

use super::Item;
use crate::engine::orders::Orders;
use crate::engine::plan::MarchPlan;
use crate::geo::Hex;

/// An order that is not possible in this game now, or (as a warning) one
/// the engine will carry out only in part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// Line number in the message (0: the header or subject).
    pub line: usize,
    /// The line as read.
    pub text: String,
    pub message: String,
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The outcome of checking a sheet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// What the engine is given: every order without an error.
    pub orders: Orders,
    /// Orders that will not be carried out.
    pub errors: Vec<CheckError>,
    /// Orders carried out in part, or that may not do what was meant.
    pub warnings: Vec<CheckError>,
    /// The plan of each march, by the index of its item in the sheet.
    pub plans: Vec<(usize, MarchPlan)>,
    /// Orders possible only if an earlier order succeeds (5.2 III): each
    /// says which (by its line) and why. They are given to the engine,
    /// which checks them again when their turn comes.
    pub conditional: Vec<CheckError>,
    /// The whole set was refused (orders for another side or month).
    pub refused: bool,
    /// The side's besieged hexes (9.12) in the position checked, worked
    /// out once for the receipt's defaults; `None` when the orders were
    /// checked on another position (SETUP orders placed first), or not
    /// planned at all (a set refused whole).
    pub besieged: Option<Vec<Hex>>,
}

impl Checked {
    pub(super) fn error(&mut self, item: &Item, message: impl Into<String>) {
        self.errors.push(CheckError {
            line: item.line,
            text: item.text.clone(),
            message: message.into(),
        });
    }

    pub(super) fn warn(&mut self, item: &Item, message: impl Into<String>) {
        self.warnings.push(CheckError {
            line: item.line,
            text: item.text.clone(),
            message: message.into(),
        });
    }
}
