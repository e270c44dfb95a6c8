//! Reading a file the user named as input (a mesh, a glTF buffer, an asset,
//! a scenario, a run, a site list): only a regular file is read.
//!
//! Why: reading a device never ends (`/dev/zero` named as a scenario's
//! asset grew to 24 GB before the kernel killed the process; bad-input
//! sweep), a pipe or FIFO can block for ever, and a directory gives an
//! error that does not say what is wrong. Symlinks are followed.

use std::io;
use std::path::Path;

/// What [`read_input`] says about a path that is not a regular file.
pub const NOT_A_REGULAR_FILE: &str = "not a regular file (a directory, device or pipe)";

/// Refuses `path` unless it is a regular file (after symlinks).
///
/// # Errors
/// The metadata error (e.g. [`io::ErrorKind::NotFound`]), or
/// [`io::ErrorKind::InvalidInput`] with [`NOT_A_REGULAR_FILE`].
pub fn check_input(path: &Path) -> io::Result<()> {
    if std::fs::metadata(path)?.is_file() {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            NOT_A_REGULAR_FILE,
        ))
    }
}

/// The bytes of input file `path`, which must be a regular file.
///
/// # Errors
/// Those of [`check_input`], then those of [`std::fs::read`].
pub fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    check_input(path)?;
    std::fs::read(path)
}

/// The text of input file `path`, which must be a regular file.
///
/// # Errors
/// Those of [`check_input`], then those of [`std::fs::read_to_string`]
/// (including [`io::ErrorKind::InvalidData`] for text that is not UTF-8).
pub fn read_input_to_string(path: &Path) -> io::Result<String> {
    check_input(path)?;
    std::fs::read_to_string(path)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = std::env::temp_dir().join(format!("smithereens-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read_input(&file).unwrap(), b"hello");
        assert_eq!(read_input_to_string(&file).unwrap(), "hello");
        // A directory; a device that reads for ever; a FIFO, which blocks
        // until a writer comes. (Some sandboxes have no `/dev/zero` device
        // or no `mkfifo`: those cases are skipped there.)
        let fifo = dir.join("fifo");
        let made_fifo = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        let zero = Path::new("/dev/zero");
        let zero_is_device = std::fs::metadata(zero).is_ok_and(|m| !m.is_file());
        let cases = [
            (dir.as_path(), true),
            (zero, zero_is_device),
            (fifo.as_path(), made_fifo),
        ];
        for (path, _) in cases.iter().filter(|(_, present)| *present) {
            let err = read_input(path).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{path:?}");
            assert_eq!(err.to_string(), NOT_A_REGULAR_FILE);
            assert_eq!(
                read_input_to_string(path).unwrap_err().kind(),
                io::ErrorKind::InvalidInput
            );
        }
        let missing = dir.join("missing.txt");
        assert_eq!(
            read_input(&missing).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
