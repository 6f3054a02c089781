"""A throwaway certificate authority for the TLS lesson (notebook 17): HTTPS on loopback.

A2A spec §7.1 asks for encrypted channels in production and §7.2 asks clients to check the
server's certificate against trusted authorities. To show both without the internet, the
notebook makes its own authority and one server certificate signed by it::

    certs = issue_lab_certificates(tmp_dir, hosts=["127.0.0.1", "localhost"])
    RunningServer(app, ssl_certfile=certs.cert, ssl_keyfile=certs.key).start()
    ssl.create_default_context(cafile=certs.ca)   # a client that trusts only this authority

The keys are EC P-256 and live only in ``directory``; nothing here is fit for real use (no
revocation, no key protection). The validity window is one day either side of ``now``, so a
stored notebook output never shows a date.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["LabCertificates", "issue_lab_certificates"]


@dataclass(frozen=True)
class LabCertificates:
    """Paths of the PEM files: the authority's certificate, the server's certificate and key."""

    ca: str
    cert: str
    key: str
    hosts: tuple[str, ...]


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _san(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def _pem(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def issue_lab_certificates(
    directory: str | Path,
    *,
    hosts: Sequence[str] = ("127.0.0.1", "localhost"),
    now: dt.datetime | None = None,
) -> LabCertificates:
    """Make an authority and a server certificate for ``hosts`` (IPs or DNS names) in ``directory``."""
    out = Path(directory)
    now = now or dt.datetime.now(dt.UTC)
    window = dict(not_valid_before=now - dt.timedelta(days=1), not_valid_after=now + dt.timedelta(days=1))
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder(
            subject_name=_name("agentproto lab CA"), issuer_name=_name("agentproto lab CA")
        )
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(window["not_valid_before"])
        .not_valid_after(window["not_valid_after"])
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder(subject_name=_name(hosts[0]), issuer_name=ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(window["not_valid_before"])
        .not_valid_after(window["not_valid_after"])
        .add_extension(x509.SubjectAlternativeName([_san(h) for h in hosts]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    private = serialization.PrivateFormat.PKCS8
    return LabCertificates(
        ca=_pem(out / "lab-ca.pem", ca_cert.public_bytes(serialization.Encoding.PEM)),
        cert=_pem(out / "server.pem", cert.public_bytes(serialization.Encoding.PEM)),
        key=_pem(
            out / "server-key.pem",
            key.private_bytes(serialization.Encoding.PEM, private, serialization.NoEncryption()),
        ),
        hosts=tuple(hosts),
    )
