"""Verifies recorded webhook deliveries with the stock Standard Webhooks library.

Usage: verify_standard_webhooks.py DELIVERIES.jsonl SECRET [SECRET...]

Each line of DELIVERIES.jsonl is {"body": <base64>, "headers": {...}}. Every delivery must
verify with every SECRET given (whsec_<base64 key>), and must not verify with a key that
differs from them. Prints one line per delivery; exits 1 on the first failure.
"""
import base64
import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main() -> int:
    path, secrets = sys.argv[1], sys.argv[2:]
    wrong = "whsec_" + base64.b64encode(b"not-the-secret").decode()
    count = 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            delivery = json.loads(line)
            body = base64.b64decode(delivery["body"])
            headers = delivery["headers"]
            for secret in secrets:
                payload = Webhook(secret).verify(body, headers)
                if payload.get("id") != headers["webhook-id"]:
                    print(f"FAIL {headers['webhook-id']}: the body names {payload.get('id')}")
                    return 1
            try:
                Webhook(wrong).verify(body, headers)
            except WebhookVerificationError:
                pass
            else:
                print(f"FAIL {headers['webhook-id']}: verified with a wrong secret")
                return 1
            count += 1
            print(f"OK {headers['webhook-id']}")
    if count == 0:
        print("FAIL no deliveries")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
