//! What the kernel may hold for one connection: the answers a client does
//! not read wait in the socket's send buffer, out of reach of the HTTP/2
//! send deadline and of the shares of unsent answers
//! ([`unsent`](crate::web::serve::admission::unsent)).
//!
//! Linux grows a send buffer up to `net.ipv4.tcp_wmem`'s maximum (4 MiB by
//! default) and keeps a connection whose client announces a zero window
//! (never reads) for as long as it answers probes; closing such a
//! connection leaves its buffered answer to an orphan socket that lives on.
//! HTTP/1.1 readers that never read held about 308 MiB of host TCP memory
//! from one address that way. So every accepted connection gets
//!
//! - a fixed send buffer of [`SEND_BUFFER`] bytes (the kernel doubles it
//!   for its bookkeeping), room for a few of the largest answers in flight
//!   at 100 ms of round trip, and
//! - `TCP_USER_TIMEOUT` of `--request-timeout`: data unacknowledged, or
//!   untransmitted for want of a window, that long makes the kernel reset
//!   the connection (RST) and free its buffers, whether the service still
//!   holds the socket or has closed it.

use std::time::Duration;

use tokio::net::TcpStream;

/// The send buffer asked of the kernel for each connection (256 KiB once
/// the kernel has doubled it).
pub(crate) const SEND_BUFFER: usize = 128 * 1024;

/// Sets the send buffer and the user timeout of `stream` (failures are
/// logged: the connection is served all the same).
pub(crate) fn bound(stream: &TcpStream, user_timeout: Duration) {
    #[cfg(unix)]
    {
        let buffer = libc::c_int::try_from(SEND_BUFFER).unwrap_or(libc::c_int::MAX);
        if let Err(e) = set(stream, libc::SOL_SOCKET, libc::SO_SNDBUF, buffer) {
            tracing::debug!(error = %e, "cannot set SO_SNDBUF");
        }
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let millis = libc::c_int::try_from(user_timeout.as_millis()).unwrap_or(libc::c_int::MAX);
        if let Err(e) = set(stream, libc::IPPROTO_TCP, libc::TCP_USER_TIMEOUT, millis) {
            tracing::debug!(error = %e, "cannot set TCP_USER_TIMEOUT");
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = user_timeout;
}

/// `setsockopt` of one `int` option on `stream`'s socket.
#[cfg(unix)]
fn set(
    stream: &TcpStream,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::socklen_t::try_from(std::mem::size_of::<libc::c_int>()).unwrap_or(4);
    // SAFETY: the descriptor is `stream`'s, open for the whole call; the
    // value is an `int` on the stack, its length given.
    let done = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            level,
            name,
            std::ptr::from_ref(&value).cast(),
            len,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
