//! TLS for PostgreSQL connections: rustls with the ring provider (never OpenSSL), with the
//! `sslmode` and `sslrootcert` settings libpq reads (from the URL, else `PGSSLMODE` and
//! `PGSSLROOTCERT`):
//!
//! | `sslmode` | encrypted | server certificate checked |
//! | --- | --- | --- |
//! | `disable` | never | — |
//! | `allow`, `prefer` (default) | when the server offers it | no |
//! | `require` | always | no — unless `sslrootcert` is given: then as `verify-ca` (as libpq) |
//! | `verify-ca` | always | signed by a trusted root |
//! | `verify-full` | always | signed by a trusted root, and issued for the host connected to |
//!
//! Trusted roots are the certificates in `sslrootcert=FILE` (PEM; a private CA), or with
//! `sslrootcert=system` or no `sslrootcert` the Mozilla roots compiled in (webpki-roots:
//! nothing is read from the machine or fetched).

use std::path::PathBuf;
use std::sync::Arc;

use postgres::config::SslMode;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{Result, StoreError};

/// How a connection is secured (`sslmode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// The TLS settings of a store URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub mode: Mode,
    /// `sslrootcert`: a PEM file of trusted roots; `None` for the compiled-in roots.
    pub root_cert: Option<PathBuf>,
}

impl Mode {
    fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "disable" => Self::Disable,
            // libpq's `allow` tries plaintext first; encrypting when offered is no weaker.
            "allow" | "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            _ => return None,
        })
    }

    /// The mode the driver negotiates with (it knows no `verify-*`: verification is ours).
    pub fn ssl_mode(self) -> SslMode {
        match self {
            Self::Disable => SslMode::Disable,
            Self::Prefer => SslMode::Prefer,
            Self::Require | Self::VerifyCa | Self::VerifyFull => SslMode::Require,
        }
    }
}

/// Splits the TLS settings off `url`: the URL without its `sslmode` and `sslrootcert`
/// parameters (which the driver would refuse: it knows neither `verify-*` nor root files),
/// and the settings, the environment's where the URL has none.
pub fn split(url: &str, shown: &str) -> Result<(String, Settings)> {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let (mut mode, mut root_cert) = (None, None);
    let mut kept = Vec::new();
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        match pair.split_once('=') {
            Some(("sslmode", v)) => mode = Some(decode(v, shown)?),
            Some(("sslrootcert", v)) => root_cert = Some(decode(v, shown)?),
            _ => kept.push(pair),
        }
    }
    let mode = mode.or_else(|| std::env::var("PGSSLMODE").ok().filter(|m| !m.is_empty()));
    let root_cert = root_cert.or_else(|| std::env::var("PGSSLROOTCERT").ok().filter(|r| !r.is_empty()));
    let mode = match mode {
        None => Mode::Prefer,
        Some(m) => Mode::parse(&m).ok_or_else(|| {
            StoreError::Invalid(format!(
                "{shown}: sslmode \"{m}\" is not one of disable, allow, prefer, require, verify-ca, verify-full"
            ))
        })?,
    };
    let root_cert = root_cert.filter(|r| r != "system").map(PathBuf::from);
    let url = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, Settings { mode, root_cert }))
}

/// A URL query value, percent-decoded.
fn decode(value: &str, shown: &str) -> Result<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = value.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok());
                let b = hex.ok_or_else(|| StoreError::Invalid(format!("{shown}: a bad %-escape in \"{value}\"")))?;
                out.push(b);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| StoreError::Invalid(format!("{shown}: \"{value}\" is not UTF-8")))
}

