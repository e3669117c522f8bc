"""A throwaway certificate authority for one control-plane start.

Makes the CA, the API server's serving certificate (127.0.0.1 and localhost), client
certificates (the admin is in `system:masters`; a node's kubelet and scheduler get their
own) and the service-account signing key. Everything lives in one folder and is thrown
away with it.

Every certificate carries Subject and Authority Key Identifiers: Python 3.13's default
TLS context (strict X.509) refuses a chain without them, and driftctl in its image runs
on 3.13 with the CA a Pod is handed.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_VALIDITY = datetime.timedelta(days=7)


@dataclass(frozen=True)
class KeyPair:
    """A certificate and its private key, as files."""

    cert: Path
    key: Path


@dataclass(frozen=True)
class Pki:
    """Every file the control plane's TLS and service-account tokens need."""

    ca: KeyPair
    serving: KeyPair
    admin: KeyPair
    service_account_key: Path
    service_account_pub: Path


def _name(common_name: str, organization: str | None = None) -> x509.Name:
    parts = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        parts.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(parts)


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)


def _builder(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePublicKey],
) -> x509.CertificateBuilder:
    """A certificate of `key` for `subject`, signed by the issuer whose name and key are given."""
    issuer_name, issuer_key = issuer
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key), critical=False
        )
    )


def _make_ca(folder: Path) -> tuple[KeyPair, x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = _name("driftctl-test-ca")
    cert = (
        _builder(subject, key, (subject, key.public_key()))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    pair = KeyPair(folder / "ca.crt", folder / "ca.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(key, pair.key)
    return pair, cert, key


def _issue(
    folder: Path,
    *,
    stem: str,
    subject: x509.Name,
    usage: x509.ObjectIdentifier,
    ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
    sans: list[x509.GeneralName] | None = None,
) -> KeyPair:
    ca_cert, ca_key = ca
    key = ec.generate_private_key(ec.SECP256R1())
    builder = _builder(subject, key, (ca_cert.subject, ca_key.public_key())).add_extension(
        x509.ExtendedKeyUsage([usage]), critical=False
    )
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())
    pair = KeyPair(folder / f"{stem}.crt", folder / f"{stem}.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(key, pair.key)
    return pair


def _loopback() -> list[x509.GeneralName]:
    return [
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.DNSName("localhost"),
        x509.DNSName("kubernetes.default.svc"),
    ]


def make_pki(folder: Path) -> Pki:
    """Create a fresh CA and every certificate and key under `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_pair, ca_cert, ca_key = _make_ca(folder)
    ca = (ca_cert, ca_key)
    sa_key = ec.generate_private_key(ec.SECP256R1())
    sa_key_path, sa_pub_path = folder / "sa.key", folder / "sa.pub"
    _write_key(sa_key, sa_key_path)
    sa_pub_path.write_bytes(
        sa_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return Pki(
        ca=ca_pair,
        serving=_issue(
            folder,
            stem="apiserver",
            subject=_name("kube-apiserver"),
            usage=ExtendedKeyUsageOID.SERVER_AUTH,
            ca=ca,
            sans=_loopback(),
        ),
        admin=_issue(
            folder,
            stem="admin",
            subject=_name("driftctl-test-admin", "system:masters"),
            usage=ExtendedKeyUsageOID.CLIENT_AUTH,
            ca=ca,
        ),
        service_account_key=sa_key_path,
        service_account_pub=sa_pub_path,
    )


def _load_ca(ca_folder: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    ca_cert = x509.load_pem_x509_certificate((ca_folder / "ca.crt").read_bytes())
    ca_key = serialization.load_pem_private_key((ca_folder / "ca.key").read_bytes(), None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise TypeError(f"{ca_folder / 'ca.key'} is not the EC key make_pki writes")
    return ca_cert, ca_key


def issue_serving(ca_folder: Path, folder: Path, stem: str) -> KeyPair:
    """Another loopback serving certificate from the CA in `ca_folder` (for a proxy in front).

    Clients that trust the control plane's CA (its kubeconfig) then trust the proxy too.
    """
    folder.mkdir(parents=True, exist_ok=True)
    return _issue(
        folder,
        stem=stem,
        subject=_name(stem),
        usage=ExtendedKeyUsageOID.SERVER_AUTH,
        ca=_load_ca(ca_folder),
        sans=_loopback(),
    )


def issue_client(
    ca_folder: Path, folder: Path, stem: str, user: str, group: str | None = None
) -> KeyPair:
    """A client certificate from the CA in `ca_folder`: the API server sees `user` in `group`."""
    folder.mkdir(parents=True, exist_ok=True)
    return _issue(
        folder,
        stem=stem,
        subject=_name(user, group),
        usage=ExtendedKeyUsageOID.CLIENT_AUTH,
        ca=_load_ca(ca_folder),
    )
