#!/usr/bin/env python3
"""An FCM stand-in for the push tests: Google's token endpoint and FCM's HTTP v1 send endpoint,
over TLS on loopback (HTTP/2 or HTTP/1.1, a throw-away CA the daemon is told to trust by
push.fcm.ca_file).

POST /token checks the JWT bearer grant (RFC 7523) as Google does: grant_type
`urn:ietf:params:oauth:grant-type:jwt-bearer`, an RS256 assertion whose signature verifies
with the service account's public key, `kid` its key id, `iss` its client_email, `aud` this
endpoint, `scope` FCM's, `exp` at most an hour after `iat`, `iat` not in the future; it answers
an access token for an hour (or `--token-lifetime` seconds), else 400 `invalid_grant`.

POST /v1/projects/<project>/messages:send checks the bearer is an access token it issued and
has not expired (else 401 UNAUTHENTICATED), the project, and the message: a token,
`android.notification` with `body_loc_key`, a `ttl` in seconds, data values all strings, the
body at most 4000 bytes. It answers 200 `{"name": "projects/<p>/messages/<id>"}`, or what a
token's script says: `script.json` in its folder, `{"<token>": [[404, "UNREGISTERED"], [429,
"QUOTA_EXCEEDED", 2], [200, "", null, 30]]}` (status, errorCode, Retry-After, seconds to wait
before answering, logged at once), one answer per request;
the key `"__token__"` scripts the token endpoint the same way (`[[400, "invalid_grant"]]`).

Every send is appended to `requests.jsonl` (token, status, code, HTTP version, the message),
every exchange to `tokens.jsonl`. The port is written to `port` once it listens.

    fcm_server.py --dir DIR --public-key account-public.pem --key-id KID --client-email E --project P
"""
import argparse
import asyncio
import json
import os
import sys
import time
import urllib.parse
import uuid

import jwt
from cryptography.hazmat.primitives import serialization

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stand_in import Disconnected, Script, append, listen, request, respond_json, serve_tls  # noqa: E402

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


class FCM:
    def __init__(self, args):
        self.args = args
        with open(args.public_key, "rb") as source:
            self.public_key = serialization.load_pem_public_key(source.read())
        self.tokens = {}  # access token -> expiry (epoch seconds)
        self.port = None
        self.script = Script(args.dir)

    def exchange(self, body):
        """(status, document) for a token request."""
        form = urllib.parse.parse_qs(body.decode("latin-1"))
        if form.get("grant_type") != [GRANT] or len(form.get("assertion", [])) != 1:
            return 400, {"error": "unsupported_grant_type"}
        assertion = form["assertion"][0]
        audience = f"https://127.0.0.1:{self.port}/token"
        try:
            header = jwt.get_unverified_header(assertion)
            if header.get("alg") != "RS256" or header.get("kid") != self.args.key_id:
                return 400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
            claims = jwt.decode(assertion, self.public_key, algorithms=["RS256"], audience=audience,
                                options={"require": ["iss", "aud", "iat", "exp", "scope"]})
        except jwt.PyJWTError as error:
            return 400, {"error": "invalid_grant", "error_description": str(error)}
        now = time.time()
        if claims["iss"] != self.args.client_email:
            return 400, {"error": "invalid_grant", "error_description": "Invalid issuer."}
        if SCOPE not in claims["scope"].split():
            return 400, {"error": "invalid_scope"}
        if claims["exp"] - claims["iat"] > 3600 or claims["iat"] > now + 60:
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe."}
        scripted = self.script.next("__token__")
        if scripted and scripted[0] != 200:
            return scripted[0], {"error": scripted[1]}
        token = "ya29.test-" + uuid.uuid4().hex
        self.tokens[token] = now + self.args.token_lifetime
        return 200, {"access_token": token, "expires_in": self.args.token_lifetime, "token_type": "Bearer"}

    def judge(self, path, headers, body):
        """(status, errorCode, message, retry-after, delay) for a send."""
        if path != f"/v1/projects/{self.args.project}/messages:send":
            return 404, "NOT_FOUND", "Requested entity was not found.", None, 0
        authorization = headers.get("authorization", "")
        token = authorization[len("Bearer "):] if authorization.startswith("Bearer ") else ""
        if self.tokens.get(token, 0) <= time.time():
            return 401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", None, 0
        if len(body) > 4000:
            return 400, "INVALID_ARGUMENT", "Message is too big", None, 0
        try:
            message = json.loads(body)["message"]
            notification = message["android"]["notification"]
            assert isinstance(message["token"], str) and message["token"]
            assert isinstance(notification["body_loc_key"], str) and notification["body_loc_key"].startswith("tilawa_")
            assert message["android"]["ttl"].endswith("s") and int(message["android"]["ttl"][:-1]) >= 0
            assert all(isinstance(value, str) for value in message.get("data", {}).values())
        except (ValueError, KeyError, TypeError, AssertionError):
            return 400, "INVALID_ARGUMENT", "Invalid JSON payload received.", None, 0
        answer = self.script.next(message["token"], body)
        if answer:
            return (answer[0], answer[1], "scripted", answer[2] if len(answer) > 2 else None,
                    answer[3] if len(answer) > 3 else 0)
        return 200, "", "", None, 0

    async def __call__(self, scope, receive, send):
        try:
            received = await request(scope, receive, send)
        except Disconnected:
            return
        if received is None:
            return
        body, headers = received
        extra = []
        if scope["method"] == "POST" and scope["path"] == "/token":
            status, document = self.exchange(body)
            append(self.args.dir, "tokens.jsonl", {"status": status, "error": document.get("error"), "at": time.time()})
        elif scope["method"] == "POST":
            status, code, text, retry_after, delay = self.judge(scope["path"], headers, body)
            try:
                sent = json.loads(body).get("message")
            except ValueError:
                sent = None
            append(self.args.dir, "requests.jsonl", {"token": (sent or {}).get("token"), "status": status, "code": code,
                                           "http_version": scope["http_version"], "at": time.time(), "message": sent})
            if status == 200:
                document = {"name": f"projects/{self.args.project}/messages/{uuid.uuid4().int % 10**19}"}
            else:
                statuses = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                            429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
                document = {"error": {"code": status, "message": text, "status": statuses.get(status, "UNKNOWN"), "details": [
                    {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}]}}
            if retry_after is not None:
                extra.append((b"retry-after", str(retry_after).encode()))
            if delay:
                await asyncio.sleep(delay)
        else:
            status, document = 405, {"error": {"code": 405, "status": "METHOD_NOT_ALLOWED"}}
        await respond_json(send, status, document, extra)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--client-email", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--token-lifetime", type=int, default=3599)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    app = FCM(args)
    listener = listen()
    app.port = listener.getsockname()[1]
    serve_tls(app, args.dir, listener, ["h2", "http/1.1"])


if __name__ == "__main__":
    main()
