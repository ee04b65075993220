//! A cap on open connections: each accepted connection holds a permit until it
//! closes; when none is left, new connections are closed at once instead of
//! piling up (idle keep-alive and slow clients are bounded by the header timeout).
//! Accepted connections get `TCP_NODELAY`.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum_server::accept::Accept;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// An acceptor that admits at most a fixed number of open connections.
#[derive(Debug, Clone)]
pub struct ConnectionCap {
    permits: Arc<Semaphore>,
}

impl ConnectionCap {
    /// Admits at most `max` connections at once.
    pub fn new(max: usize) -> Self {
        ConnectionCap {
            permits: Arc::new(Semaphore::new(max.max(1))),
        }
    }
}

impl<S> Accept<TcpStream, S> for ConnectionCap {
    type Stream = Capped<TcpStream>;
    type Service = S;
    type Future = std::future::Ready<io::Result<(Capped<TcpStream>, S)>>;

    fn accept(&self, stream: TcpStream, service: S) -> Self::Future {
        // As axum-server's default acceptor does (this one replaces it): a
        // response is written as soon as it is ready, not held back by Nagle.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        std::future::ready(match self.permits.clone().try_acquire_owned() {
            Ok(permit) => Ok((
                Capped {
                    inner: stream,
                    _permit: permit,
                },
                service,
            )),
            Err(_) => {
                metrics::counter!("iplookup_connections_refused_total").increment(1);
                Err(io::Error::other("connection cap reached"))
            }
        })
    }
}

/// A connection holding its permit.
#[derive(Debug)]
pub struct Capped<I> {
    inner: I,
    _permit: OwnedSemaphorePermit,
}

impl<I: AsyncRead + Unpin> AsyncRead for Capped<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Capped<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
