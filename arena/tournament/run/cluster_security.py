"""TLS with mutual authentication for a Dask cluster: ``arena cluster init DIR`` and ``--cluster-security DIR``.

``write_certificates`` makes a certificate authority of the cluster's own and one certificate per
role (scheduler, worker, client: the machine that runs ``arena run``), signed by it. Every peer
proves itself with its certificate and accepts only peers whose certificate that CA signed
(Dask's ``distributed.security.Security`` checks both sides): a machine without one of these
files cannot join as a worker, submit tasks or read results. The CA's private key is not kept:
nobody can sign another certificate; ``arena cluster init`` again makes a new set for all.
Private keys are written 0600. Needs ``cryptography`` (in the ``cluster`` extra).
"""

from __future__ import annotations

import datetime
import os
import shlex
from pathlib import Path
from typing import Any

CA_FILE = "ca.pem"
ROLES = ("scheduler", "worker", "client")
VALID_DAYS = 825  # the longest validity common TLS clients accept
DEFAULT_PORT = 8786
_KEY_USAGES = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
               "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")  # fmt: skip


class SecurityError(ValueError):
    """A security folder that cannot be written or used: its message says what to do."""


def cert_file(role: str) -> str:
    return f"{role}.pem"


def key_file(role: str) -> str:
    return f"{role}-key.pem"


def write_certificates(folder: Path) -> list[Path]:
    """Write a new CA certificate and a certificate and 0600 key per role into ``folder``; the paths written.

    Refuses (SecurityError) a folder that already holds such files: replacing them would lock out
    the machines that have the old ones, so that must be a deliberate ``rm``.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    names = [CA_FILE] + [name for role in ROLES for name in (cert_file(role), key_file(role))]
    present = [name for name in names if os.path.lexists(folder / name)]  # a planted link counts too
    if present:
        raise SecurityError(
            f"{folder} already holds cluster certificates ({', '.join(present)}); "
            "use them, or delete them first to make a new set (then copy it to every machine again)"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SecurityError(f"cannot create {folder}: {error.strerror}") from None
    now = datetime.datetime.now(datetime.UTC)
    validity = (now - datetime.timedelta(days=1), now + datetime.timedelta(days=VALID_DAYS))

    def certificate(subject: str, public_key: Any, issuer: str, signer: Any, ca: bool) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(validity[0])
            .not_valid_after(validity[1])
            .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
        )
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        if ca:
            usage = dict.fromkeys(_KEY_USAGES, False) | {"key_cert_sign": True, "crl_sign": True}
            builder = builder.add_extension(x509.KeyUsage(**usage), critical=True)
        else:  # strict verifiers (Python 3.13's) want these; Dask itself does not check host names
            issuer_key = x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key())
            builder = builder.add_extension(issuer_key, critical=False)
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = "tlachtli cluster CA"
    ca_cert = certificate(ca_name, ca_key.public_key(), ca_name, ca_key, ca=True)
    written = [_write(folder / CA_FILE, ca_cert.public_bytes(serialization.Encoding.PEM), 0o644)]
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = certificate(f"tlachtli-{role}", key.public_key(), ca_name, ca_key, ca=False)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        written.append(_write(folder / key_file(role), pem, 0o600))
        written.append(_write(folder / cert_file(role), cert.public_bytes(serialization.Encoding.PEM), 0o644))
    return written


def _write(path: Path, data: bytes, mode: int) -> Path:
    """Create ``path`` with ``mode`` from the start (a key is never readable by others, even briefly)."""
    try:  # never through a link planted meanwhile (O_EXCL refuses one, dangling or not)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except OSError as error:
        raise SecurityError(f"cannot write {path}: {error.strerror}; give an empty folder") from None
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
    os.chmod(path, mode)  # whatever the umask
    return path


def role_files(folder: Path, role: str) -> tuple[Path, Path, Path]:
    """The CA certificate, ``role``'s certificate and its key in ``folder``; SecurityError if one is missing."""
    files = (folder / CA_FILE, folder / cert_file(role), folder / key_file(role))
    missing = [path.name for path in files if not path.is_file()]
    if missing:
        raise SecurityError(
            f"--cluster-security {folder}: {', '.join(missing)} missing; "
            f"make the files with `arena cluster init {folder}` (docs/cluster.md)"
        )
    return files


def client_security(folder: Path) -> Any:
    """Dask's ``Security`` for the submitting side: TLS only, its client certificate, the cluster's CA."""
    from distributed.security import Security

    ca, cert, key = role_files(folder, "client")
    return Security(
        tls_ca_file=str(ca), tls_client_cert=str(cert), tls_client_key=str(key), require_encryption=True
    )


def dask_commands(folder: Path) -> str:
    """The commands that start a scheduler and workers with ``folder``'s certificates, and the submitter's."""

    def tls(role: str) -> str:
        ca, cert, key = (
            shlex.quote(str(folder / name)) for name in (CA_FILE, cert_file(role), key_file(role))
        )
        return f"--tls-ca-file {ca} --tls-cert {cert} --tls-key {key}"

    where = shlex.quote(str(folder))
    return "\n".join(
        [
            f"Copy {folder} to each machine of the cluster (the scheduler needs {CA_FILE} and scheduler*.pem,",
            f"a worker {CA_FILE} and worker*.pem, the machine that runs `arena run` {CA_FILE} and client*.pem).",
            "Listen on the private network only (--host: this machine's address there), then:",
            "",
            "on the scheduler machine:",
            f"  dask scheduler --protocol tls --host SCHEDULER-IP --port {DEFAULT_PORT} "
            f"--dashboard-address 127.0.0.1:8787 {tls('scheduler')}",
            "on each worker machine (one process per core, one thread each):",
            f"  dask worker tls://SCHEDULER-IP:{DEFAULT_PORT} --protocol tls --host WORKER-IP "
            f"--nworkers auto --nthreads 1 --no-dashboard --dashboard-address 127.0.0.1:0 {tls('worker')}",
            "then, where the database is:",
            f"  arena run LADDER.toml --cluster tls://SCHEDULER-IP:{DEFAULT_PORT} --cluster-security {where}",
        ]
    )
