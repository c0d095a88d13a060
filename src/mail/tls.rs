//! TLS for the mail connections we open ourselves (IMAP): rustls with the
//! ring crypto provider, trusting the Mozilla roots of `webpki-roots` and,
//! for a server with a private certificate authority (a host's own Dovecot,
//! the test servers), the certificates of a PEM file.
//!
//! SMTP goes through lettre, which has its own rustls set-up; it is given
//! the same PEM file (see `outbound`).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// A client configuration trusting the usual roots and, if given, the
/// certificates in `ca_file` as well.
pub fn client_config(ca_file: Option<&Path>) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = ca_file {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read the CA file {}: {e}", path.display()))?;
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(&bytes) {
            let cert =
                cert.map_err(|e| format!("the CA file {} is not valid PEM: {e}", path.display()))?;
            roots
                .add(cert)
                .map_err(|e| format!("a certificate in {} cannot be used: {e}", path.display()))?;
            added += 1;
        }
        if added == 0 {
            return Err(format!(
                "the CA file {} holds no certificate (expected PEM `BEGIN CERTIFICATE` blocks)",
                path.display()
            ));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS set-up: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// A connection to a mail server, plain or TLS, with a read timeout that is
/// never left unset: a server that stops answering is noticed.
pub struct Stream {
    inner: Inner,
    /// The read timeout outside IMAP IDLE.
    default_timeout: Duration,
}

enum Inner {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    /// A plain connection (only for a server on this machine).
    pub fn plain(tcp: TcpStream, default_timeout: Duration) -> Stream {
        Stream {
            inner: Inner::Plain(tcp),
            default_timeout,
        }
    }

    /// TLS over `tcp`, checking the certificate against `host`. The
    /// handshake is completed here, so a certificate problem shows at once.
    pub fn tls(
        tcp: TcpStream,
        host: &str,
        config: Arc<ClientConfig>,
        default_timeout: Duration,
    ) -> io::Result<Stream> {
        let name = ServerName::try_from(host.to_owned()).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{host:?} is not a host name TLS can check: {e}"),
            )
        })?;
        let conn = ClientConnection::new(config, name).map_err(io::Error::other)?;
        let mut stream = StreamOwned::new(conn, tcp);
        while stream.conn.is_handshaking() {
            stream.conn.complete_io(&mut stream.sock)?;
        }
        Ok(Stream {
            inner: Inner::Tls(Box::new(stream)),
            default_timeout,
        })
    }

    fn tcp(&self) -> &TcpStream {
        match &self.inner {
            Inner::Plain(t) => t,
            Inner::Tls(s) => &s.sock,
        }
    }

    /// Whether the connection is encrypted.
    pub fn is_tls(&self) -> bool {
        matches!(self.inner, Inner::Tls(_))
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Plain(t) => t.read(buf),
            Inner::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Plain(t) => t.write(buf),
            Inner::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Plain(t) => t.flush(),
            Inner::Tls(s) => s.flush(),
        }
    }
}

impl imap::extensions::idle::SetReadTimeout for Stream {
    /// IDLE sets its own, long, timeout and then clears it; cleared, the
    /// usual timeout applies again.
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::error::Result<()> {
        let t = timeout.unwrap_or(self.default_timeout);
        self.tcp()
            .set_read_timeout(Some(t))
            .map_err(imap::error::Error::Io)
    }
}
