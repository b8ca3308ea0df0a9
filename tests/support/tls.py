"""A certificate authority of the test's own and a certificate for 127.0.0.1 signed by it, so a
reverse proxy serves real TLS; clients trust the authority (`SSL_CERT_FILE`, or Chromium told to
ignore the unknown issuer), never a disabled check."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Certificates:
    authority: Path
    """The authority's certificate (PEM): what clients trust."""
    certificate: Path
    """The server's certificate chain (PEM) for 127.0.0.1."""
    key: Path
    """The server's private key (PEM)."""


def local_certificates(directory: Path) -> Certificates:
    now = datetime.datetime.now(datetime.UTC)
    authority_key = ec.generate_private_key(ec.SECP256R1())
    authority_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Romergo tests' authority")])
    authority = (
        _builder(authority_name, authority_name, authority_key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(authority_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    server = (
        _builder(server_name, authority_name, server_key.public_key(), now)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(authority_key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    made = Certificates(directory / "authority.pem", directory / "server.pem", directory / "server.key")
    made.authority.write_bytes(authority.public_bytes(serialization.Encoding.PEM))
    made.certificate.write_bytes(server.public_bytes(serialization.Encoding.PEM))
    made.key.write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    made.key.chmod(0o600)
    return made


def _builder(
    subject: x509.Name, issuer: x509.Name, key: ec.EllipticCurvePublicKey, now: datetime.datetime
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
    )