/// The TLS connector for `settings` (unused with `sslmode=disable`, and when a `prefer`
/// server offers no TLS).
pub fn connector(settings: &Settings, shown: &str) -> Result<MakeRustlsConnect> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError::Invalid(format!("{shown}: TLS setup: {e}")))?;
    let verify = match settings.mode {
        Mode::Disable | Mode::Prefer => None,
        // libpq: `require` with a root certificate file verifies the chain.
        Mode::Require => settings.root_cert.as_ref().map(|_| false),
        Mode::VerifyCa => Some(false),
        Mode::VerifyFull => Some(true),
    };
    let config = match verify {
        None => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider.signature_verification_algorithms)))
            .with_no_client_auth(),
        Some(check_name) => {
            let roots = Arc::new(roots(settings.root_cert.as_deref(), shown)?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider)
                .build()
                .map_err(|e| StoreError::Invalid(format!("{shown}: TLS setup: {e}")))?;
            if check_name {
                builder.with_webpki_verifier(webpki).with_no_client_auth()
            } else {
                builder.dangerous().with_custom_certificate_verifier(Arc::new(AnyName(webpki))).with_no_client_auth()
            }
        }
    };
    Ok(MakeRustlsConnect::new(config))
}

/// The trusted roots: the certificates of `file`, or the compiled-in Mozilla roots.
fn roots(file: Option<&std::path::Path>, shown: &str) -> Result<RootCertStore> {
    let Some(file) = file else {
        return Ok(RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() });
    };
    let bad = |why: String| StoreError::Invalid(format!("{shown}: sslrootcert {}: {why}", file.display()));
    let mut store = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(file).map_err(|e| bad(e.to_string()))? {
        let cert = cert.map_err(|e| bad(e.to_string()))?;
        store.add(cert).map_err(|e| bad(format!("not a usable CA certificate: {e}")))?;
    }
    if store.is_empty() {
        return Err(bad("no PEM certificate in it".into()));
    }
    Ok(store)
}

/// `prefer` and `require` without roots, as libpq: the channel is encrypted and the handshake
/// signed by the certificate's key, but the certificate itself is not checked.
#[derive(Debug)]
struct Unverified(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

/// `verify-ca`: the chain must lead to a trusted root; the name it was issued for is not
/// compared with the host (a name mismatch is the only error forgiven).
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        // webpki checks the name last, after the chain, validity and revocation.
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_ok(url: &str) -> (String, Settings) {
        split(url, url).unwrap()
    }

    #[test]
    fn sslmode_and_rootcert_are_taken_off_the_url() {
        let (url, s) = split_ok("postgres://u@h/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&connect_timeout=5");
        assert_eq!(url, "postgres://u@h/db?connect_timeout=5");
        assert_eq!(s, Settings { mode: Mode::VerifyFull, root_cert: Some(PathBuf::from("/tmp/ca.pem")) });
        let (url, s) = split_ok("postgres://u@h/db?sslmode=require");
        assert_eq!((url.as_str(), s.mode, s.root_cert), ("postgres://u@h/db", Mode::Require, None));
        assert_eq!(split_ok("postgres://u@h/db?sslrootcert=system&sslmode=verify-ca").1.root_cert, None);
        assert_eq!(Mode::VerifyCa.ssl_mode(), SslMode::Require);
        assert_eq!(Mode::parse("allow"), Some(Mode::Prefer));
    }

    #[test]
    fn a_bad_sslmode_or_root_file_is_a_clear_error() {
        let err = split("postgres://u@h/db?sslmode=verify_full", "shown").unwrap_err().to_string();
        assert!(err.contains("sslmode \"verify_full\" is not one of") && err.starts_with("shown"), "{err}");
        assert!(split("postgres://u@h/db?sslrootcert=%zz", "x").is_err());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.pem");
        std::fs::write(&file, "not a certificate").unwrap();
        let settings = Settings { mode: Mode::VerifyFull, root_cert: Some(file) };
        let err = connector(&settings, "db").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("sslrootcert") && err.contains("no PEM certificate"), "{err}");
        let missing = Settings { mode: Mode::VerifyCa, root_cert: Some(dir.path().join("absent.pem")) };
        assert!(connector(&missing, "db").is_err());
        // Without a file, the compiled-in roots.
        assert!(connector(&Settings { mode: Mode::VerifyFull, root_cert: None }, "db").is_ok());
        assert!(connector(&Settings { mode: Mode::Prefer, root_cert: None }, "db").is_ok());
    }
}
