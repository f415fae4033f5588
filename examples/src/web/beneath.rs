//! Opening a file below a directory with the kernel's guarantee that it
//! stays below: `openat2(2)` with `RESOLVE_BENEATH` refuses any path whose
//! resolution (`..`, absolute symlinks, symlinks out) leaves the directory,
//! in one system call. Resolving with `realpath` and comparing prefixes,
//! as [`super::Root::resolve`] does, costs a `lstat` per path component
//! and is racy against a symlink swapped in between; it is the fallback on
//! kernels without `openat2` (before Linux 5.6).

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};

/// Open `path` (relative) for reading, below the directory `dir`.
///
/// # Errors
///
/// The `openat2` error: `EXDEV` (or `ELOOP`) for a path that leaves `dir`,
/// `ENOENT`, `EACCES`, ...; `ENOSYS` where the kernel lacks `openat2`.
pub(crate) fn open_beneath(dir: &File, path: &str) -> io::Result<File> {
    let path = CString::new(if path.is_empty() { "." } else { path })
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDONLY | libc::O_CLOEXEC) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: a valid directory descriptor, a NUL-terminated path and an
    // `open_how` of the size passed; the kernel returns a new descriptor we
    // then own.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir.as_raw_fd(),
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a new descriptor owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd as i32) })
}
