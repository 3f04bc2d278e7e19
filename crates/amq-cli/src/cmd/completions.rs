//! `amq completions`: the shell completion script for every command, subcommand and option,
//! generated from the same clap definitions as `--help` (clap_complete).

use anyhow::Result;
use clap_complete::Shell;
use std::io::Write;
use std::process::ExitCode;

/// Print a shell's completion script for amq.
///
/// It completes every command, subcommand and option of amq, and the values of options
/// that take one of a few (kinds, formats).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq completions bash > ~/.local/share/bash-completion/completions/amq
  amq completions zsh > ~/.zfunc/_amq       # with fpath+=(~/.zfunc) before compinit
  amq completions fish > ~/.config/fish/completions/amq.fish")]
pub struct Args {
    /// The shell: bash, zsh, fish, elvish or powershell.
    shell: Shell,
}

/// Runs `amq completions`: the script on stdout.
pub fn run(a: Args, mut command: clap::Command) -> Result<ExitCode> {
    // generated in memory: clap_complete panics on a failed write, and stdout may be a
    // closed pipe (`amq completions bash | head`), which is not an error here
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut command, "amq", &mut script);
    let mut out = crate::output::stdout();
    out.write_all(&script)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
