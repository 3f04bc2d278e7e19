//! Writing files safely: atomic replacement, and an exclusive lock around read-modify-write.
//!
//! * [`write`] puts bytes at a path the user named (`-o FILE`). A regular file (or a path that
//!   does not exist yet) is replaced atomically: the bytes go to a fresh temporary file in the
//!   same directory (a random name, created with `O_EXCL`, so nothing planted there can be
//!   followed), which is flushed to disk, renamed over the target, and the directory is flushed
//!   too before success is reported. A reader sees the old file or the new one, never a part.
//!   The target keeps its permission bits (a 0600 filter stays 0600; a new file gets 0666 less
//!   the umask; a read-only file, 0444, is refused as `cp` refuses it) and, where the system
//!   allows, its owner. A symbolic link is followed to its final target, which is replaced,
//!   so the link stays a link. `-` is stdout; a character
//!   device or a FIFO (`/dev/stdout`, `/dev/null`, a named pipe) is written into, as a shell
//!   redirection would; a directory, a block device or a socket is refused. On any error
//!   (disk full included) the target is left as it was and no temporary file stays behind.
//!   Nor does one when SIGINT, SIGTERM or SIGHUP ends the process mid-write: it is removed
//!   and the process then dies of the signal as it would have (the shell sees the same
//!   status; on Linux, a signal the process was started ignoring stays ignored, as under
//!   `nohup`; elsewhere the signals are left alone). Only what no process can catch
//!   (SIGKILL, a crash, a power failure) can leave the temporary file, `.NAME.` then six
//!   random characters then `.tmp`, beside the target, which is intact; it can be deleted.
//!   A file size limit (`ulimit -f`, systemd's `LimitFSIZE=`) is an error like a full disk
//!   ("File too large"), not the SIGXFSZ that would kill the process
//!   ([`file_size_limit_is_an_error`]).
//! * [`Update`] is a read-modify-write of a filter file (`remove`, `window insert`, ...): it
//!   takes an exclusive advisory lock on the file before the caller reads it and keeps it until
//!   the new contents have replaced it, so concurrent writers run one after the other and no
//!   update is lost. Every command that replaces an existing file takes the same lock.
//!
//! The lock is `flock(2)` on the file itself (std's `File::lock`). A replaced file is a new
//! inode: a writer that waited on the old one sees, once it holds the lock, that the path no
//! longer names the file it locked, and starts over on the new one.

use anyhow::{bail, Context, Result};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The most symbolic links followed to find the file a path names (Linux's own limit).
const MAX_LINKS: usize = 40;

/// What a path names, after following symbolic links.
enum Target {
    /// A regular file, or nothing yet: replaced atomically.
    Replace(PathBuf),
    /// A character device or a FIFO: written into.
    WriteInto(PathBuf),
}

/// Follows symbolic links from `path` to the path of the file they end at (which need not
/// exist), and says how to write there.
fn target(path: &Path) -> Result<Target> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::Replace(p)),
            Err(e) => return Err(e).with_context(|| format!("cannot write {}", p.display())),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = fs::read_link(&p)
                .with_context(|| format!("cannot read the link {}", p.display()))?;
            p = match p.parent() {
                Some(dir) if link.is_relative() => dir.join(link),
                _ => link,
            };
            continue;
        }
        if kind.is_file() {
            return Ok(Target::Replace(p));
        }
        if is_char_device_or_fifo(&kind) {
            return Ok(Target::WriteInto(p));
        }
        let what = if kind.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        bail!("cannot write {}: it is {what}", path.display());
    }
    bail!(
        "cannot write {}: more than {MAX_LINKS} symbolic links",
        path.display()
    )
}

#[cfg(unix)]
fn is_char_device_or_fifo(kind: &fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_char_device() || kind.is_fifo()
}

#[cfg(not(unix))]
fn is_char_device_or_fifo(_: &fs::FileType) -> bool {
    false
}

