#!/usr/bin/env python3
"""An APNs stand-in for the push tests: HTTP/2 over TLS (ALPN h2 only) on loopback.

It makes a throw-away CA and a certificate for 127.0.0.1 signed by it (the daemon is told to
trust the CA by push.apns.ca_file), and checks every request as APNs does: POST
/3/device/<token> over HTTP/2, the provider token an ES256 JWT whose signature verifies with
the given public key, `kid` the key id, `iss` the team, `iat` no more than an hour old; the
topic, the push type `alert`, a JSON payload of at most 4096 bytes. It answers as APNs does:
200 with `apns-id`, 400/403/410/429/500 with `{"reason": …}` (410 with a timestamp). What it
answers a token may be scripted: `script.json` in its folder, `{"<token>": [[429,
"TooManyRequests"], [200, ""]]}`, read at every request, one answer taken per request
(`{"<token>": {"when": "Eid", "answers": [...]}}`: only for requests whose payload says Eid).

Every request is appended to `requests.jsonl`: token, status, reason, HTTP version, the apns
headers and the payload. The port is written to `port` once it listens.

    apns_server.py --dir DIR --public-key key.pem --key-id ABC123DEFG --team-id TEAM456789 --topic org.example.tilawa
"""
import argparse
import json
import os
import sys
import time
import uuid

import jwt
from cryptography.hazmat.primitives import serialization

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stand_in import Script, append, listen, request, respond_json, serve_tls  # noqa: E402


class APNs:
    def __init__(self, args):
        self.args = args
        with open(args.public_key, "rb") as source:
            self.public_key = serialization.load_pem_public_key(source.read())
        self.script = Script(args.dir)

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
        answer = self.script.next(path[len("/3/device/"):], body)
        return (answer[0], answer[1]) if answer else (200, "")

    async def __call__(self, scope, receive, send):
        received = await request(scope, receive, send)
        if received is None:
            return
        body, headers = received
        status, reason = self.judge(scope["method"], scope["path"], headers, body)
        record = {"token": scope["path"].rsplit("/", 1)[-1], "status": status, "reason": reason,
                  "http_version": scope["http_version"], "at": time.time(),
                  "headers": {name: value for name, value in headers.items() if name.startswith("apns-")}}
        try:
            record["payload"] = json.loads(body)
        except ValueError:
            record["payload"] = None
        append(self.args.dir, "requests.jsonl", record)
        if status == 200:
            apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
            await send({"type": "http.response.start", "status": 200, "headers": [(b"apns-id", apns_id.encode())]})
            await send({"type": "http.response.body", "body": b""})
            return
        answer = {"reason": reason}
        if status == 410:
            answer["timestamp"] = int(time.time() * 1000)
        await respond_json(send, status, answer)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", required=True)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    serve_tls(APNs(args), args.dir, listen(), ["h2"])


if __name__ == "__main__":
    main()
