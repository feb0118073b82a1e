#!/usr/bin/env python3
"""Checks the S3 server of scripts/s3-server.sh with botocore, an independent SigV4 client.

Usage: .venv-test/bin/python Tests/s3/s3_server_check.py DIR/s3.env
       .venv-test/bin/python Tests/s3/s3_server_check.py ENDPOINT ACCESS_KEY SECRET_KEY [REGION]
       (or S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_REGION in the environment)

Creates a bucket, PUTs an object, GETs a range of it, HEADs it, lists by prefix, uploads one in
two parts (5 MiB, then less), fetches it through a presigned URL, deletes, and checks that the
server refuses a wrong secret, a body that is not the one signed and a tampered presigned URL.
Prints one line per check and exits 0 only if all hold.
"""
import hashlib
import os
import sys
import urllib.error
import urllib.request
import uuid

import botocore.session
from botocore.config import Config
from botocore.exceptions import ClientError


def settings():
    args = sys.argv[1:]
    if len(args) == 1 and os.path.isfile(args[0]):
        with open(args[0]) as f:
            kv = dict(line.strip().split("=", 1) for line in f if "=" in line)
        return kv["endpoint"], kv["access_key"], kv["secret_key"], kv.get("region", "us-east-1")
    if len(args) in (3, 4):
        return args[0], args[1], args[2], args[3] if len(args) == 4 else "us-east-1"
    if not args and os.environ.get("S3_ENDPOINT"):
        env = os.environ
        return env["S3_ENDPOINT"], env["S3_ACCESS_KEY"], env["S3_SECRET_KEY"], env.get("S3_REGION", "us-east-1")
    sys.exit(__doc__.split("\n\n")[1])


def client(endpoint, access_key, secret_key, region):
    # Path-style, SigV4, no retries; plain requests as the project's client sends them, without
    # botocore's default x-amz-checksum-* headers (which s3api 2.30 ignores; over TLS botocore
    # would send them as an aws-chunked trailer, which s3api refuses with 501).
    config = Config(
        signature_version="s3v4",
        s3={"addressing_style": "path"},
        retries={"max_attempts": 1, "mode": "standard"},
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        connect_timeout=5,
        read_timeout=30,
    )
    return botocore.session.get_session().create_client(
        "s3", endpoint_url=endpoint, region_name=region,
        aws_access_key_id=access_key, aws_secret_access_key=secret_key, config=config)


def error_of(call):
    """(HTTP status, S3 error code) of a call expected to fail; (status, None) if it did not."""
    try:
        response = call()
    except ClientError as e:
        return e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"].get("Code")
    return response["ResponseMetadata"]["HTTPStatusCode"], None