/// A structure's `.amq` bytes from `encode` (its `to_bytes`), after checking that the memory
/// that takes can be had: `to_bytes` writes the file into one buffer of about the structure's
/// `size` bytes (the library's encoders copy the table once, into the file), with an
/// allocation that would abort the process if it failed, and on Linux the buffer must also fit
/// in the memory the system has available ([`crate::memory`]: else the kernel would kill the
/// process once the buffer is written). A failed check is the error `cannot allocate N bytes
/// for the .amq file` instead.
pub fn encode(size: u64, encode: impl FnOnce() -> Vec<u8>) -> Result<Vec<u8>> {
    let need = size.saturating_add(1 << 16);
    crate::memory::check(need, "the .amq file")?;
    let need = usize::try_from(need).unwrap_or(usize::MAX);
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(need)
        .map_err(|_| crate::input::cannot_allocate(need, "the .amq file"))?;
    drop(probe);
    Ok(encode())
}

/// Writes `bytes` to `path` (`-` for stdout) as the [module docs](self) say.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    Output::open(path)?.write(bytes)
}

/// Where a command's output file goes, chosen (and an existing file locked) before the command
/// does its work, so that no other writer replaces it in between.
#[derive(Debug)]
pub struct Output(Dest);

#[derive(Debug)]
enum Dest {
    Stdout,
    Into(PathBuf),
    New(PathBuf),
    Locked(Update),
}

impl Output {
    /// Resolves `path` (`-` is stdout) and locks the file there if there is one.
    pub fn open(path: &Path) -> Result<Output> {
        if path == Path::new("-") {
            return Ok(Output(Dest::Stdout));
        }
        Ok(Output(match target(path)? {
            Target::WriteInto(p) => Dest::Into(p),
            Target::Replace(p) => match Update::lock_existing(&p)? {
                Some(update) => Dest::Locked(update),
                None => Dest::New(p),
            },
        }))
    }

    /// Writes the bytes (and releases the lock).
    pub fn write(self, bytes: &[u8]) -> Result<()> {
        match self.0 {
            Dest::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes)?;
                out.flush()?;
                Ok(())
            }
            Dest::Into(p) => {
                let mut f = fs::OpenOptions::new()
                    .write(true)
                    .open(&p)
                    .with_context(|| format!("cannot open {}", p.display()))?;
                f.write_all(bytes)
                    .and_then(|()| f.flush())
                    .with_context(|| format!("cannot write {}", p.display()))
            }
            Dest::New(p) => replace(&p, None, bytes),
            Dest::Locked(update) => update.replace(bytes),
        }
    }
}

/// An exclusive lock on a file for a read-modify-write, released when dropped.
#[derive(Debug)]
pub struct Update {
    /// The locked file (its current inode at the path).
    file: File,
    /// The path of the file, symbolic links followed.
    path: PathBuf,
    /// Shown in messages: the path as the user gave it.
    shown: PathBuf,
}

impl Update {
    /// Locks the existing regular file at `path` (following symbolic links), waiting for any
    /// other writer to finish. Read it (by path) only after this returns.
    pub fn lock(path: &Path) -> Result<Update> {
        match target(path)? {
            Target::Replace(p) => match Update::lock_existing(&p)? {
                Some(mut u) => {
                    u.shown = path.to_path_buf();
                    Ok(u)
                }
                None => bail!("cannot open {}: no such file", path.display()),
            },
            Target::WriteInto(_) => bail!(
                "cannot update {} in place: it is not a regular file",
                path.display()
            ),
        }
    }

    /// Locks the regular file at `path` (no symbolic link), or `None` if there is none.
    fn lock_existing(path: &Path) -> Result<Option<Update>> {
        loop {
            let file = match File::open(path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
            };
            file.lock()
                .with_context(|| format!("cannot lock {}", path.display()))?;
            // the file may have been replaced while we waited: then lock the new one
            match fs::metadata(path) {
                Ok(now) if same_file(&file.metadata()?, &now) => {
                    return Ok(Some(Update {
                        file,
                        path: path.to_path_buf(),
                        shown: path.to_path_buf(),
                    }))
                }
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
            }
        }
    }

