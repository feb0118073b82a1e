#!/usr/bin/env python3
"""An APNs stand-in for the push tests: HTTP/2 over TLS (ALPN h2 only) on loopback.

It makes a throw-away CA and a certificate for 127.0.0.1 signed by it (the daemon is told to
trust the CA by push.apns.ca_file), and checks every request as APNs does: POST
/3/device/<token> over HTTP/2, the provider token an ES256 JWT whose signature verifies with
the given public key, `kid` the key id, `iss` the team, `iat` no more than an hour old; the
topic, the push type `alert`, a JSON payload of at most 4096 bytes. It answers as APNs does:
200 with `apns-id`, 400/403/410/429/500 with `{"reason": …}` (410 with a timestamp). What it
answers a token may be scripted: `script.json` in its folder, `{"<token>": [[429,
"TooManyRequests"], [503, "ServiceUnavailable", 3600], [200, "", null, 30]]}` (status, reason,
Retry-After seconds, seconds to wait before answering, logged at once), read at every
request, one answer taken per request (`{"<token>": {"when": "Eid", "answers": [...]}}`: only
for requests whose payload says Eid).

Every request is appended to `requests.jsonl` before it is answered: its number `n` (in order
of arrival), token, status, reason, HTTP version, `connection` (the client's address and port:
one HTTP/2 connection's requests share it), `received` (when its headers reached the app) and
`at` (when it was judged), the apns headers and the payload; once its answer is handed to
hypercorn, `{"n": …, "answered": …}` is appended to `answers.jsonl` (hypercorn may still drop
it on a connection it is closing: see stand_in.serve_tls). A request whose connection ended
before its body did is logged with status 499. The port is written to `port` once it listens.

    apns_server.py --dir DIR --public-key key.pem --key-id ABC123DEFG --team-id TEAM456789 --topic org.example.tilawa
                   [--max-requests-per-connection N]
"""
import argparse
import asyncio
import itertools
import json
import os
import sys
import time
import uuid

import jwt
from cryptography.hazmat.primitives import serialization

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stand_in import Disconnected, Script, append, connection, listen, request, respond_json, serve_tls  # noqa: E402


class APNs:
    def __init__(self, args):
        self.args = args
        with open(args.public_key, "rb") as source:
            self.public_key = serialization.load_pem_public_key(source.read())
        self.script = Script(args.dir)
        self.numbers = itertools.count(1)

    def judge(self, method, path, headers, body):
        """(status, reason, retry-after, delay) as APNs would answer (the last two scripted only)."""
        status, reason = self.check(method, path, headers, body)
        if status != 200:
            return status, reason, None, 0
        answer = self.script.next(path[len("/3/device/"):], body)
        if not answer:
            return 200, "", None, 0
        return (answer[0], answer[1], answer[2] if len(answer) > 2 else None, answer[3] if len(answer) > 3 else 0)

    def check(self, method, path, headers, body):
        """(status, reason) for what APNs checks itself: (200, "") when the request is one it takes."""
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
        return 200, ""

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await request(scope, receive, send)
            return
        number, received_at = next(self.numbers), time.time()
        try:
            received = await request(scope, receive, send)
        except Disconnected:
            # Gone before its body was whole: never judged, never answered (nginx's 499).
            append(self.args.dir, "requests.jsonl", {"token": scope["path"].rsplit("/", 1)[-1], "status": 499, "reason": "ClientClosedRequest",
                                                     "n": number, "http_version": scope["http_version"], "connection": connection(scope),
                                                     "received": received_at, "at": time.time(), "headers": {}, "payload": None})
            return
        if received is None:
            return
        body, headers = received
        status, reason, retry_after, delay = self.judge(scope["method"], scope["path"], headers, body)
        record = {"token": scope["path"].rsplit("/", 1)[-1], "status": status, "reason": reason, "n": number,
                  "http_version": scope["http_version"], "connection": connection(scope), "received": received_at, "at": time.time(),
                  "headers": {name: value for name, value in headers.items() if name.startswith("apns-")}}
        try:
            record["payload"] = json.loads(body)
        except ValueError:
            record["payload"] = None
        append(self.args.dir, "requests.jsonl", record)
        if delay:
            await asyncio.sleep(delay)
        if status == 200:
            apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
            await send({"type": "http.response.start", "status": 200, "headers": [(b"apns-id", apns_id.encode())]})
            await send({"type": "http.response.body", "body": b""})
        else:
            answer = {"reason": reason}
            if status == 410:
                answer["timestamp"] = int(time.time() * 1000)
            extra = [(b"retry-after", str(retry_after).encode())] if retry_after is not None else []
            await respond_json(send, status, answer, extra)
        append(self.args.dir, "answers.jsonl", {"n": number, "answered": time.time()})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--max-requests-per-connection", type=int, default=0,
                        help="close each connection after this many requests, as hypercorn does by default (0: never; see stand_in.serve_tls)")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    serve_tls(APNs(args), args.dir, listen(), ["h2"], max_requests=args.max_requests_per_connection)


if __name__ == "__main__":
    main()
