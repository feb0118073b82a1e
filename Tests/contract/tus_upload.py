"""Uploads audio fixtures to a `tilawa serve` through tus 1.0 with tuspy (the Python tus
client), in 64 KiB chunks, SIGKILLing and restarting the daemon at random: between chunks,
and in the middle of a chunk's PATCH (a raw request cut by the kill).

Usage: tus_upload.py CONFIG.json  — CONFIG names the tilawa binary, the scratch and state
directories, the fixtures (file, student, media type), a token per student and a seed. The
daemon's environment is this process's plus CONFIG's `daemon_environment` (the clock, the
state directory), kept off this interpreter.

Before each final chunk the upload's staged bytes are compared with the source's prefix
(`uploads/<id>.part`); after it, the outcome is read from the upload's URL. Prints one JSON
document: per fixture the upload path, the prefix check, the final PATCH's Link header, the
outcome's status and body; and how many times the daemon was killed.
"""
import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from tusclient.client import TusClient

CHUNK = 64 * 1024

config = json.load(open(sys.argv[1]))
rng = random.Random(config["seed"])
state = {"daemon": None, "port": None, "kills": 0, "mid_append": 0}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start():
    port = free_port()
    env = dict(os.environ, **config["daemon_environment"], TILAWA_HTTP_PORT=str(port), TILAWA_HTTP_HOST="127.0.0.1")
    log = open(os.path.join(config["scratch"], "serve.log"), "ab")
    state["daemon"] = subprocess.Popen(["/usr/bin/env", config["tilawa"], "serve"], env=env, cwd=config["scratch"],
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    state["port"] = port
    deadline = time.time() + 60
    while time.time() < deadline:
        if state["daemon"].poll() is not None:
            sys.exit("the daemon exited at start")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except Exception:
            time.sleep(0.05)
    sys.exit("the daemon never became ready")


def kill_and_restart():
    state["daemon"].send_signal(signal.SIGKILL)
    state["daemon"].wait()
    state["kills"] += 1
    start()


def base():
    return f"http://127.0.0.1:{state['port']}"


def uploader(fixture, path):
    token = config["tokens"][fixture["student"]]
    slot = fixture.get("slot", "12")
    client = TusClient(f"{base()}/v1/students/{fixture['student']}/weeks/{slot}/uploads", headers={"Authorization": f"Bearer {token}"})
    metadata = {"filename": os.path.basename(fixture["file"])}
    if fixture.get("type"):
        metadata["filetype"] = fixture["type"]
    # Every other fixture sends a sha1 Upload-Checksum with each chunk.
    checksum = fixture["index"] % 2 == 0
    url = base() + path if path else None
    return client.uploader(fixture["file"], chunk_size=CHUNK, metadata=metadata, upload_checksum=checksum, url=url)


def staged_prefix_matches(upload_path, source, offset, exact=True):
    """The staged file holds the source's first `offset` bytes (and, after a kill mid-append,
    possibly more that no offset covers: the next append cuts them off)."""
    staged = os.path.join(config["state"], "uploads", upload_path.rsplit("/", 1)[1] + ".part")
    with open(staged, "rb") as f:
        held = f.read()
    if len(held) < offset or (exact and len(held) != offset):
        return False
    return hashlib.sha256(held[:offset]).digest() == hashlib.sha256(source[:offset]).digest()


def kill_mid_append(fixture, path, source, offset):
    """Sends a PATCH's headers and part of its body, then SIGKILLs the daemon while it reads."""
    token = config["tokens"][fixture["student"]]
    chunk = source[offset:offset + CHUNK]
    with socket.create_connection(("127.0.0.1", state["port"])) as connection:
        connection.sendall((f"PATCH {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {token}\r\n"
                            f"Tus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\n"
                            f"Upload-Offset: {offset}\r\nContent-Length: {len(chunk)}\r\n\r\n").encode())
        connection.sendall(chunk[:rng.randrange(1, len(chunk))])
        time.sleep(0.1)
        state["mid_append"] += 1
        kill_and_restart()


def outcome(fixture, path):
    token = config["tokens"][fixture["student"]]
    request = urllib.request.Request(base() + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


start()
results = []
for index, fixture in enumerate(config["fixtures"]):
    fixture["index"] = index
    source = open(fixture["file"], "rb").read()
    upload = uploader(fixture, None)
    if len(source) == 0:
        upload.upload()  # the creation alone: a zero-length upload is whole at once
    path = "/" + upload.url.split("/", 3)[3] if upload.url else None
    prefix_checks = []
    while upload.offset < len(source):
        if path is None:
            upload.set_url(upload.create_url())
            upload.offset = 0
            path = "/" + upload.url.split("/", 3)[3]
        if rng.random() < config["kill_probability"]:
            kill_mid_append(fixture, path, source, upload.offset)
            upload = uploader(fixture, path)
            prefix_checks.append(staged_prefix_matches(path, source, upload.offset, exact=False))
            continue
        last = upload.offset + CHUNK >= len(source)
        if last:
            prefix_checks.append(staged_prefix_matches(path, source, upload.offset))
        upload.upload_chunk()
        if upload.offset < len(source) and rng.random() < config["kill_probability"]:
            kill_and_restart()
            # A new client after the restart resumes from the offset the daemon reports (HEAD).
            upload = uploader(fixture, path)
            prefix_checks.append(staged_prefix_matches(path, source, upload.offset))
    link = upload.request.response_headers.get("link") if upload.request else None
    status, body = outcome(fixture, path)
    results.append({"file": os.path.basename(fixture["file"]), "student": fixture["student"], "path": path, "link": link,
                    "prefix_checks": prefix_checks, "status": status, "body": body})

state["daemon"].send_signal(signal.SIGTERM)
state["daemon"].wait(timeout=60)
print(json.dumps({"kills": state["kills"], "mid_append_kills": state["mid_append"], "results": results}))