    /// Replaces the file's contents atomically with `bytes`, then releases the lock.
    pub fn replace(self, bytes: &[u8]) -> Result<()> {
        let meta = self
            .file
            .metadata()
            .with_context(|| format!("cannot read {}", self.shown.display()))?;
        replace(&self.path, Some(&meta), bytes)
        // `self.file` closes here, which releases the lock, after the rename
    }
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    true
}

/// Writes `bytes` to a new temporary file beside `path` and renames it over `path`; `old` is
/// the metadata of the file replaced (its permissions and owner are kept).
fn replace(path: &Path, old: Option<&fs::Metadata>, bytes: &[u8]) -> Result<()> {
    // the rename needs only the directory's permission: a file made read-only would be
    // replaced where `>` or `cp` refuse it
    if old.is_some_and(|m| m.permissions().readonly()) {
        bail!(
            "cannot write {}: the file is read-only; make it writable (chmod u+w) to replace it",
            path.display()
        );
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .with_context(|| format!("cannot write {}: no file name", path.display()))?;
    let mut builder = tempfile::Builder::new();
    let prefix = format!(".{}.", name.to_string_lossy());
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    if old.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // 0666 less the umask, as any new file
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    // from its creation on, an error drops `tmp`, which deletes the temporary file, and a
    // signal that ends the process deletes it too
    let (mut tmp, in_flight) = signals::InFlight::create(|| builder.tempfile_in(dir))
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let fail =
        |e: io::Error| anyhow::Error::new(e).context(format!("cannot write {}", path.display()));
    if let Some(old) = old {
        keep_owner_and_mode(tmp.as_file(), old).map_err(fail)?;
    }
    write_all(tmp.as_file_mut(), bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    in_flight
        .done(|| tmp.persist(path))
        .map_err(|e| fail(e.error))?;
    sync_dir(dir).with_context(|| format!("cannot flush the directory {}", dir.display()))?;
    Ok(())
}

/// Makes a write past the process's file size limit fail with "File too large" (EFBIG), as
/// a full disk fails, instead of raising SIGXFSZ, whose default action kills the process
/// (leaving the temporary file; the server would drop every connection). Called once, at
/// the start of `main`, for every command and `amq serve`.
pub fn file_size_limit_is_an_error() {
    #[cfg(unix)]
    {
        use std::sync::{atomic::AtomicBool, Arc};
        // a handler that only sets a flag: the write then returns EFBIG
        let _ = signal_hook::flag::register(
            signal_hook::consts::SIGXFSZ,
            Arc::new(AtomicBool::new(false)),
        );
    }
}

/// Removing the temporary file being written when a signal ends the process.
#[cfg(unix)]
mod signals {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use std::io;
    use std::path::PathBuf;
    use std::sync::{Mutex, MutexGuard, Once, PoisonError};
    use tempfile::NamedTempFile;

    /// The temporary file being written, if any.
    static IN_FLIGHT: Mutex<Option<PathBuf>> = Mutex::new(None);

    fn in_flight() -> MutexGuard<'static, Option<PathBuf>> {
        IN_FLIGHT.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// From the first write on, a thread takes SIGINT, SIGTERM and SIGHUP: it removes the
    /// temporary file in flight, then lets the signal end the process as it would have. A
    /// signal the process was started ignoring (`nohup`, `trap '' INT`, a background job of
    /// a script) is left ignored.
    fn watch() {
        static WATCH: Once = Once::new();
        WATCH.call_once(|| {
            let ignored = ignored_signals();
            let watched = [SIGINT, SIGTERM, SIGHUP]
                .into_iter()
                .filter(|&s| !ignored(s));
            // without the thread, a signal leaves the temporary file, as before
            let Ok(mut signals) = signal_hook::iterator::Signals::new(watched) else {
                return;
            };
            let _ = std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        // held to the end: a rename under way finishes first, none starts
                        let file = in_flight();
                        if let Some(path) = file.as_ref() {
                            let _ = std::fs::remove_file(path);
                        }
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                        std::process::exit(128 + signal);
                    }
                });
        });
    }

    /// Which signals the process ignores, from Linux's `/proc/self/status` (`SigIgn`, a hex
    /// mask whose bit s − 1 is signal s), read once. Where that cannot be read, every signal
    /// counts as ignored, so none is taken over.
    fn ignored_signals() -> impl Fn(i32) -> bool {
        let mask = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|status| {
                let m = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
                u64::from_str_radix(m.trim(), 16).ok()
            });
        move |signal| mask.is_none_or(|m| (m >> (signal - 1)) & 1 == 1)
    }

    /// A temporary file registered for removal on a signal until [`InFlight::done`].
    pub(super) struct InFlight(());

    impl InFlight {
        /// Creates the temporary file (`create`) and registers it, the signals already
        /// watched: a signal during the creation waits for the registration, then removes
        /// the file.
        pub(super) fn create(
            create: impl FnOnce() -> io::Result<NamedTempFile>,
        ) -> io::Result<(NamedTempFile, InFlight)> {
            watch();
            let mut file = in_flight();
            let tmp = create()?;
            *file = Some(tmp.path().to_path_buf());
            Ok((tmp, InFlight(())))
        }

        /// Runs `rename` (which gives the temporary file its final name) with no removal
        /// able to start during it.
        pub(super) fn done<T>(self, rename: impl FnOnce() -> T) -> T {
            let mut file = in_flight();
            let out = rename();
            *file = None;
            out
        }
    }

    impl Drop for InFlight {
        fn drop(&mut self) {
            *in_flight() = None;
        }
    }
}

