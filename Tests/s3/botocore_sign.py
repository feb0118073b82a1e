"""botocore's S3 client signs a set of requests at a frozen instant; prints what it sent.

    botocore_sign.py HOST:PORT INSTANT(YYYYMMDDTHHMMSSZ)

Nothing goes on the network: a `before-send` hook answers each request itself. One JSON
object per line: the operation, method, URL, every header sent (Authorization apart) and the
Authorization botocore computed; for the presigned URLs, the URL. `SigV4Tests` signs the same
requests with Tilawa's signer and compares.
"""
import datetime
import json
import sys

import botocore.auth
import botocore.config
import botocore.session
from botocore.awsrequest import AWSResponse

endpoint, instant = sys.argv[1], sys.argv[2]
frozen = datetime.datetime.strptime(instant, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
botocore.auth.get_current_datetime = lambda: frozen

sent = []


def capture(request, **_):
    headers = [[name, value.decode() if isinstance(value, bytes) else value]
               for name, value in request.headers.items() if name.lower() != "authorization"]
    sent.append({"method": request.method, "url": request.url, "headers": headers,
                 "authorization": request.headers["Authorization"].decode()
                 if isinstance(request.headers["Authorization"], bytes) else request.headers["Authorization"]})
    body = b""
    if "uploads" in request.url and request.method == "POST":
        body = b"<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>u-1</UploadId></InitiateMultipartUploadResult>"
    elif "list-type=2" in request.url:
        body = b"<ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated></ListBucketResult>"
    elif "uploadId" in request.url and request.method == "POST":
        body = b"<CompleteMultipartUploadResult><ETag>\"e\"</ETag></CompleteMultipartUploadResult>"

    class Raw:
        def __init__(self, data):
            self.data = data

        def stream(self, *_args, **_kwargs):
            yield self.data

    return AWSResponse(request.url, 200, {"etag": "\"e\""}, Raw(body))


def client(token=None):
    session = botocore.session.get_session()
    made = session.create_client(
        "s3", endpoint_url=f"http://{endpoint}", region_name="us-east-1",
        aws_access_key_id="tilawa:tester", aws_secret_access_key="testing/secret+key", aws_session_token=token,
        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"}, retries={"max_attempts": 0},
                                      request_checksum_calculation="when_required",
                                      response_checksum_validation="when_required"))
    made.meta.events.register("before-send", capture)
    return made


def run(operation, call):
    before = len(sent)
    try:
        call()
    except Exception as error:  # the canned answers need not satisfy every parser
        if len(sent) == before:
            raise RuntimeError(f"{operation}: nothing was sent ({error!r})") from error
    for entry in sent[before:]:
        entry["op"] = operation
        print(json.dumps(entry, ensure_ascii=False))


s3 = client()
run("create_bucket", lambda: s3.create_bucket(Bucket="tilawa-artifacts"))
run("put_object", lambda: s3.put_object(Bucket="tilawa-artifacts", Key="submissions/2026/11/sub_01.opus",
                                        Body=b"OggS" + bytes(range(256)) * 40, ContentType="audio/ogg"))
run("get_object_range", lambda: s3.get_object(Bucket="tilawa-artifacts", Key="a b/\u1234+x~y (1).opus", Range="bytes=2-5"))
run("head_object", lambda: s3.head_object(Bucket="tilawa-artifacts", Key="feedback/2026/11/fb_01.opus"))
run("list_objects_v2", lambda: s3.list_objects_v2(Bucket="tilawa-artifacts", Prefix="prod/sub missions/2026/",
                                                  ContinuationToken="1/abc+def=", MaxKeys=1000))
run("create_multipart_upload", lambda: s3.create_multipart_upload(Bucket="tilawa-artifacts", Key="originals/2026/11/big.wav",
                                                                  ContentType="audio/wav"))
run("upload_part", lambda: s3.upload_part(Bucket="tilawa-artifacts", Key="originals/2026/11/big.wav", PartNumber=2,
                                          UploadId="u-1~x", Body=b"\x00" * 1000))
run("complete_multipart_upload", lambda: s3.complete_multipart_upload(
    Bucket="tilawa-artifacts", Key="originals/2026/11/big.wav", UploadId="u-1",
    MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": "\"a\""}, {"PartNumber": 2, "ETag": "\"b\""}]}))
run("delete_object", lambda: s3.delete_object(Bucket="tilawa-artifacts", Key="comments/2026/11/c 1.opus"))
run("with_session_token", lambda: client(token="session/token+1").get_object(Bucket="tilawa-artifacts", Key="k"))
for key in ["submissions/2026/11/sub_01.opus", "a b/\u1234+x~y (1).opus"]:
    url = s3.generate_presigned_url("get_object", Params={"Bucket": "tilawa-artifacts", "Key": key}, ExpiresIn=900)
    print(json.dumps({"op": "presign", "url": url, "key": key}, ensure_ascii=False))
