"""Django settings for the test OpenID Provider (django-oauth-toolkit).

Test-only: fixed SECRET_KEY, fast password hasher, SQLite under Tests/IdP/run/.
Environment knobs (all optional):
  IDP_SIGNING_KEY           PEM path of the active RSA signing key
                            (default: <repo>/Keys/rsa2048.pem)
  IDP_INACTIVE_KEYS         colon-separated PEM paths still published in the JWKS
  IDP_ACCESS_TOKEN_SECONDS  access token lifetime (default 3600)
  IDP_ID_TOKEN_SECONDS      ID token lifetime (default 3600)
  IDP_REFRESH_REUSE_PROTECTION  1 (default) / 0: revoke the whole refresh-token
                            family when a rotated-out refresh token is replayed
  IDP_ISSUER_OVERRIDE       if set, used verbatim as issuer (OIDC_ISS_ENDPOINT);
                            otherwise DOT derives it from the Host header
  IDP_EXTRA_SETTINGS_JSON   JSON object merged into OAUTH2_PROVIDER (escape hatch)
  IDP_DB                    SQLite path (default Tests/IdP/run/idp.sqlite3)
  IDP_PORT                  only used to make cookie names port-specific
"""

import json
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent  # Tests/IdP
REPO_ROOT = BASE_DIR.parent.parent
RUN_DIR = BASE_DIR / "run"


def _read_pem(path, what):
    p = Path(path)
    if not p.is_absolute():
        p = BASE_DIR / p
    try:
        return p.read_text()
    except OSError as e:
        raise RuntimeError(f"test IdP: cannot read {what} PEM {p}: {e}") from e


SIGNING_KEY_PATH = os.environ.get("IDP_SIGNING_KEY") or str(REPO_ROOT / "Keys" / "rsa2048.pem")
INACTIVE_KEY_PATHS = [p for p in os.environ.get("IDP_INACTIVE_KEYS", "").split(":") if p]

SECRET_KEY = "test-idp-not-secret-0123456789abcdefghijklmnopqrstuvwxyz"
DEBUG = os.environ.get("IDP_DEBUG", "0") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
    "idp",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

ROOT_URLCONF = "idp.urls"
WSGI_APPLICATION = "idp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "idp" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("IDP_DB") or str(RUN_DIR / "idp.sqlite3"),
        # Several gunicorn workers (and possibly several IdP instances on
        # different ports) share this file.
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
    }
}

PASSWORD_HASHERS = [
    "idp.hashers.FastPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = []

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/o/applications/"
_port = os.environ.get("IDP_PORT", "")
# Cookies ignore the port: keep parallel instances on 127.0.0.1 apart.
SESSION_COOKIE_NAME = f"idp_session{_port}"
CSRF_COOKIE_NAME = f"idp_csrftoken{_port}"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "oauth2_provider": {"level": os.environ.get("IDP_LOG_LEVEL", "INFO")},
        "oauthlib": {"level": os.environ.get("IDP_LOG_LEVEL", "INFO")},
    },
}

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _read_pem(SIGNING_KEY_PATH, "signing key"),
    "OIDC_RSA_PRIVATE_KEYS_INACTIVE": [_read_pem(p, "inactive key") for p in INACTIVE_KEY_PATHS],
    "OIDC_ISS_ENDPOINT": os.environ.get("IDP_ISSUER_OVERRIDE", ""),
    "OAUTH2_VALIDATOR_CLASS": "idp.validators.IdPValidator",
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Name claims",
        "email": "Email claims",
    },
    "DEFAULT_SCOPES": ["openid"],
    "PKCE_REQUIRED": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("IDP_ACCESS_TOKEN_SECONDS", "3600")),
    "ID_TOKEN_EXPIRE_SECONDS": int(os.environ.get("IDP_ID_TOKEN_SECONDS", "3600")),
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": os.environ.get("IDP_REFRESH_REUSE_PROTECTION", "1") == "1",
    # RP-initiated logout (end_session_endpoint /o/logout/). Tokens are kept on logout so that a
    # logout test does not revoke the logins of tests running alongside (DOT's default deletes them).
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS": False,
}
OAUTH2_PROVIDER.update(json.loads(os.environ.get("IDP_EXTRA_SETTINGS_JSON") or "{}"))
