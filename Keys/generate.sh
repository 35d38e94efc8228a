#!/usr/bin/env bash
# Regenerates every key in Keys/ with the openssl command line, then writes the
# JWK forms with Python's `cryptography` (installed on demand in a throwaway venv).
# These are PUBLIC TEST KEYS. Never use them for anything but tests and samples.
set -euo pipefail
cd "$(dirname "$0")"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa2048.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out rsa3072.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out p256.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out p384.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 -out p521.pem
openssl genpkey -algorithm ED25519 -out ed25519.pem
openssl genpkey -algorithm X25519 -out x25519.pem
for k in rsa2048 rsa3072 p256 p384 p521 ed25519 x25519; do
  openssl pkey -in "$k.pem" -pubout -out "$k.pub.pem"
done
# PKCS#1 / SEC1 ("traditional") forms of two keys, to exercise those PEM parsers.
openssl pkey -in rsa2048.pem -traditional -out rsa2048.pkcs1.pem
openssl pkey -in p256.pem -traditional -out p256.sec1.pem
# A self-signed certificate over the RSA key, for the X.509 PEM path.
openssl req -new -x509 -key rsa2048.pem -subj "/CN=jose-toolkit test key (not for production)" \
  -days 36500 -out rsa2048.cert.pem
# 64 random bytes: long enough for HS256, HS384 and HS512 (RFC 7518 §3.2).
openssl rand 64 > hmac.key
python3 jwkify.py