#[cfg(not(unix))]
mod signals {
    use std::io;
    use tempfile::NamedTempFile;

    pub(super) struct InFlight(());

    impl InFlight {
        pub(super) fn create(
            create: impl FnOnce() -> io::Result<NamedTempFile>,
        ) -> io::Result<(NamedTempFile, InFlight)> {
            Ok((create()?, InFlight(())))
        }
        pub(super) fn done<T>(self, rename: impl FnOnce() -> T) -> T {
            rename()
        }
    }
}

/// Gives the new file the old one's permission bits, and its owner where allowed (root may;
/// others keep their own: a failed `chown` is not an error).
#[cfg(unix)]
fn keep_owner_and_mode(file: &File, old: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let new = file.metadata()?;
    if (new.uid(), new.gid()) != (old.uid(), old.gid()) {
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
    file.set_permissions(old.permissions())
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &File, old: &fs::Metadata) -> io::Result<()> {
    file.set_permissions(old.permissions())
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}

/// `write_all`, with a failure and a pause that tests can inject in debug builds: with
/// `AMQ_TEST_WRITE_FAILS_AFTER=N` in the environment, a write fails with "no space left on
/// device" after N bytes; with `AMQ_TEST_WRITE_PAUSE_MS=T`, the write waits T ms once the
/// bytes are written (to be sent a signal).
fn write_all(file: &mut File, bytes: &[u8]) -> io::Result<()> {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("AMQ_TEST_WRITE_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        file.write_all(bytes)?;
        std::thread::sleep(std::time::Duration::from_millis(ms));
        return Ok(());
    }
    #[cfg(debug_assertions)]
    if let Some(n) = std::env::var("AMQ_TEST_WRITE_FAILS_AFTER")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        if bytes.len() > n {
            file.write_all(&bytes[..n])?;
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "No space left on device (injected by AMQ_TEST_WRITE_FAILS_AFTER)",
            ));
        }
    }
    file.write_all(bytes)
}
