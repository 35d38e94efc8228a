#!/usr/bin/env python3
"""A scripted Shared Signals transmitter (SSF 1.0, RFC 8935 push, RFC 8936 poll) for the tests (standard library and
the `openssl` command only). PUBLIC TEST KEYS: it signs with Keys/rsa2048.pem, which anyone can use.

    python3 transmitter.py [--ports 19600-19699] [--token mgmt-token]

Binds 127.0.0.1 on the first free port of the range, prints the port on stdout, serves until stdin closes. Its issuer is
http://127.0.0.1:PORT.

Transmitter endpoints (SSF 1.0 §7-8), management ones requiring `Authorization: Bearer TOKEN` (else 401):
  GET  /.well-known/ssf-configuration      issuer, jwks_uri, delivery methods, the endpoints below
  GET  /jwks                               the RSA-2048 test key (kid rsa2048-t7tSXKgx)
  POST|GET|PATCH|PUT|DELETE /streams       stream CRUD (?stream_id= for GET and DELETE; GET without it: the list of
                                           streams); POST answers 409 when one exists
  GET|POST /status                         stream status; a change emits an SSF stream-updated SET
  POST /subjects:add, /subjects:remove     subjects ({"stream_id", "subject"}), recorded
  POST /verify                             emits an SSF verification SET with the request's state
  POST /poll/STREAM_ID                     RFC 8936: ack, setErrs, maxEvents, returnImmediately -> sets, moreAvailable
  POST /token                              an OAuth token endpoint for the receiver's client_credentials grant
                                           (client_secret_basic rp / rp-secret): answers the management token
Test controls (no authorization):
  POST /control/sign   {"events": {...}, "sub_id": {...}, "claims": {...}, "header": {...}, "drop": [...], "key": "rsa3072"}
                       -> {"set": TOKEN, "jti": JTI} (claims default: iss, aud of the stream or "aud", iat now, fresh jti)
  POST /control/emit   the same, then delivered by the stream's method: push (sent to the stream's endpoint_url with its
                       authorization_header, unless "dry": true, which answers the request it would send as
                       {"url", "headers", "body"}; every push request is also kept in the log's "pushed"), or queued for the poll endpoint; -> {"jti", "status"?, "request"?}
  POST /control/fail-poll {"status": 503, "retry_after": "7", "times": 1}: the next polls answer that status
  GET  /control/log    {"acks": [...], "set_errs": {...}, "subjects": [...], "stream": {...}|null, "queued": N, "polls": N}
"""
import argparse, base64, http.server, json, os, socket, subprocess, sys, threading, time, urllib.parse, urllib.request, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = os.path.join(HERE, "..", "..", "Keys")
LOCK = threading.Lock()
STATE = {"stream": None, "status": "enabled", "queue": [], "acks": [], "set_errs": {}, "subjects": [], "fail": None, "polls": 0}
CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
RISC = "https://schemas.openid.net/secevent/risc/event-type/"
SSF = "https://schemas.openid.net/secevent/ssf/event-type/"
SUPPORTED = [CAEP + n for n in ("session-revoked", "token-claims-change", "credential-change", "assurance-level-change",
                                "device-compliance-change")] + \
            [RISC + n for n in ("account-disabled", "account-enabled", "account-purged", "identifier-changed",
                                "credential-compromise")] + [SSF + "verification", SSF + "stream-updated"]


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def kid_of(name):
    with open(os.path.join(KEYS, name + ".pub.jwk")) as f:
        return json.load(f)["kid"]


