#!/usr/bin/env python3
"""Prints an HS256 token signed with the test key hs-2026-1 of keys.json, for the shell tests.

Usage: mint_token.py KEYS_JSON ROLE SUBJECT [EXTRA_CLAIMS_JSON [TTL_SECONDS]]
"""
import base64
import hashlib
import hmac
import json
import sys
import time

KID = "hs-2026-1"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main(argv):
    keys_path, role, subject = argv[1:4]
    extra = json.loads(argv[4]) if len(argv) > 4 and argv[4] else {}
    ttl = int(argv[5]) if len(argv) > 5 else 300
    keys = json.load(open(keys_path))["keys"]
    secret = next(k["secret"] for k in keys if k["kid"] == KID).encode()
    claims = {"role": role, "sub": subject, "exp": int(time.time()) + ttl}
    claims.update(extra)
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": KID}).encode())
    body = b64(json.dumps(claims).encode())
    sig = b64(hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest())
    print(f"{head}.{body}.{sig}")


if __name__ == "__main__":
    main(sys.argv)
