//! `amq`: plan, build, query, inspect and merge approximate membership filters.
//!
//! Exit status: 0 success or "maybe present"; 1 "definitely absent" or a failed check;
//! 2 an error (one `error: ...` line on stderr). A closed pipe is not an error.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod input;
mod output;

/// Approximate membership queries: Bloom and blocked Bloom filters, sizing maths, and
/// byte-exact chain filter formats.
#[derive(Parser, Debug)]
#[command(name = "amq", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Plan(cmd::plan::Args),
    Build(cmd::build::Args),
    Query(cmd::query::Args),
    Contains(cmd::contains::Args),
    Info(cmd::info::Args),
    Merge(cmd::merge::Args),
    // [commands] further commands go here, one line each
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Plan(a) => cmd::plan::run(a),
        Command::Build(a) => cmd::build::run(a),
        Command::Query(a) => cmd::query::run(a),
        Command::Contains(a) => cmd::contains::run(a),
        Command::Info(a) => cmd::info::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        // [dispatch] further commands go here, one line each
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
