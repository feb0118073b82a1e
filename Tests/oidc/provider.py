"""A stand-in identity provider for the OIDC tests: keys and tokens made with PyJWT and
cryptography, an implementation independent of the jwt-kit the daemon verifies with.

    provider.py ISSUER AUDIENCE NOW  ->  JSON on stdout:
      {"jwks": {...}, "jwks_rotated": {...}, "tokens": {"case": "token", ...}}

`jwks` holds rsa-1 (RSA, no alg), ec-1 (EC P-256) and three keys Tilawa must skip (no kid,
use enc, an Ed25519 key); `jwks_rotated` drops rsa-1 and adds rsa-2.
"""
import base64
import hashlib
import hmac
import json
import sys

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

issuer, audience, now = sys.argv[1], sys.argv[2], int(sys.argv[3])

rsa1 = rsa.generate_private_key(public_exponent=65537, key_size=2048)
rsa2 = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ec1 = ec.generate_private_key(ec.SECP256R1())
stray = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwk(key, kid, **extra):
    data = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()) if isinstance(key, rsa.RSAPrivateKey)
                      else jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    if kid is not None:
        data["kid"] = kid
    data.update(extra)
    return data


ed = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
skipped = [jwk(stray, None), jwk(stray, "enc-1", use="enc"),
           {"kty": "OKP", "crv": "Ed25519", "kid": "ed-1", "x": base64.urlsafe_b64encode(ed).rstrip(b"=").decode()}]
jwks = {"keys": skipped + [jwk(rsa1, "rsa-1"), jwk(ec1, "ec-1", alg="ES256", use="sig")]}
jwks_rotated = {"keys": [jwk(rsa2, "rsa-2"), jwk(ec1, "ec-1", alg="ES256", use="sig")]}


def claims(**changes):
    base = {"iss": issuer, "aud": [audience, "another-api"], "sub": "auth0|aisha", "iat": now, "exp": now + 600}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def sign(key, alg, kid="rsa-1", typ="at+jwt", **changes):
    headers = {"typ": typ}
    if kid is not None:
        headers["kid"] = kid
    return jwt.encode(claims(**changes), key, algorithm=alg, headers=headers)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(alg, kid="rsa-1"):
    header = b64(json.dumps({"alg": alg, "kid": kid, "typ": "JWT"}).encode())
    return header + "." + b64(json.dumps(claims()).encode()) + "."


# Algorithm confusion: HS256 keyed with the RSA public key's PEM (PyJWT refuses to, so by hand).
public_pem = rsa1.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
confusion_input = b64(json.dumps({"alg": "HS256", "kid": "rsa-1", "typ": "JWT"}).encode()) + "." + b64(json.dumps(claims()).encode())
confusion = confusion_input + "." + b64(hmac.new(public_pem, confusion_input.encode(), hashlib.sha256).digest())

tokens = {
    "valid_rs256": sign(rsa1, "RS256"),
    "valid_es256": sign(ec1, "ES256", kid="ec-1", sub="auth0|c01", typ="JWT"),
    "ops": sign(rsa1, "RS256", sub="auth0|ops-amina"),
    "ops_es256": sign(ec1, "ES256", kid="ec-1", sub="auth0|ops-amina"),
    "other_student": sign(rsa1, "RS256", sub="auth0|omar"),
    "by_id": sign(rsa1, "RS256", sub="S1003"),
    "unknown_sub": sign(rsa1, "RS256", sub="auth0|nobody"),
    "wrong_iss": sign(rsa1, "RS256", iss=issuer + "/other"),
    "wrong_aud": sign(rsa1, "RS256", aud="another-api"),
    "expired": sign(rsa1, "RS256", exp=now - 120),
    "expired_within_skew": sign(rsa1, "RS256", exp=now - 30),
    "not_yet_valid": sign(rsa1, "RS256", nbf=now + 120),
    "not_yet_within_skew": sign(rsa1, "RS256", nbf=now + 30),
    "no_exp": sign(rsa1, "RS256", exp=None),
    "alg_none": unsigned("none"),
    "hs256_with_public_key": confusion,
    "ps256_on_rs256_key": sign(rsa1, "PS256"),
    "no_kid": sign(rsa1, "RS256", kid=None),
    "unknown_kid": sign(stray, "RS256", kid="rsa-9"),
    "es256_claiming_rsa_kid": sign(ec1, "ES256", kid="rsa-1"),
    "bad_typ": sign(rsa1, "RS256", typ="id_token+jwt"),
    "wrong_key": sign(stray, "RS256", kid="rsa-1"),
    "rotated_rs256": sign(rsa2, "RS256", kid="rsa-2"),
    # Sign-out everywhere: one issued two seconds after NOW, and a coach's with no iat.
    "issued_later": sign(rsa1, "RS256", iat=now + 2),
    "coach_no_iat": sign(ec1, "ES256", kid="ec-1", sub="auth0|c01", typ="JWT", iat=None),
}
json.dump({"jwks": jwks, "jwks_rotated": jwks_rotated, "tokens": tokens}, sys.stdout)
