//! Sockets the tests bind themselves (Linux with glibc: `libc` is a
//! dependency of the crate only there).
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use tokio::net::TcpListener;

/// A listener on `[::]:0` that takes IPv4 connections too (`IPV6_V6ONLY`
/// off), whatever the host's default (`net.ipv6.bindv6only`).
pub fn dual_stack_listener() -> TcpListener {
    use std::os::fd::{AsRawFd, FromRawFd};
    let size = |n: usize| libc::socklen_t::try_from(n).unwrap();
    // SAFETY: plain socket calls on a descriptor this function owns (the
    // listener closes it on drop), with pointers to live local values.
    let listener = unsafe {
        let fd = libc::socket(libc::AF_INET6, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        std::net::TcpListener::from_raw_fd(fd)
    };
    let fd = listener.as_raw_fd();
    let off: libc::c_int = 0;
    // SAFETY: as above.
    unsafe {
        let rc = libc::setsockopt(
            fd,
            libc::IPPROTO_IPV6,
            libc::IPV6_V6ONLY,
            (&raw const off).cast(),
            size(std::mem::size_of::<libc::c_int>()),
        );
        assert_eq!(rc, 0, "IPV6_V6ONLY: {}", std::io::Error::last_os_error());
        let mut any: libc::sockaddr_in6 = std::mem::zeroed();
        any.sin6_family = libc::sa_family_t::try_from(libc::AF_INET6).unwrap();
        let rc = libc::bind(
            fd,
            (&raw const any).cast(),
            size(std::mem::size_of::<libc::sockaddr_in6>()),
        );
        assert_eq!(rc, 0, "bind [::]:0: {}", std::io::Error::last_os_error());
        assert_eq!(
            libc::listen(fd, 1024),
            0,
            "listen: {}",
            std::io::Error::last_os_error()
        );
    }
    listener.set_nonblocking(true).unwrap();
    TcpListener::from_std(listener).unwrap()
}
