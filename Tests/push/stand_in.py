"""What the push services' stand-ins share (Tests/push/apns_server.py, fcm_server.py): a
throw-away CA and a loopback certificate, answers scripted per key in `script.json`, the
ASGI plumbing, and serving over TLS on a free port written to `port`."""
import asyncio
import datetime
import ipaddress
import json
import os
import signal
import socket

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from hypercorn.asyncio import serve
from hypercorn.config import Config


def certificates(folder):
    """A CA and a server certificate for 127.0.0.1 and localhost signed by it."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Tilawa test APNs CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    server = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
              .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                          x509.DNSName("localhost")]), critical=False)
              .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
              .sign(ca_key, hashes.SHA256()))
    paths = {name: os.path.join(folder, name) for name in ("ca.pem", "server.pem", "server.key")}
    with open(paths["ca.pem"], "wb") as out:
        out.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.pem"], "wb") as out:
        out.write(server.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.key"], "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return paths


class Script:
    """Answers scripted per key: `script.json` in the folder, `{"<key>": [[...], [...]]}`, read at
    every request, one answer taken per request (None when none is left). An entry
    `{"when": "<text>", "answers": [...]}` answers only requests whose body contains the text
    (a test's own notice), leaving the daemon's other notices to the same device alone."""

    def __init__(self, folder):
        self.path = os.path.join(folder, "script.json")

    def next(self, key, body=b""):
        try:
            with open(self.path) as source:
                script = json.load(source)
        except (OSError, ValueError):
            return None
        entry = script.get(key)
        answers = entry.get("answers", []) if isinstance(entry, dict) else entry or []
        if not answers or (isinstance(entry, dict) and entry.get("when", "").encode() not in body):
            return None
        answer = answers.pop(0)
        if isinstance(entry, dict):
            entry["answers"] = answers
        else:
            script[key] = answers
        with open(self.path + ".tmp", "w") as out:
            json.dump(script, out)
        os.replace(self.path + ".tmp", self.path)
        return answer


class Disconnected(Exception):
    """The client went away (or the connection closed) before the request's body was whole."""


def connection(scope):
    """`address:port` of the client: the requests of one HTTP/2 connection share it."""
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else None


def append(folder, name, record):
    """One JSON line appended to `name` in `folder`."""
    with open(os.path.join(folder, name), "a") as out:
        out.write(json.dumps(record) + "\n")


async def request(scope, receive, send):
    """(body, lower-cased headers) of an HTTP request; None after answering a lifespan scope;
    `Disconnected` when the connection ends before the body does."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return None
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    return body, {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}


async def respond_json(send, status, document, headers=()):
    """Answers `status` with `document` as JSON (and any extra header pairs)."""
    data = json.dumps(document).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())] + list(headers)})
    await send({"type": "http.response.body", "body": data})


def listen():
    """A listening loopback socket on a free port."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.set_inheritable(True)
    return listener


def serve_tls(app, folder, listener, alpn, max_requests=0):
    """Serves `app` over TLS (a fresh CA in `folder`) on `listener`, its port written to `port`;
    SIGTERM ends it at once (hypercorn would otherwise wait on its own shutdown trigger).

    `max_requests`: after how many requests a connection is closed; 0 (the default) never.
    Hypercorn's own default closes an HTTP/2 connection on its 1,001st request, and not
    gracefully: `h2`'s close_connection() sends GOAWAY and puts the connection in its CLOSED
    state at once, so the answers to the requests still in flight on it (already read, judged
    and logged here) fail in h2 with a ProtocolError that hypercorn swallows; the client hears
    nothing until the idle connection is closed (`keep_alive_timeout`, 5 s) and sends them
    again. Real APNs answers every stream up to its GOAWAY's last stream id. Left at hypercorn's
    default, every 1,001 pushes cost a stall of up to 5 s and a few pushes logged twice; a bench
    passes 1000 to show that (scripts/bench-push.sh, PUSH_BENCH_MAX_REQUESTS)."""
    paths = certificates(folder)
    config = Config()
    config.keep_alive_max_requests = max_requests if max_requests > 0 else 2**62
    config.bind = [f"fd://{listener.fileno()}"]
    config.certfile = paths["server.pem"]
    config.keyfile = paths["server.key"]
    config.alpn_protocols = alpn
    config.accesslog = None
    config.errorlog = os.path.join(folder, "errors.log")
    with open(os.path.join(folder, "port.tmp"), "w") as out:
        out.write(str(listener.getsockname()[1]))
    os.replace(os.path.join(folder, "port.tmp"), os.path.join(folder, "port"))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    asyncio.run(serve(app, config))
