#!/usr/bin/env bash
# Test-only certificates for the TLS glewlwyd (start.sh with GLEWLWYD_TLS=1), made fresh with openssl:
#
#   bash Tests/Glewlwyd/tls-certificates.sh DIR
#
# DIR/ca.pem (+ ca.key): a test CA; DIR/server.pem + server.key: the server's certificate for
# 127.0.0.1 and localhost; DIR/client.pem + client.key: the MTLS client's certificate (SAN DNS
# mtls-client.test, what glewlwyd matches tls_client_auth on); DIR/other.pem + other.key: another
# client certificate from the same CA (SAN DNS other-client.test), for "refused with another
# certificate". EC P-256 keys, unencrypted, mode 0600; valid for 2 days. Never commit them.
set -euo pipefail
DIR=${1:?usage: tls-certificates.sh DIR}
mkdir -p "$DIR"
cd "$DIR"
umask 077
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -sha256 -days 2 -subj "/CN=swift-oidc-toolkit test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem 2>/dev/null
# issue NAME SUBJECT SAN EXTENDED-KEY-USAGE
issue() {
    key "$1.key"
    openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
    printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:FALSE\n' "$3" "$4" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -sha256 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
}
issue server "/CN=127.0.0.1" "IP:127.0.0.1,DNS:localhost" serverAuth
issue client "/CN=mtls-client.test" "DNS:mtls-client.test" clientAuth
issue other "/CN=other-client.test" "DNS:other-client.test" clientAuth
chmod 0644 ca.pem server.pem client.pem other.pem
echo "tls-certificates.sh: test CA and certificates in $DIR" >&2
