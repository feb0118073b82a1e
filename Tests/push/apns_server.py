#!/usr/bin/env python3
"""An APNs stand-in for the push tests: HTTP/2 over TLS (ALPN h2 only) on loopback.

It makes a throw-away CA and a certificate for 127.0.0.1 signed by it (the daemon is told to
trust the CA by push.apns.ca_file), and checks every request as APNs does: POST
/3/device/<token> over HTTP/2, the provider token an ES256 JWT whose signature verifies with
the given public key, `kid` the key id, `iss` the team, `iat` no more than an hour old; the
topic, the push type `alert`, a JSON payload of at most 4096 bytes. It answers as APNs does:
200 with `apns-id`, 400/403/410/429/500 with `{"reason": …}` (410 with a timestamp). What it
answers a token may be scripted: `script.json` in its folder, `{"<token>": [[429,
"TooManyRequests"], [200, ""]]}`, read at every request, one answer taken per request.

Every request is appended to `requests.jsonl`: token, status, reason, HTTP version, the apns
headers and the payload. The port is written to `port` once it listens.

    apns_server.py --dir DIR --public-key key.pem --key-id ABC123DEFG --team-id TEAM456789 --topic org.example.tilawa
"""
import argparse
import asyncio
import datetime
import ipaddress
import json
import os
import signal
import socket
import time
import uuid

import jwt
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


class APNs:
    def __init__(self, args):
        self.args = args
        with open(args.public_key, "rb") as source:
            self.public_key = serialization.load_pem_public_key(source.read())
        self.log = os.path.join(args.dir, "requests.jsonl")
        self.script_path = os.path.join(args.dir, "script.json")

    def scripted(self, token):
        """The next scripted answer for `token`, taken from the script; None: answer 200."""
        try:
            with open(self.script_path) as source:
                script = json.load(source)
        except (OSError, ValueError):
            return None
        answers = script.get(token) or []
        if not answers:
            return None
        answer = answers.pop(0)
        script[token] = answers
        with open(self.script_path + ".tmp", "w") as out:
            json.dump(script, out)
        os.replace(self.script_path + ".tmp", self.script_path)
        return answer

    def judge(self, method, path, headers, body):
        """(status, reason) as APNs would answer."""
        if method != "POST" or not path.startswith("/3/device/"):
            return 405 if method != "POST" else 404, "MethodNotAllowed" if method != "POST" else "BadPath"
        authorization = headers.get("authorization", "")
        if not authorization.startswith("bearer "):
            return 403, "MissingProviderToken"
        token = authorization[len("bearer "):]
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") != "ES256" or header.get("kid") != self.args.key_id:
                return 403, "InvalidProviderToken"
            claims = jwt.decode(token, self.public_key, algorithms=["ES256"], options={"verify_iat": False, "require": ["iss", "iat"]})
        except jwt.PyJWTError:
            return 403, "InvalidProviderToken"
        if claims.get("iss") != self.args.team_id:
            return 403, "InvalidProviderToken"
        if time.time() - int(claims["iat"]) > 3600:
            return 403, "ExpiredProviderToken"
        if headers.get("apns-topic") != self.args.topic:
            return 400, "BadTopic"
        if headers.get("apns-push-type") != "alert":
            return 400, "InvalidPushType"
        if len(body) > 4096:
            return 413, "PayloadTooLarge"
        try:
            payload = json.loads(body)
            if not isinstance(payload.get("aps", {}).get("alert"), dict):
                return 400, "PayloadEmpty"
        except ValueError:
            return 400, "BadPayload"
        answer = self.scripted(path[len("/3/device/"):])
        return (answer[0], answer[1]) if answer else (200, "")

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        status, reason = self.judge(scope["method"], scope["path"], headers, body)
        record = {"token": scope["path"].rsplit("/", 1)[-1], "status": status, "reason": reason,
                  "http_version": scope["http_version"], "at": time.time(),
                  "headers": {name: value for name, value in headers.items() if name.startswith("apns-")}}
        try:
            record["payload"] = json.loads(body)
        except ValueError:
            record["payload"] = None
        with open(self.log, "a") as out:
            out.write(json.dumps(record) + "\n")
        if status == 200:
            apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
            await send({"type": "http.response.start", "status": 200, "headers": [(b"apns-id", apns_id.encode())]})
            await send({"type": "http.response.body", "body": b""})
            return
        answer = {"reason": reason}
        if status == 410:
            answer["timestamp"] = int(time.time() * 1000)
        data = json.dumps(answer).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", required=True)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    paths = certificates(args.dir)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.set_inheritable(True)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    config.certfile = paths["server.pem"]
    config.keyfile = paths["server.key"]
    config.alpn_protocols = ["h2"]
    config.accesslog = None
    config.errorlog = os.path.join(args.dir, "errors.log")
    with open(os.path.join(args.dir, "port.tmp"), "w") as out:
        out.write(str(listener.getsockname()[1]))
    os.replace(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
    # SIGTERM ends it at once (hypercorn would otherwise wait on its own shutdown trigger).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    asyncio.run(serve(APNs(args), config))


if __name__ == "__main__":
    main()