def sign(claims, header, key="rsa2048"):
    head = {"alg": "RS256", "typ": "secevent+jwt", "kid": kid_of(key)}
    head.update(header)
    head = {k: v for k, v in head.items() if v is not None}
    signing_input = b64(json.dumps(head).encode()) + "." + b64(json.dumps(claims).encode())
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", os.path.join(KEYS, key + ".pem")],
                               input=signing_input.encode(), capture_output=True, check=True).stdout
    return signing_input + "." + b64(signature)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    @property
    def issuer(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def answer(self, status, body=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        raw = self.raw
        return json.loads(raw) if raw else {}

    def authorized(self):
        if self.headers.get("Authorization") == "Bearer " + self.server.token:
            return True
        self.answer(401, {"error": "invalid_token"}, {"WWW-Authenticate": "Bearer"})
        return False

    def route(self, method):
        # The whole body is read first, whatever the answer: on a kept-alive connection an unread body would be taken
        # for the next request.
        length = int(self.headers.get("Content-Length") or 0)
        self.raw = self.rfile.read(length) if length else b""
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        path = url.path
        if path == "/.well-known/ssf-configuration" and method == "GET":
            base = self.issuer
            config = {"issuer": base, "jwks_uri": base + "/jwks", "spec_version": "1_0",
                      "delivery_methods_supported": ["urn:ietf:rfc:8935", "urn:ietf:rfc:8936"],
                      "configuration_endpoint": base + "/streams", "status_endpoint": base + "/status",
                      "add_subject_endpoint": base + "/subjects:add", "remove_subject_endpoint": base + "/subjects:remove",
                      "verification_endpoint": base + "/verify", "authorization_schemes": [{"spec_urn": "urn:ietf:rfc:6750"}]}
            config.update(self.server.overrides)
            return self.answer(200, config)
        if path == "/token" and method == "POST":  # the receiver's own client_credentials grant (rp / rp-secret)
            form = dict(urllib.parse.parse_qsl(self.raw.decode()))
            expected = "Basic " + base64.b64encode(b"rp:rp-secret").decode()
            if self.headers.get("Authorization") != expected or form.get("grant_type") != "client_credentials":
                return self.answer(401, {"error": "invalid_client"})
            with LOCK:
                STATE["token_requests"] = STATE.get("token_requests", 0) + 1
            return self.answer(200, {"access_token": self.server.token, "token_type": "Bearer", "expires_in": 300})
        if path == "/jwks" and method == "GET":
            with open(os.path.join(KEYS, "rsa2048.pub.jwk")) as f:
                return self.answer(200, {"keys": [json.load(f)]})
        if path.startswith("/control/"):
            return self.control(path[len("/control/"):], method)
        if path == "/streams":
            if not self.authorized():
                return
            return self.streams(method, query)
        if path == "/status":
            if not self.authorized():
                return
            return self.status(method, query)
        if path in ("/subjects:add", "/subjects:remove") and method == "POST":
            if not self.authorized():
                return
            body = self.body()
            if not self.known(body.get("stream_id")):
                return
            if not isinstance(body.get("subject"), dict):
                return self.answer(400, {"error": "invalid_request"})
            with LOCK:
                STATE["subjects"].append({"op": path[len("/subjects:"):], "subject": body["subject"]})
            return self.answer(200)
        if path == "/verify" and method == "POST":
            if not self.authorized():
                return
            body = self.body()
            if not self.known(body.get("stream_id")):
                return
            event = {"state": body["state"]} if "state" in body else {}
            self.deliver(self.make({"events": {SSF + "verification": event},
                                    "sub_id": {"format": "opaque", "id": body["stream_id"]}}), dry=False)
            return self.answer(204)
        if path.startswith("/poll/") and method == "POST":
            if not self.authorized():
                return
            return self.poll(path[len("/poll/"):])
        return self.answer(404, {"error": "not_found"})

    def known(self, stream_id):
        stream = STATE["stream"]
        if stream is None or stream_id != stream["stream_id"]:
            self.answer(404, {"error": "not_found"})
            return False
        return True

    def streams(self, method, query):
        with LOCK:
            stream = STATE["stream"]
        if method == "POST":
            body = self.body()
            if stream is not None:
                return self.answer(409, {"error": "conflict"})
            delivery = body.get("delivery") or {}
            if delivery.get("method") not in ("urn:ietf:rfc:8935", "urn:ietf:rfc:8936"):
                return self.answer(400, {"error": "invalid_request"})
            stream_id = uuid.uuid4().hex
            if delivery["method"] == "urn:ietf:rfc:8936":
                delivery = {"method": delivery["method"], "endpoint_url": self.issuer + "/poll/" + stream_id}
            requested = body.get("events_requested") or []
            stream = {"stream_id": stream_id, "iss": self.issuer, "aud": body.get("aud", "receiver"), "delivery": delivery,
                      "events_requested": requested, "events_supported": SUPPORTED,
                      "events_delivered": [e for e in requested if e in SUPPORTED],
                      "description": body.get("description")}
            with LOCK:
                STATE["stream"] = stream
                STATE["status"] = "enabled"
            return self.answer(201, stream)
        if method == "GET" and "stream_id" not in query:  # SSF 1.0 §8.1.1.2: every stream of the receiver, a list
            return self.answer(200, [stream] if stream is not None else [])
        if stream is None or query.get("stream_id", stream["stream_id"]) != stream["stream_id"]:
            return self.answer(404, {"error": "not_found"})
        if method == "GET":
            return self.answer(200, stream)
        if method == "DELETE":
            with LOCK:
                STATE["stream"] = None
                STATE["queue"] = []
            return self.answer(204)
        body = self.body()
        if body.get("stream_id") != stream["stream_id"]:
            return self.answer(404, {"error": "not_found"})
        if method == "PATCH":
            updated = dict(stream)
            for name in ("events_requested", "description", "delivery"):
                if name in body:
                    updated[name] = body[name]
        elif method == "PUT":
            updated = {"stream_id": stream["stream_id"], "iss": stream["iss"], "aud": stream["aud"],
                       "delivery": body.get("delivery", stream["delivery"]), "events_supported": SUPPORTED,
                       "events_requested": body.get("events_requested") or [], "description": body.get("description")}
        else:
            return self.answer(405, {"error": "method_not_allowed"})
        updated["events_delivered"] = [e for e in updated.get("events_requested") or [] if e in SUPPORTED]
        with LOCK:
            STATE["stream"] = updated
        return self.answer(200, updated)

    def status(self, method, query):
        stream = STATE["stream"]
        if method == "GET":
            if stream is None or query.get("stream_id") != stream["stream_id"]:
                return self.answer(404, {"error": "not_found"})
            return self.answer(200, {"stream_id": stream["stream_id"], "status": STATE["status"]})
        body = self.body()
        if not self.known(body.get("stream_id")):
            return
        if body.get("status") not in ("enabled", "paused", "disabled"):
            return self.answer(400, {"error": "invalid_request"})
        with LOCK:
            STATE["status"] = body["status"]
        event = {"status": body["status"]}
        if body.get("reason"):
            event["reason"] = body["reason"]
        self.deliver(self.make({"events": {SSF + "stream-updated": event},
                                "sub_id": {"format": "opaque", "id": stream["stream_id"]}}), dry=False)
        answer = {"stream_id": stream["stream_id"], "status": body["status"]}
        if body.get("reason"):
            answer["reason"] = body["reason"]
        return self.answer(200, answer)

    def poll(self, stream_id):
        stream = STATE["stream"]
        if stream is None or stream["stream_id"] != stream_id:
            return self.answer(404, {"error": "not_found"})
        body = self.body()
        with LOCK:
            STATE["polls"] += 1
            fail = STATE["fail"]
            if fail and fail["times"] > 0:
                fail["times"] -= 1
                headers = {"Retry-After": fail["retry_after"]} if fail.get("retry_after") else {}
                return self.answer(fail["status"], {"error": "temporarily_unavailable"}, headers)
            for jti in body.get("ack") or []:
                STATE["acks"].append(jti)
                STATE["queue"] = [q for q in STATE["queue"] if q[0] != jti]
            for jti, err in (body.get("setErrs") or {}).items():
                STATE["set_errs"][jti] = err
                STATE["queue"] = [q for q in STATE["queue"] if q[0] != jti]
            limit = body.get("maxEvents", 100)
            pending = STATE["queue"][:limit]
            more = len(STATE["queue"]) > len(pending)
        return self.answer(200, {"sets": {jti: token for jti, token in pending}, "moreAvailable": more})

    def make(self, spec):
        stream = STATE["stream"]
        now = int(time.time())
        claims = {"iss": self.issuer, "jti": uuid.uuid4().hex, "iat": now,
                  "aud": (stream or {}).get("aud", "receiver")}
        if "sub_id" in spec:
            claims["sub_id"] = spec["sub_id"]
        claims["events"] = spec["events"] if "events" in spec else {CAEP + "session-revoked": {}}
        claims.update(spec.get("claims") or {})
        for name in spec.get("drop") or []:
            claims.pop(name, None)
        return claims.get("jti"), sign(claims, spec.get("header") or {}, spec.get("key", "rsa2048"))

    def deliver(self, made, dry):
        jti, token = made
        stream = STATE["stream"]
        if stream is None:
            return {"jti": jti}
        delivery = stream["delivery"]
        if delivery["method"] == "urn:ietf:rfc:8936":
            with LOCK:
                STATE["queue"].append((jti, token))
            return {"jti": jti, "queued": True}
        headers = {"Content-Type": "application/secevent+jwt", "Accept": "application/json"}
        if delivery.get("authorization_header"):
            headers["Authorization"] = delivery["authorization_header"]
        with LOCK:
            STATE.setdefault("pushed", []).append({"url": delivery.get("endpoint_url"), "headers": headers, "body": token})
        if dry or not delivery.get("endpoint_url"):
            return {"jti": jti, "request": {"url": delivery.get("endpoint_url"), "headers": headers, "body": token}}
        request = urllib.request.Request(delivery["endpoint_url"], data=token.encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return {"jti": jti, "status": response.status, "body": response.read().decode()}
        except urllib.error.HTTPError as error:
            return {"jti": jti, "status": error.code, "body": error.read().decode()}
        except Exception as error:  # the receiver is down: reported, not fatal
            return {"jti": jti, "status": 0, "body": str(error)}

    def control(self, name, method):
        if name == "log" and method == "GET":
            with LOCK:
                return self.answer(200, {"acks": STATE["acks"], "set_errs": STATE["set_errs"], "subjects": STATE["subjects"],
                                         "stream": STATE["stream"], "queued": len(STATE["queue"]), "polls": STATE["polls"],
                                         "status": STATE["status"], "pushed": STATE.get("pushed", []),
                                         "token_requests": STATE.get("token_requests", 0)})
        body = self.body()
        if name == "sign":
            jti, token = self.make(body)
            return self.answer(200, {"set": token, "jti": jti})
        if name == "emit":
            return self.answer(200, self.deliver(self.make(body), dry=body.get("dry", False)))
        if name == "fail-poll":
            with LOCK:
                STATE["fail"] = {"status": body.get("status", 503), "retry_after": body.get("retry_after"), "times": body.get("times", 1)}
            return self.answer(200, {})
        if name == "configuration":
            self.server.overrides.update(body)
            return self.answer(200, {})
        return self.answer(404, {"error": "not_found"})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PATCH(self):
        self.route("PATCH")

    def do_PUT(self):
        self.route("PUT")

    def do_DELETE(self):
        self.route("DELETE")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ports", default="19600-19699")
    parser.add_argument("--token", default="mgmt-token")
    args = parser.parse_args()
    low, high = (int(p) for p in args.ports.split("-"))
    server = None
    for port in range(low, high + 1):
        try:
            server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
            break
        except OSError:
            continue
    if server is None:
        sys.exit("no free port in %s" % args.ports)
    server.token = args.token
    server.overrides = {}
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
