//! `amq`: plan, build, query, inspect and merge approximate membership filters.
//!
//! Exit status: 0 success or "maybe present"; 1 "definitely absent" or a failed check;
//! 2 an error (one `error: ...` line on stderr). A closed pipe is not an error.

// The doc comments of the argument structs are the `--help` text, written for a terminal:
// `<name>` there is a placeholder, not HTML.
#![allow(rustdoc::invalid_html_tags)]

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod fsio;
mod input;
mod memory;
mod output;

/// Approximate membership queries: Bloom and blocked Bloom filters, sizing maths, and
/// byte-exact chain filter formats.
#[derive(Parser, Debug)]
#[command(name = "amq", version, about, long_about = None, propagate_version = true)]
#[command(after_help = "Examples:
  amq plan --items 1000000 --fpr 0.01
  printf 'apple\\npear\\n' | amq build --fpr 0.01 -o fruit.amq -
  amq contains fruit.amq apple zyzzyva        # maybe, then no (exit 1)
  amq info fruit.amq")]
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
    /// The sliding-window Bloom filter of mutator sets (items at positions).
    Window(cmd::window::Args),
    /// The aging Bloom filter: "seen within the last window" of insertions or seconds.
    Aging(cmd::aging::Args),
    /// The negative cache: "definitely present" or "maybe absent".
    Negative(cmd::negative::Args),
    /// Experiments: measured error rates against the formulas, as CSV and SVG.
    Sim(cmd::sim::Args),
    /// Bitcoin filter formats: BIP37 `filterload` bloom filters, BIP158 block filters.
    Btc(cmd::btc::Args),
    /// Algorand: the unit-name registry contract's Bloom filter (box bytes).
    Algorand(cmd::algorand::Args),
    /// Cashu spent-note filters (NUT-23 draft Golomb-coded sets).
    Cashu(cmd::cashu::Args),
    /// Ethereum logsBloom: compute, query, verify and scan receipts' and blocks' blooms.
    Eth(cmd::eth::Args),
    /// Remove items from a cuckoo filter (exit 1 if an item was not there).
    Remove(cmd::remove::Args),
    Ttl(cmd::ttl::Args),
    Rln(cmd::rln::Args),
    Serve(cmd::serve::Args),
    Completions(cmd::completions::Args),
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
        Command::Window(a) => cmd::window::run(a),
        Command::Aging(a) => cmd::aging::run(a),
        Command::Negative(a) => cmd::negative::run(a),
        Command::Sim(a) => cmd::sim::run(a),
        Command::Btc(a) => cmd::btc::run(a),
        Command::Algorand(a) => cmd::algorand::run(a),
        Command::Cashu(a) => cmd::cashu::run(a),
        Command::Eth(a) => cmd::eth::run(a),
        Command::Remove(a) => cmd::remove::run(a),
        Command::Ttl(a) => cmd::ttl::run(a),
        Command::Rln(a) => cmd::rln::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Completions(a) => cmd::completions::run(a, Cli::command()),
        // [dispatch] further commands go here, one line each
    }
}

/// A clap error as the one line `error: ...` every other error is (clap's own is several: the
/// error, tips, usage, a pointer to `--help`): the error, its tips, and which `--help` to read.
fn one_line(e: &clap::Error) -> String {
    use clap::error::ErrorKind;
    let help = format!("see '{} --help'", command_path());
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        return format!("error: a subcommand is missing; {help}");
    }
    let text = e.to_string();
    let mut parts: Vec<String> = Vec::new();
    for (i, paragraph) in text.split("\n\n").enumerate() {
        let lines: Vec<&str> = paragraph
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let joined = lines.join(" ");
        if i == 0 {
            parts.push(
                joined
                    .strip_prefix("error: ")
                    .unwrap_or(&joined)
                    .to_string(),
            );
        } else if joined.starts_with("tip:") {
            parts.push(joined);
        }
    }
    format!("error: {}; {help}", parts.join("; "))
}

/// `amq` and the subcommands named on the command line (`amq btc bip37 build`).
fn command_path() -> String {
    use clap::CommandFactory;
    let mut command = Cli::command();
    let mut path = vec!["amq".to_string()];
    // `args_os`: `args` panics on an argument that is not UTF-8 (a file name, say), and this
    // runs on the way to printing a usage error
    for arg in std::env::args_os().skip(1) {
        let Some(sub) = arg
            .to_str()
            .and_then(|a| command.find_subcommand(a))
            .cloned()
        else {
            break;
        };
        path.push(arg.to_string_lossy().into_owned());
        command = sub;
    }
    path.join(" ")
}

/// The type ids of the numbers an option may take.
fn numeric_types() -> [std::any::TypeId; 15] {
    use std::any::TypeId;
    use std::num::{NonZeroU32, NonZeroU64, NonZeroUsize};
    [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<u128>(),
        TypeId::of::<usize>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<f32>(),
        TypeId::of::<f64>(),
        TypeId::of::<NonZeroU32>(),
        TypeId::of::<NonZeroU64>(),
        TypeId::of::<NonZeroUsize>(),
    ]
}

/// `cmd` and its subcommands with every numeric option taking a leading `-` as its value, so
/// that `--tweak -1` is refused by the option's parser ("invalid value '-1' for '--tweak
/// <T>'"), as `--tweak=-1` is, and not taken for an unknown flag (no flag is a digit).
fn negative_numbers_are_values(cmd: clap::Command) -> clap::Command {
    let numeric = numeric_types();
    cmd.mut_args(|arg| {
        let number = numeric
            .iter()
            .any(|t| arg.get_value_parser().type_id() == *t);
        if number && !arg.is_positional() {
            arg.allow_negative_numbers(true)
        } else {
            arg
        }
    })
    .mut_subcommands(negative_numbers_are_values)
}

/// Parses the command line as [`Cli`], numeric options taking negative numbers as values.
fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let matches = negative_numbers_are_values(Cli::command()).try_get_matches()?;
    Cli::from_arg_matches(&matches)
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.exit();
            }
            eprintln!("{}", one_line(&e));
            return ExitCode::from(2);
        }
    };
    fsio::file_size_limit_is_an_error();
    match run(cli) {
        Ok(code) => code,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
