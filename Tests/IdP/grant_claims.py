#!/usr/bin/env python3
"""Prints the OpenID `claims` request the provider stored with an authorization
code (django-oauth-toolkit keeps it in oauth2_provider_grant.claims as JSON), so
a test can check that the provider received the parameter intact.

    python3 Tests/IdP/grant_claims.py CODE     # exit 1 when no grant has CODE
"""
import os
import pathlib
import sqlite3
import sys

if len(sys.argv) != 2:
    print("usage: grant_claims.py CODE", file=sys.stderr)
    sys.exit(2)
db = os.environ.get("IDP_DB") or str(pathlib.Path(__file__).resolve().parent / "run" / "idp.sqlite3")
row = sqlite3.connect(db).execute("SELECT claims FROM oauth2_provider_grant WHERE code = ?", (sys.argv[1],)).fetchone()
if row is None:
    print("no grant with that code", file=sys.stderr)
    sys.exit(1)
print(row[0])
