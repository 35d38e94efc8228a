"""Runs the vendored oidctest 0.8.2 RP test server (vendor/rp/server.py) under oic 1.1.0.

Usage (from the run directory start.sh prepares): python launcher.py SERVER_PY -f flows -p PORT rptool_conf

The vendored files stay unmodified; the API drifts between oidctest 0.8.2 and oic 1.1.0 are
bridged here, before server.py imports anything:
  1. server.py's provider imports a module-level oic.oic.provider.do_front_channel_logout_iframe
     (1.1.0 has it only as a static method of Provider);
  2. oidctest calls Provider.create_providerinfo(self, pcr_class, setup) (1.1.0 takes (self, setup));
  3. oidctest hands SessionDB a plain dict, while 1.1.0's end_session_endpoint calls
     sdb.get_uid_by_sub(), which only DictSessionBackend has (every logout would answer 500);
  4. oidctest's provider hands oic 1.1.0's PBase a boolean where a client certificate goes, so every
     request the tool itself makes (fetching a request_uri) passes `cert=True` to requests, which
     fails ("'bool' object is not subscriptable") and the authorization answers 500.
It also binds the server to 127.0.0.1 instead of 0.0.0.0.
"""
import runpy
import sys

import cherrypy
import oic.oauth2.base
import oic.oauth2.provider
import oic.oic.provider
import oic.utils.sdb
from oic.utils.session_backend import DictSessionBackend

# 1. The module-level function oidctest imports.
oic.oic.provider.do_front_channel_logout_iframe = oic.oic.provider.Provider.do_front_channel_logout_iframe

# 2. create_providerinfo(self, pcr_class, setup) -> create_providerinfo(self, setup).
_create_providerinfo = oic.oauth2.provider.Provider.create_providerinfo


def _create_providerinfo_bridge(self, *args, **kwargs):
    if len(args) == 2:
        return _create_providerinfo(self, args[1], **kwargs)
    kwargs.pop("pcr_class", None)
    return _create_providerinfo(self, *args, **kwargs)


oic.oic.provider.Provider.create_providerinfo = _create_providerinfo_bridge

# 3. A DictSessionBackend where oidctest passes an empty dict.
_create_session_db = oic.utils.sdb.create_session_db


def _create_session_db_bridge(base_url, secret, password, db=None, *args, **kwargs):
    if isinstance(db, dict) and not db:
        db = DictSessionBackend()
    return _create_session_db(base_url, secret, password, db, *args, **kwargs)


oic.utils.sdb.create_session_db = _create_session_db_bridge

# 4. No boolean client certificate in the tool's own requests.
_http_request = oic.oauth2.base.PBase.http_request


def _http_request_bridge(self, url, method="GET", **kwargs):
    if isinstance(self.request_args.get("cert"), bool):
        self.request_args = {name: value for name, value in self.request_args.items() if name != "cert"}
    return _http_request(self, url, method, **kwargs)


oic.oauth2.base.PBase.http_request = _http_request_bridge

# Loopback only.
_config_update = cherrypy.config.update


def _config_update_loopback(conf):
    if isinstance(conf, dict) and "server.socket_host" in conf:
        conf = dict(conf, **{"server.socket_host": "127.0.0.1"})
    return _config_update(conf)


cherrypy.config.update = _config_update_loopback

server = sys.argv[1]
sys.argv = [server] + sys.argv[2:]
runpy.run_path(server, run_name="__main__")
