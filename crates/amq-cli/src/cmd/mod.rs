//! One module per command; each is thin over the library.

pub mod aging;
pub mod algorand;
pub mod args;
pub mod btc;
pub mod build;
pub mod cashu;
pub mod cashu_state;
pub mod completions;
pub mod contains;
pub mod eth;
pub mod info;
pub mod merge;
pub mod negative;
pub mod plan;
pub mod query;
pub mod remove;
pub mod rln;
pub mod serve;
pub mod sim;
pub mod ttl;
pub mod window;
// [modules] further command modules go here, one line each

pub use args::{
    now_or_clock, parse_bytes, parse_fpr, BloomKind, ClockedInfoArgs, ClockedInsertArgs,
    FilterKind, ItemArgs, NewOutput, Now,
};

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// How a membership command prints its answers: one line `<word>\t<item>` per item, or one
/// JSON object `{"<item>": ..., <extra>, "<key>": true|false}`; the exit status is 0 if every
/// answer is yes and 1 otherwise.
pub struct Answers {
    /// One JSON object per answer.
    pub json: bool,
    /// The JSON name of the item (`item`, `input`).
    pub item: &'static str,
    /// The JSON name of the answer.
    pub key: &'static str,
    /// The words for yes and no.
    pub words: (&'static str, &'static str),
    /// A field added to every JSON object (a position, say).
    pub extra: Option<(&'static str, serde_json::Value)>,
}

impl Answers {
    /// A filter's answers: `maybe` or `no`, JSON `{"item": ..., "maybe": ...}`.
    pub fn maybe(json: bool) -> Self {
        Answers {
            json,
            item: "item",
            key: "maybe",
            words: ("maybe", "no"),
            extra: None,
        }
    }

    /// Prints each answer as it comes (an error stops the output there) and returns the exit
    /// status.
    pub fn print<'a>(
        &self,
        answers: impl IntoIterator<Item = Result<(&'a str, bool)>>,
    ) -> Result<ExitCode> {
        self.print_to(&mut crate::output::stdout(), answers)
    }

    /// The answers of an update whose yes is a change to `state` (removed, slashed): one per
    /// item, held back ([`AfterSave`](crate::output::AfterSave)) until `save` has written the
    /// file, which it does only if some answer was yes. Nothing is printed for a change that
    /// was not saved, and a reader that closes the pipe cannot stop the save. `save` holds
    /// the file's lock: it is dropped, releasing the lock, before anything is printed.
    pub fn print_after_save<'a, S>(
        &self,
        state: &mut S,
        items: &'a [String],
        mut answer: impl FnMut(&mut S, &'a str) -> Result<bool>,
        save: impl FnOnce(&S) -> Result<()>,
    ) -> Result<ExitCode> {
        let mut held = crate::output::AfterSave::new();
        let mut changed = false;
        let answers = items.iter().map(|item| {
            let yes = answer(state, item)?;
            changed |= yes;
            Ok((item.as_str(), yes))
        });
        let code = self.print_to(&mut held, answers)?;
        if changed {
            save(state)?;
        } else {
            drop(save);
        }
        held.print(changed)?;
        Ok(code)
    }

    /// [`print`](Self::print) to `out`.
    fn print_to<'a>(
        &self,
        out: &mut dyn Write,
        answers: impl IntoIterator<Item = Result<(&'a str, bool)>>,
    ) -> Result<ExitCode> {
        let mut all = true;
        for answer in answers {
            let (item, yes) = answer?;
            all &= yes;
            if self.json {
                let mut v = serde_json::json!({ self.item: item });
                if let Some((name, value)) = &self.extra {
                    v[*name] = value.clone();
                }
                v[self.key] = yes.into();
                crate::output::json_line(&mut *out, &v)?;
            } else {
                let word = if yes { self.words.0 } else { self.words.1 };
                writeln!(out, "{word}\t{item}")?;
            }
        }
        out.flush()?;
        Ok(exit_all(all))
    }
}

/// Exit status 0 if `all` held, 1 otherwise.
pub fn exit_all(all: bool) -> ExitCode {
    if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The targets of a GCS match: each one's value in `[0, F)` and its place in the input, as
/// `value << 64 | index`, 16 bytes each (the items themselves are read again to print them).
#[derive(Debug, Default)]
pub struct Targets(Vec<u128>);

impl Targets {
    /// Adds the next target's value.
    pub fn push(&mut self, value: u64) -> Result<()> {
        let index = self.0.len() as u128;
        crate::input::push(&mut self.0, u128::from(value) << 64 | index, "the targets")
    }

    /// Sorts by value and returns the values that occur more than once, each once.
    pub fn sort_and_find_repeats(&mut self) -> Vec<u64> {
        self.0.sort_unstable();
        let mut repeats: Vec<u64> = Vec::new();
        for w in self.0.windows(2) {
            let (a, b) = ((w[0] >> 64) as u64, (w[1] >> 64) as u64);
            if a == b && repeats.last() != Some(&a) {
                repeats.push(a);
            }
        }
        repeats
    }

    /// Whether each target (sorted) may be in the set, by input index: one pass over the set,
    /// and one byte per target.
    pub fn answers<B: AsRef<[u8]>>(&self, set: &amq::gcs::Gcs<B>) -> Result<Vec<bool>> {
        let mut answers = Vec::new();
        answers
            .try_reserve_exact(self.0.len())
            .map_err(|_| crate::input::cannot_allocate(self.0.len(), "the answers"))?;
        answers.resize(self.0.len(), false);
        let mut values = set.values();
        let mut current = if self.0.is_empty() {
            None
        } else {
            values.next_value()?
        };
        for &pair in &self.0 {
            let value = (pair >> 64) as u64;
            while current.is_some_and(|c| c < value) {
                current = values.next_value()?;
            }
            if current.is_none() {
                break;
            }
            answers[pair as u64 as usize] = current == Some(value);
        }
        Ok(answers)
    }
}

/// Reads a file (or stdin for `-`) and decodes it with `decode` (a `from_bytes`); an error in
/// its bytes names the file.
pub fn load<T, E>(path: &Path, decode: impl FnOnce(&[u8]) -> Result<T, E>) -> Result<T>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let bytes = crate::input::read_all(path)?;
    decode(&bytes).with_context(|| format!("{}", path.display()))
}

/// Reads and decodes an `.amq` file of any kind.
pub fn load_filter(path: &Path) -> Result<amq::AnyFilter> {
    load(path, amq::AnyFilter::from_bytes)
}

/// The error of `amq query` or `amq contains` for a kind that does not answer "maybe
/// present" by item alone, with the command that asks it (at a position, at an epoch, or the
/// other way round).
pub fn refused(path: &Path, filter: &amq::AnyFilter, e: amq::Error) -> anyhow::Error {
    let own = match filter.kind() {
        amq::wire::Kind::SlidingWindowBloom => "; ask it with `amq window contains --at L`",
        amq::wire::Kind::SlidingWindowCuckoo => "; ask it with `amq rln contains --epoch E`",
        amq::wire::Kind::NegativeCache => "; ask it with `amq negative contains`",
        _ => "",
    };
    anyhow::anyhow!("{}: {e}{own}", path.display())
}
