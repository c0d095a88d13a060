//! The `dervish` command.

mod cli;

use std::process::ExitCode;

/// Small values are made and dropped by the thousand in every mail and
/// turn; mimalloc serves them with a fraction of the system allocator's
/// work (docs/performance.md, "Intake of one orders mail").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