def main():
    endpoint, access_key, secret_key, region = settings()
    s3 = client(endpoint, access_key, secret_key, region)
    bucket = "check-" + uuid.uuid4().hex[:12]
    body = bytes(range(48, 58)) * 10  # "0123456789" ten times
    big_part = os.urandom(5 * 1024 * 1024)
    last_part = os.urandom(300 * 1024)
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)

    def run(name, fn):
        try:
            ok, detail = fn()
        except Exception as e:  # noqa: BLE001 - any failure is this check's
            ok, detail = False, f"{type(e).__name__}: {e}"
        check(name, ok, detail)

    def create_bucket():
        r = s3.create_bucket(Bucket=bucket)
        return r["ResponseMetadata"]["HTTPStatusCode"] == 200, bucket

    def put_object():
        r = s3.put_object(Bucket=bucket, Key="dir/a.txt", Body=body, ContentType="text/plain")
        etag = r["ETag"].strip('"')
        return etag == hashlib.md5(body).hexdigest(), f"ETag {etag}"

    def get_range():
        r = s3.get_object(Bucket=bucket, Key="dir/a.txt", Range="bytes=2-5")
        status, data = r["ResponseMetadata"]["HTTPStatusCode"], r["Body"].read()
        return (status == 206 and data == b"2345" and r["ContentRange"] == f"bytes 2-5/{len(body)}",
                f"{status} {data!r} Content-Range {r.get('ContentRange')}")

    def head_object():
        r = s3.head_object(Bucket=bucket, Key="dir/a.txt")
        return (r["ContentLength"] == len(body) and r["ContentType"] == "text/plain",
                f"{r['ContentLength']} bytes, {r['ContentType']}")

    def list_v2():
        s3.put_object(Bucket=bucket, Key="dir/b.txt", Body=b"b")
        s3.put_object(Bucket=bucket, Key="other.txt", Body=b"o")
        r = s3.list_objects_v2(Bucket=bucket, Prefix="dir/")
        keys = [o["Key"] for o in r.get("Contents", [])]
        return keys == ["dir/a.txt", "dir/b.txt"] and r["KeyCount"] == 2, f"prefix dir/ -> {keys}"

    def multipart():
        up = s3.create_multipart_upload(Bucket=bucket, Key="big.bin")["UploadId"]
        parts = []
        for number, data in ((1, big_part), (2, last_part)):
            etag = s3.upload_part(Bucket=bucket, Key="big.bin", UploadId=up, PartNumber=number, Body=data)["ETag"]
            parts.append({"PartNumber": number, "ETag": etag})
        s3.complete_multipart_upload(Bucket=bucket, Key="big.bin", UploadId=up, MultipartUpload={"Parts": parts})
        r = s3.get_object(Bucket=bucket, Key="big.bin")
        data = r["Body"].read()
        whole = big_part + last_part
        return (data == whole and r["ETag"].strip('"').endswith("-2"),
                f"{len(data)} bytes back, ETag {r['ETag']}")

    def presigned_get():
        url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "dir/a.txt"}, ExpiresIn=300)
        with urllib.request.urlopen(url, timeout=10) as r:
            data = r.read()
            return r.status == 200 and data == body, f"{r.status}, {len(data)} bytes"

    def presigned_tampered():
        url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "dir/a.txt"}, ExpiresIn=300)
        try:
            urllib.request.urlopen(url.replace("dir/a.txt", "dir/b.txt"), timeout=10).close()
            return False, "200"
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            return e.code == 403 and "<Code>SignatureDoesNotMatch</Code>" in text, f"{e.code} {code_in(text)}"

    def wrong_secret():
        bad = client(endpoint, access_key, secret_key + "x", region)
        status, code = error_of(lambda: bad.get_object(Bucket=bucket, Key="dir/a.txt"))
        return status == 403 and code == "SignatureDoesNotMatch", f"{status} {code}"

    def body_not_signed():
        # Signed for one body (its SHA-256 in x-amz-content-sha256), sent with another.
        other = client(endpoint, access_key, secret_key, region)

        def swap(request, **_):
            request.body = b"forged body"  # same length, other bytes

        other.meta.events.register("before-send.s3.PutObject", swap)
        status, code = error_of(lambda: other.put_object(Bucket=bucket, Key="swapped.txt", Body=b"signed body"))
        gone = error_of(lambda: s3.head_object(Bucket=bucket, Key="swapped.txt"))[0] == 404
        # AWS answers XAmzContentSHA256Mismatch; Swift 2.30's s3api BadDigest.
        refused = status == 400 and code in ("XAmzContentSHA256Mismatch", "BadDigest")
        return refused and gone, f"{status} {code}, not stored: {gone}"

    def delete():
        for key in ("dir/a.txt", "dir/b.txt", "other.txt", "big.bin"):
            s3.delete_object(Bucket=bucket, Key=key)
        status = error_of(lambda: s3.head_object(Bucket=bucket, Key="dir/a.txt"))[0]
        left = s3.list_objects_v2(Bucket=bucket).get("KeyCount")
        s3.delete_bucket(Bucket=bucket)
        return status == 404 and left == 0, f"HEAD after DELETE {status}, {left} keys left, bucket deleted"

    run("create bucket", create_bucket)
    run("PUT object", put_object)
    run("GET Range: bytes=2-5", get_range)
    run("HEAD object", head_object)
    run("ListObjectsV2 with a prefix", list_v2)
    run("multipart upload (5 MiB + 300 KiB)", multipart)
    run("presigned GET", presigned_get)
    run("presigned GET for another key refused", presigned_tampered)
    run("wrong secret refused", wrong_secret)
    run("body other than the signed one refused", body_not_signed)
    run("DELETE objects and bucket", delete)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


def code_in(xml):
    start = xml.find("<Code>")
    return xml[start + 6:xml.find("</Code>")] if start >= 0 else xml[:80]


if __name__ == "__main__":
    sys.exit(main())
