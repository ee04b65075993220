//! HTTPS: the rustls configuration (ring, TLS 1.2 and 1.3, ALPN `h2` and
//! `http/1.1`) from the PEM certificate chain and key files, reloaded when
//! either file changes (checked every 5 seconds; a bad new pair is refused
//! and the old one kept), and the handshake of each connection.
//!
//! The files are the operator's, but a path can name anything: a FIFO
//! made the server hang in `open()` at start (the port bound, never
//! answering, SIGTERM unheard) and a reload thread for good. So each file
//! is opened without blocking (`O_NONBLOCK`, which a FIFO without a writer
//! honours), checked with `fstat` to be a regular file before a byte is
//! read, read at most 1 MiB, on a blocking thread, within [`READ_TIMEOUT`]
//! (a file on a stuck network mount): a bad file at start is an error
//! that stops the service, at a reload it is logged and the old pair kept.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use arc_swap::ArcSwap;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use crate::config::TlsFiles;

/// How often the files are checked for a change.
const RELOAD_EVERY: Duration = Duration::from_secs(5);
/// The longest reading both files may take.
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The current configuration, swapped when the files change.
#[derive(Debug, Clone)]
pub(crate) struct Tls {
    config: Arc<ArcSwap<ServerConfig>>,
}

impl Tls {
    /// Reads the files (an error names the file it comes from).
    pub(crate) async fn load(files: &TlsFiles) -> io::Result<Self> {
        let config = read(files.clone()).await?;
        Ok(Tls {
            config: Arc::new(ArcSwap::from_pointee(config)),
        })
    }

    /// The TLS handshake of a new connection, with the current certificate.
    pub(crate) async fn accept(&self, stream: TcpStream) -> io::Result<TlsStream<TcpStream>> {
        TlsAcceptor::from(self.config.load_full())
            .accept(stream)
            .await
    }

    /// Reloads the configuration when either file changes, as long as the
    /// runtime runs.
    pub(crate) fn spawn_reload(&self, files: TlsFiles) {
        let config = self.config.clone();
        tokio::spawn(async move {
            let mut last = stamp(&files);
            loop {
                tokio::time::sleep(RELOAD_EVERY).await;
                let now = stamp(&files);
                if now.is_none() || now == last {
                    continue;
                }
                // Tried once per change: a file that hangs is not read
                // again (and again) until it changes.
                last = now;
                match read(files.clone()).await {
                    Ok(new) => {
                        config.store(Arc::new(new));
                        tracing::info!("TLS certificate reloaded");
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "new TLS certificate refused; keeping the old one")
                    }
                }
            }
        });
    }
}

/// The modification times of both files, if both are there.
fn stamp(files: &TlsFiles) -> Option<(SystemTime, SystemTime)> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    Some((modified(&files.cert)?, modified(&files.key)?))
}

/// The largest certificate chain or key file read: real ones are a few KiB.
pub(crate) const MAX_PEM_BYTES: u64 = 1024 * 1024;

/// A PEM file: a regular file (after symlinks) of at most [`MAX_PEM_BYTES`],
/// read no further than that (a path swapped for `/dev/zero` or a huge file
/// must not exhaust memory).
fn read_pem(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let fail = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // A FIFO or a device must not block the open: nothing is read from
    // anything but a regular file, which O_NONBLOCK does not change.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(fail)?;
    if !file.metadata().map_err(fail)?.is_file() {
        return Err(fail(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_PEM_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() as u64 > MAX_PEM_BYTES {
        return Err(fail(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {MAX_PEM_BYTES} bytes"),
        )));
    }
    Ok(bytes)
}

/// Reads and checks both files off the runtime's threads, within
/// [`READ_TIMEOUT`].
async fn read(files: TlsFiles) -> io::Result<ServerConfig> {
    let reading = tokio::task::spawn_blocking(move || config(&files));
    match tokio::time::timeout(READ_TIMEOUT, reading).await {
        Ok(done) => done.map_err(io::Error::other)?,
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "the certificate and key files could not be read within {} s",
                READ_TIMEOUT.as_secs()
            ),
        )),
    }
}

fn config(files: &TlsFiles) -> io::Result<ServerConfig> {
    let invalid = |what: &str, path: &Path, e: &dyn std::fmt::Display| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what} {}: {e}", path.display()),
        )
    };
    let cert_pem = read_pem(&files.cert)?;
    let key_pem = read_pem(&files.key)?;
    let chain = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid("no readable certificate in", &files.cert, &e))?;
    if chain.is_empty() {
        return Err(invalid("no certificate in", &files.cert, &"empty"));
    }
    let key = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| invalid("no readable private key in", &files.key, &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            invalid(
                "the key does not fit the certificate, or either is unusable:",
                &files.key,
                &e,
            )
        })?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}
