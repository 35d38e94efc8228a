# The RP test tool's TLS instance (for WebFinger, whose query is always https): the vendored config.py with
# baseurl https://127.0.0.1 and the certificate start.sh makes for 127.0.0.1 (signed by its own test CA).
from config import *  # noqa: F401,F403

baseurl = "https://127.0.0.1"
CHECK_SESSION_IFRAME = "{}:{{}}/<PATH>/check_session_iframe".format(baseurl)
SERVER_CERT = "tls/server.crt"
SERVER_KEY = "tls/server.key"
CA_BUNDLE = None
