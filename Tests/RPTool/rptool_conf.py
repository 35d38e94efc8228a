# The RP test tool's configuration here: the vendored config.py with baseurl http://127.0.0.1
# (issuers are http://127.0.0.1:PORT/<rp_id>/<test_id>, loopback only).
from config import *  # noqa: F401,F403

baseurl = "http://127.0.0.1"
CHECK_SESSION_IFRAME = "{}:{{}}/<PATH>/check_session_iframe".format(baseurl)
