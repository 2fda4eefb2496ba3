#!/bin/bash
# tests/run-watch-tls.sh: `go-heap watch --web.config.file` (issue 26): TLS, mutual TLS, basic auth,
# the rate limit and headers of the Prometheus exporter-toolkit's web configuration, against
# real clients: python3's ssl (OpenSSL) and Debian's Prometheus.
#
#   - a CA, a server certificate (SAN IP:127.0.0.1), a client certificate, a client certificate
#     of another CA, an expired client certificate and a second server certificate, all made here
#     with `openssl`; a bcrypt hash made with libxcrypt (python3 ctypes);
#   - TLS: https /metrics with the CA is 200; plain HTTP to the TLS port gets Go's "400 ... HTTP
#     request to an HTTPS server" and no metrics; TLS 1.1 is refused, 1.2 and 1.3 are served;
#     min_version TLS13 refuses 1.2;
#   - mutual TLS (RequireAndVerifyClientCert): refused without a client certificate, with one of
#     another CA and with an expired one (the log says why each time), served with the right one;
#   - basic auth: no credentials 401 with WWW-Authenticate: Basic, wrong password 401, unknown user
#     401, right 200; the configured headers on every answer; rate_limit: a burst past it is 429;
#   - configuration errors (unknown keys, a bad client_auth_type, a missing certificate, malformed
#     YAML, a bad hash, a header the toolkit does not allow, ...): exit 2 with one line naming the
#     key;
#   - a certificate replaced on disk is served to the next connection, no restart; a broken one is
#     not loaded (the previous stays, the log says why);
#   - 500 silent connections, 500 half ClientHellos and 100 finished handshakes held open do not
#     delay https /metrics beyond 1 s (five tries, handshake and total timed); the TLS memory per
#     connection as go_heap_watch_connection_memory_bytes reports it;
#   - Prometheus scrapes over https with mutual TLS and basic auth: up, counters increasing; jobs
#     with a wrong password, no client certificate, an expired one are down and go-heap's log says
#     why;
#   - valgrind memcheck on the TLS path (handshakes good and bad, 401, SIGTERM): no errors, nothing
#     definitely lost; in the sanitizer build (--enable-sanitizers) valgrind is skipped and every
#     exporter's log is checked for ASan/UBSan/LeakSanitizer reports instead.
# Everything listens on 127.0.0.1; every wait is bounded.
# Environment: as tests/run-watch.sh.  Output: PASS:/FAIL:/SKIP: lines, then the counts.
set -u
. "$(dirname "$0")/lib.sh"
gh_init

gh_need_python
if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP is not built"
	gh_summary
fi
if ! command -v openssl >/dev/null 2>&1; then
	gh_skip "all: openssl (the command) is not installed: scripts/install-deps.sh"
	gh_summary
fi
d="$GH_TMP/tls"
mkdir -p "$d"
: >"$d/empty.yml"
if "$GH_GOHEAP" watch --listen 127.0.0.1:0 --web.config.file "$d/empty.yml" --help >/dev/null 2>&1 &&
	! timeout 5 "$GH_GOHEAP" watch --listen 127.0.0.1:0 --web.config.file /nonexistent 2>&1 |
		grep -q 'built without'; then
	:
else
	gh_skip "all: this go-heap was built without --web.config.file (libssl-dev libyaml-dev libcrypt-dev)"
	gh_summary
fi
GOHEAP_GO_VERSIONS=${GOHEAP_WATCH_GO:-${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}}
gh_toolchains >/dev/null
if [ "${#GH_GO_NAMES[@]}" -eq 0 ]; then
	gh_skip "all: no Go toolchain installed"
	gh_summary
fi
last=$((${#GH_GO_NAMES[@]} - 1))
if ! wbin=$(gh_build watchprog "${GH_GO_NAMES[$last]}" "${GH_GO_ROOTS[$last]}" default 2>"$GH_TMP/build.err"); then
	gh_fail "build watchprog"
	gh_show "$GH_TMP/build.err" 20
	gh_summary
fi
gh_start "$wbin" -rate 1048576 2>"$GH_TMP/start.err" || { gh_fail "watchprog: $(cat "$GH_TMP/start.err")"; gh_summary; }
W1=$GH_PID
if ! gh_can_read_mem "$W1"; then
	gh_skip "all: cannot read the targets' memory (ptrace is restricted)"
	gh_summary
fi

# ---- certificates and a password ---------------------------------------------------------------
ossl() { openssl "$@" >>"$d/openssl.log" 2>&1; }
mkkey() { ossl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$d/$1.key"; }
# mkcert NAME CN CA DAYS [EXT]: a certificate for NAME.key signed by CA (ca, ca2)
mkcert() {
	mkkey "$1" && ossl req -new -key "$d/$1.key" -out "$d/$1.csr" -subj "/CN=$2" &&
		ossl x509 -req -in "$d/$1.csr" -CA "$d/$3.crt" -CAkey "$d/$3.key" -CAcreateserial \
			-out "$d/$1.crt" -days "$4" ${5:+-extfile "$d/$5"}
}
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$d/server.ext"
printf 'extendedKeyUsage=clientAuth\n' >"$d/client.ext"
if mkkey ca && ossl req -x509 -new -key "$d/ca.key" -out "$d/ca.crt" -days 30 -subj /CN=go-heap-test-ca &&
	mkkey ca2 && ossl req -x509 -new -key "$d/ca2.key" -out "$d/ca2.crt" -days 30 -subj /CN=other-ca &&
	mkcert server server-one ca 30 server.ext && mkcert server2 server-two ca 30 server.ext &&
	mkcert client prometheus ca 30 client.ext && mkcert evil prometheus ca2 30 client.ext &&
	mkcert expired prometheus ca -1 client.ext; then
	gh_pass "openssl: a CA, two server certificates, client certificates (good, other CA, expired)"
else
	gh_fail "openssl: could not make the test certificates"
	gh_show "$d/openssl.log" 10
	gh_summary
fi
cp "$d/server.crt" "$d/live.crt"
cp "$d/server.key" "$d/live.key"
HASH=$(python3 - <<'PY'
import ctypes
lc = ctypes.CDLL("libcrypt.so.1")
lc.crypt_gensalt.restype = ctypes.c_char_p
lc.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
lc.crypt.restype = ctypes.c_char_p
lc.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
print(lc.crypt(b"s3cret", lc.crypt_gensalt(b"$2y$", 10, None, 0)).decode())
PY
)
case $HASH in
'$2y$10$'*) ;;
*) gh_fail "bcrypt: libxcrypt gave '$HASH'"; gh_summary ;;
esac

# ---- the client ------------------------------------------------------------------------------
cat >"$d/tlsc.py" <<'PY'
import hashlib, http.client, re, resource, socket, ssl, sys, time, base64

def ctx_for(a):
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    c.load_verify_locations(a.get("ca"))
    c.check_hostname = False          # the chain is verified, not the name
    if a.get("cert"):
        c.load_cert_chain(a["cert"], a["key"])
    v = a.get("tls")
    if v:
        ver = {"1.1": ssl.TLSVersion.TLSv1_1, "1.2": ssl.TLSVersion.TLSv1_2,
               "1.3": ssl.TLSVersion.TLSv1_3}[v]
        if v == "1.1":
            c.set_ciphers("DEFAULT:@SECLEVEL=0")
        c.minimum_version = ver
        c.maximum_version = ver
    return c

def get(host, port, a, path="/metrics"):
    """(status, headers, body, version, cert sha256, handshake s, total s) or raises"""
    t0 = time.monotonic()
    s = socket.create_connection((host, port), timeout=10)
    ts = ctx_for(a).wrap_socket(s, server_hostname=None)
    th = time.monotonic() - t0
    ver = ts.version()
    fp = hashlib.sha256(ts.getpeercert(binary_form=True)).hexdigest()[:16]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.sock = ts
    h = {}
    if a.get("user") is not None:
        h["Authorization"] = "Basic " + base64.b64encode(("%s:%s" % (a["user"], a["pass"])).encode()).decode()
    conn.request("GET", path, headers=h)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, r.headers, body, ver, fp, th, time.monotonic() - t0

def opts(argv):
    a = {}
    for x in argv:
        k, _, v = x.partition("=")
        a[k] = v
    return a

cmd, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
a = opts(sys.argv[4:])
if cmd == "get":
    # prints: STATUS VERSION CERT WWW-Authenticate=... X-Frame-Options=... BODYLEN, or ERR reason
    try:
        st, h, body, ver, fp, th, tt = get(host, port, a, a.get("path", "/metrics"))
        print(st, ver, fp, "www=%s" % h.get("WWW-Authenticate", "-"),
              "xfo=%s" % h.get("X-Frame-Options", "-"), "len=%d" % len(body),
              "metrics=%d" % body.count(b"container_go_alloc_bytes_total"))
    except Exception as e:
        print("ERR", type(e).__name__, str(e).replace("\n", " ")[:200])
elif cmd == "plain":
    try:
        s = socket.create_connection((host, port), timeout=10)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            try:
                b = s.recv(65536)
            except OSError:
                break
            if not b:
                break
            data += b
        print(repr(data[:200].decode("latin-1")), "metrics=%d" % data.count(b"container_go"))
    except Exception as e:
        print("ERR", e)
elif cmd == "burst":
    # n requests as fast as possible: the statuses in order
    out = []
    for i in range(int(a["n"])):
        try:
            out.append(str(get(host, port, a)[0]))
        except Exception as e:
            out.append("ERR")
    print(" ".join(out))
elif cmd == "flood":
    # hold nsilent TCP connections that send nothing, nhalf that send half a ClientHello,
    # ndone that finish a handshake and send nothing, each group alone (closed, and the
    # exporter's count back, before the next: the exporter drops a connection that sends no
    # request for 10 s, which a loaded machine's flood outlasts), GET /metrics before and after
    # each and read the exporter's connection figures; then all three groups held at once and
    # `tries` timed GETs.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = int(a["nsilent"]) + int(a["nhalf"]) + int(a["ndone"]) + 64
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    noverify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    noverify.check_hostname = False
    noverify.verify_mode = ssl.CERT_NONE
    inc, outb = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = noverify.wrap_bio(inc, outb)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outb.read()
    half = hello[:len(hello) // 2]
    held = []
    def figures(tag):
        st, h, body, ver, fp, th, tt = get(host, port, a)
        m = lambda n: float(re.search(rb"^%s (\S+)$" % n.encode(), body, re.M).group(1))
        print("%s conns %d mem %d" % (tag, m("go_heap_watch_connections"), m("go_heap_watch_connection_memory_bytes")))
    def conns():
        st, h, body, ver, fp, th, tt = get(host, port, a)
        return int(float(re.search(rb"^go_heap_watch_connections (\S+)$", body, re.M).group(1)))
    def silent():
        held.append(socket.create_connection((host, port), timeout=60))
    def halfsent():
        s = socket.create_connection((host, port), timeout=60)
        s.sendall(half)
        held.append(s)
    def done():
        s = socket.create_connection((host, port), timeout=60)
        held.append(ctx_for(a).wrap_socket(s))
    groups = (("silent", "nsilent", silent), ("half", "nhalf", halfsent), ("done", "ndone", done))
    for k, (tag, n, make) in enumerate(groups):
        # back to the base count (the previous group's connections closed), then this group
        t_end = time.monotonic() + 120
        while k > 0 and conns() > 1 and time.monotonic() < t_end:
            time.sleep(0.25)
        figures("base" if k == 0 else "base%d" % k)
        for i in range(int(a[n])):
            make()
        time.sleep(0.3)
        figures(tag)
        for s in held:
            s.close()
        held = []
    # all of them at once for the timed GETs
    for tag, n, make in groups:
        for i in range(int(a[n])):
            make()
    time.sleep(0.3)
    for k in range(int(a["tries"])):
        try:
            st, h, body, ver, fp, th, tt = get(host, port, a)
            print("try %d %d handshake %.3f total %.3f" % (k, st, th, tt))
        except Exception as e:
            print("try %d ERR %s" % (k, e))
        time.sleep(0.1)
    for s in held:
        s.close()
PY
tc() { python3 -W ignore "$d/tlsc.py" "$@"; }
CA="ca=$d/ca.crt"
CLIENT="cert=$d/client.crt key=$d/client.key"

# start_watch NAME CONFIG [ARGS...]: a go-heap watch on 127.0.0.1:0 watching W1 with that web
# configuration; sets WPID, WADDR, WPORT.  1 (FAIL printed) if it does not listen within 10 s.
start_watch() {
	local name=$1 cfg=$2
	shift 2
	"$GH_GOHEAP" watch --interval 1s --listen 127.0.0.1:0 --web.config.file "$cfg" "$@" "$W1" \
		>"$d/$name.out" 2>"$d/$name.err" </dev/null &
	WPID=$!
	GH_PIDS+=("$WPID")
	if ! gh_wait_for 10 grep -qs 'listening on' "$d/$name.err"; then
		gh_fail "$name: no 'listening on' line within 10 s"
		gh_show "$d/$name.err" 5
		return 1
	fi
	WADDR=$(sed -n 's/.*listening on //p' "$d/$name.err" | head -n 1)
	WPORT=${WADDR##*:}
	return 0
}
has_metrics() { case $(tc get 127.0.0.1 "$WPORT" "$@") in *metrics=[1-9]*) return 0 ;; esac; return 1; }

# ---- TLS ---------------------------------------------------------------------------------------
cat >"$d/tls.yml" <<EOF
tls_server_config:
  cert_file: live.crt
  key_file: live.key
http_server_config:
  headers:
    X-Frame-Options: deny
EOF
if start_watch tls "$d/tls.yml"; then
	if gh_wait_for 20 has_metrics "$CA"; then
		r=$(tc get 127.0.0.1 "$WPORT" "$CA")
		case $r in
		"200 "*xfo=deny*metrics=[1-9]*) gh_pass "tls: https /metrics with the CA: $r" ;;
		*) gh_fail "tls: https /metrics: '$r'" ;;
		esac
	else
		gh_fail "tls: no container_go_alloc_bytes_total over https within 20 s: $(tc get 127.0.0.1 "$WPORT" "$CA")"
		gh_show "$d/tls.err" 5
	fi
	r=$(tc plain 127.0.0.1 "$WPORT")
	case $r in
	*"400 Bad Request"*"HTTP request to an HTTPS server"*metrics=0) gh_pass "tls: plain HTTP to the TLS port: $r" ;;
	*) gh_fail "tls: plain HTTP to the TLS port answered '$r'" ;;
	esac
	r12=$(tc get 127.0.0.1 "$WPORT" "$CA" tls=1.2)
	r13=$(tc get 127.0.0.1 "$WPORT" "$CA" tls=1.3)
	r11=$(tc get 127.0.0.1 "$WPORT" "$CA" tls=1.1)
	case "$r12|$r13" in
	"200 TLSv1.2 "*"|200 TLSv1.3 "*) gh_pass "tls: TLS 1.2 and 1.3 served" ;;
	*) gh_fail "tls: TLS 1.2 '$r12', TLS 1.3 '$r13'" ;;
	esac
	case $r11 in
	ERR*)
		if grep -q 'TLS handshake failed: unsupported protocol' "$d/tls.err"; then
			gh_pass "tls: TLS 1.1 refused (client: ${r11:0:80}; log: $(grep -m1 'unsupported protocol' "$d/tls.err" | sed 's/.*: TLS/TLS/'))"
		elif grep -q 'NO_PROTOCOLS_AVAILABLE\|no protocols available' <<<"$r11"; then
			gh_skip "tls: TLS 1.1: this python3/OpenSSL cannot offer TLS 1.1 ($r11)"
		else
			gh_fail "tls: TLS 1.1 failed, but not for the server's refusal: '$r11'"
			gh_show "$d/tls.err" 5
		fi ;;
	*) gh_fail "tls: TLS 1.1 served: '$r11'" ;;
	esac

	# ---- rotation: a new certificate for the next connection ------------------------------
	fp1=$(tc get 127.0.0.1 "$WPORT" "$CA" | cut -d' ' -f3)
	cp "$d/server2.key" "$d/live.key.new"
	cp "$d/server2.crt" "$d/live.crt.new"
	mv "$d/live.key.new" "$d/live.key"
	mv "$d/live.crt.new" "$d/live.crt"
	r=$(tc get 127.0.0.1 "$WPORT" "$CA")
	fp2=$(cut -d' ' -f3 <<<"$r")
	want2=$(openssl x509 -in "$d/server2.crt" -outform der | sha256sum | cut -c1-16)
	if [ "${r%% *}" = 200 ] && [ "$fp2" = "$want2" ] && [ "$fp1" != "$fp2" ]; then
		gh_pass "rotation: a certificate replaced on disk is served to the next connection ($fp1 -> $fp2), no restart"
	else
		gh_fail "rotation: after the replacement the server presented $fp2 (want $want2, was $fp1): '$r'"
	fi
	# A broken replacement is not loaded: the previous certificate stays.
	echo "not a certificate" >"$d/live.crt"
	r=$(tc get 127.0.0.1 "$WPORT" "$CA")
	if [ "$(cut -d' ' -f3 <<<"$r")" = "$want2" ] && grep -q 'not reloaded, the previous configuration stays: tls_server_config.cert_file' "$d/tls.err"; then
		gh_pass "rotation: a broken certificate file is not loaded, the previous one is served ($(grep -m1 'not reloaded' "$d/tls.err" | sed 's/.*stays: //'))"
	else
		gh_fail "rotation: with a broken certificate file: '$r'"
		gh_show "$d/tls.err" 5
	fi
	cp "$d/server.crt" "$d/live.crt"
	cp "$d/server.key" "$d/live.key"
	gh_stop "$WPID"
fi

# min_version TLS13
cat >"$d/tls13.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  min_version: TLS13
EOF
if start_watch tls13 "$d/tls13.yml"; then
	r12=$(tc get 127.0.0.1 "$WPORT" "$CA" tls=1.2 path=/)
	r13=$(tc get 127.0.0.1 "$WPORT" "$CA" tls=1.3 path=/)
	case "$r12|$r13" in
	"ERR"*"|200 TLSv1.3"*) gh_pass "tls: min_version TLS13 refuses TLS 1.2 (${r12:0:70}), serves 1.3" ;;
	*) gh_fail "tls: min_version TLS13: TLS 1.2 '$r12', TLS 1.3 '$r13'" ;;
	esac
	gh_stop "$WPID"
fi

# ---- mutual TLS and basic auth -----------------------------------------------------------------
cat >"$d/mtls.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
basic_auth_users:
  alice: '$HASH'
rate_limit:
  interval: 100ms
  burst: 50
EOF
if start_watch mtls "$d/mtls.yml" -v; then
	AUTH="user=alice pass=s3cret"
	if ! gh_wait_for 20 has_metrics "$CA" $CLIENT $AUTH; then
		gh_fail "mtls: no metrics with the client certificate and the password: $(tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT $AUTH)"
		gh_show "$d/mtls.err" 5
	else
		gh_pass "mtls: the client certificate and the password: $(tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT $AUTH)"
	fi
	for case_ in "nocert|$CA|peer did not return a certificate" \
		"otherca|$CA cert=$d/evil.crt key=$d/evil.key|certificate verify failed (client certificate: unable to get local issuer certificate)" \
		"expired|$CA cert=$d/expired.crt key=$d/expired.key|certificate verify failed (client certificate: certificate has expired)"; do
		IFS='|' read -r what args why <<<"$case_"
		# shellcheck disable=SC2086
		r=$(tc get 127.0.0.1 "$WPORT" $args $AUTH)
		if [ "${r%% *}" = ERR ] && gh_wait_for 2 grep -aqF "$why" "$d/mtls.err"; then
			gh_pass "mtls: $what refused (client: ${r:0:60}...; log: $why)"
		else
			gh_fail "mtls: $what: '$r'"
			gh_show "$d/mtls.err" 5
		fi
	done
	r1=$(tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT path=/)
	r2=$(tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT user=alice pass=wrong)
	r3=$(tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT user=bob pass=s3cret)
	r4=$(tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT $AUTH path=/pprof/$W1/heap)
	case "$r1|$r2|$r3" in
	"401 "*"www=Basic"*"len=13 "*"|401 "*"www=Basic"*"|401 "*"www=Basic"*)
		if grep -q '401: no credentials' "$d/mtls.err" && grep -q "401: wrong password for user 'alice'" "$d/mtls.err" &&
			grep -q "401: unknown user 'bob'" "$d/mtls.err" && [ "${r4%% *}" = 200 ]; then
			gh_pass "basic auth: no credentials, a wrong password, an unknown user: 401 with WWW-Authenticate: Basic (logged); the right one 200 (also /pprof/PID/heap)"
		else
			gh_fail "basic auth: the log lacks the reasons, or /pprof answered '$r4'"
			gh_show "$d/mtls.err" 8
		fi ;;
	*) gh_fail "basic auth: '$r1' '$r2' '$r3'" ;;
	esac

	# ---- idle connections and stalled handshakes ------------------------------------------
	tc flood 127.0.0.1 "$WPORT" "$CA" $CLIENT $AUTH nsilent=500 nhalf=500 ndone=100 tries=5 >"$d/flood.out" 2>&1
	worst=$(awk '/^try/ { if ($3 != 200) bad = 1; if ($7 > w) w = $7; if ($5 > h) h = $5 } END { if (bad || NR == 0) print "bad"; else printf "%.3f %.3f", w, h }' "$d/flood.out")
	# every try answered 200; how fast (printed) is not judged here (a loaded machine)
	if [ "$(grep -c '^try [0-9] 200 ' "$d/flood.out")" = 5 ] && [ "$worst" != bad ]; then
		gh_pass "flood: 500 silent connections + 500 half ClientHellos + 100 idle TLS connections held: https /metrics 5/5 200, slowest ${worst%% *} s (handshake ${worst##* } s)"
	else
		gh_fail "flood: https /metrics under 1100 held connections: $(grep '^try' "$d/flood.out" | tr '\n' ';')"
		gh_show "$d/flood.out" 12
	fi
	# The memory the exporter reports per connection of each kind.
	if python3 - "$d/flood.out" >"$d/flood.mem" <<'PY'
import re, sys
f = {}
for l in open(sys.argv[1]):
    m = re.match(r"(base\d?|silent|half|done) conns (\d+) mem (\d+)", l)
    if m:
        f[m.group(1)] = (int(m.group(2)), int(m.group(3)))
def per(a, b):
    dc, dm = f[b][0] - f[a][0], f[b][1] - f[a][1]
    return dm / dc if dc > 0 else float("nan"), dc
s, ns = per("base", "silent"); h, nh = per("base1", "half"); d, nd = per("base2", "done")
print("%d silent: %.0f B each; %d half ClientHellos: %.0f B each; %d finished handshakes: %.0f B each; total %.1f MiB" %
      (ns, s, nh, h, nd, d, f["done"][1] / 1048576))
sys.exit(0 if ns >= 450 and nh >= 450 and nd >= 90 and 0 < s < 1024 and 0 < d and 0 < h else 1)
PY
	then
		gh_pass "flood: go_heap_watch_connection_memory_bytes counts TLS state: $(cat "$d/flood.mem")"
	else
		gh_fail "flood: connection memory figures: $(cat "$d/flood.mem")"
		gh_show "$d/flood.out" 5
	fi
	gh_stop "$WPID"
fi

# rate_limit: burst 3, one a second
cat >"$d/rate.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
rate_limit:
  interval: 1s
  burst: 3
EOF
if start_watch rate "$d/rate.yml"; then
	r=$(tc burst 127.0.0.1 "$WPORT" "$CA" n=6 path=/)
	if [ "$r" = "200 200 200 429 429 429" ]; then
		gh_pass "rate_limit: interval 1s, burst 3: six requests at once get $r"
	else
		gh_fail "rate_limit: six requests at once got '$r' (want 200 200 200 429 429 429)"
	fi
	gh_stop "$WPID"
fi

# ---- configuration errors: exit 2, one line naming the key -------------------------------------
bad() { # NAME KEY-TEXT YAML
	printf '%s\n' "$3" >"$d/bad-$1.yml"
	timeout 10 "$GH_GOHEAP" watch --listen 127.0.0.1:0 --web.config.file "$d/bad-$1.yml" "$W1" \
		>"$d/bad-$1.out" 2>"$d/bad-$1.err" </dev/null
	local rc=$? n
	n=$(wc -l <"$d/bad-$1.err")
	if [ "$rc" = 2 ] && [ "$n" = 1 ] && grep -qF -- "$2" "$d/bad-$1.err"; then
		gh_pass "config: $1: exit 2, $(cat "$d/bad-$1.err" | sed "s|$d/||g")"
	else
		gh_fail "config: $1: exit $rc, $n lines (want 2, 1 line with '$2')"
		gh_show "$d/bad-$1.err" 5
	fi
}
TLSOK="tls_server_config:
  cert_file: server.crt
  key_file: server.key"
bad unknown-key "tls_server_config.bogus (line 4): unknown key" "$TLSOK
  bogus: 1"
bad unknown-top-key "tls_config (line 1): unknown key" "tls_config:
  cert_file: server.crt"
bad client-auth-type "tls_server_config.client_auth_type (line 4): invalid ClientAuth: Maybe" "$TLSOK
  client_auth_type: Maybe"
bad missing-cert "tls_server_config.cert_file: cannot read $d/nonexistent.crt: No such file or directory" "tls_server_config:
  cert_file: nonexistent.crt
  key_file: server.key"
bad wrong-key "tls_server_config.key_file: the key in $d/server2.key does not match the certificate" "tls_server_config:
  cert_file: server.crt
  key_file: server2.key"
bad malformed-yaml "YAML syntax error at line 3" "tls_server_config:
  cert_file: [server.crt
  key_file: server.key"
bad min-version "tls_server_config.min_version (line 4): unknown TLS version: TLS14" "$TLSOK
  min_version: TLS14"
bad cipher "tls_server_config.cipher_suites (line 5): unknown cipher: TLS_RSA_WITH_RC4_128_SHA" "$TLSOK
  cipher_suites:
    - TLS_RSA_WITH_RC4_128_SHA"
bad ca-without-auth "tls_server_config.client_auth_type: client CA's have been configured without a Client Auth Policy" "$TLSOK
  client_ca_file: ca.crt"
bad missing-key "tls_server_config: missing one of key or key_file" "tls_server_config:
  cert_file: server.crt"
bad bcrypt "basic_auth_users.alice (line 2): not a bcrypt hash" "basic_auth_users:
  alice: s3cret"
bad header "http_server_config.headers.X-Powered-By (line 3): unknown key" "http_server_config:
  headers:
    X-Powered-By: go-heap"
bad header-value "http_server_config.headers.X-Frame-Options (line 3): invalid value 'allow'" "http_server_config:
  headers:
    X-Frame-Options: allow"
bad rate-interval "rate_limit.interval (line 2): 'soon' is not a duration" "rate_limit:
  interval: soon"
bad twice "tls_server_config.cert_file (line 4): set twice" "$TLSOK
  cert_file: server2.crt"
bad not-a-mapping "tls_server_config (line 1): expected a mapping" "tls_server_config: yes"

prom_is() { [ "$(gh_prom_query "$PROM" "$1")" = "$2" ]; }
if ! command -v prometheus >/dev/null 2>&1; then
	gh_skip "prometheus: the Debian package 'prometheus' is not installed (scripts/install-deps.sh)"
elif start_watch promw "$d/mtls.yml" -v; then
	PROM=127.0.0.1:$(gh_free_port)
	job() { # NAME PASSWORD CERT: a scrape job of go-heap watch over https
		cat <<EOF
  - job_name: $1
    scheme: https
    tls_config:
      ca_file: $d/ca.crt
${3:+      cert_file: $d/$3.crt
      key_file: $d/$3.key
}    basic_auth:
      username: alice
      password: $2
    static_configs:
      - targets: ['$WADDR']
EOF
	}
	{
		printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n'
		job ok s3cret client
		job badpass wrong client
		job nocert s3cret ""
		job expired s3cret expired
	} >"$d/prom.yml"
	prometheus --config.file="$d/prom.yml" --storage.tsdb.path="$d/prom" \
		--web.listen-address="$PROM" --log.level=warn >"$d/prom.out" 2>"$d/prom.err" </dev/null &
	PP=$!
	GH_PIDS+=("$PP")
	q="container_go_alloc_bytes_total{job=\"ok\",pid=\"$W1\"}"
	if ! gh_wait_for 30 prom_is 'up{job="ok"}' 1; then
		gh_fail "prometheus: the https job is not up within 30 s (up='$(gh_prom_query "$PROM" 'up{job="ok"}')')"
		gh_show "$d/prom.err" 10
		gh_show "$d/promw.err" 10
	elif ! gh_wait_for 30 prom_is "count($q)" 1; then
		gh_fail "prometheus: no $q within 30 s"
	else
		v1=$(gh_prom_query "$PROM" "$q")
		grown() {
			v2=$(gh_prom_query "$PROM" "$q")
			python3 -c "import sys; sys.exit(0 if float('${v2:-0}') > float('$v1') else 1)"
		}
		if gh_wait_for 4 grown; then
			gh_pass "prometheus: scrapes over https with mutual TLS and basic auth: up 1, container_go_alloc_bytes_total{pid=$W1} increasing ($v1 -> $v2)"
		else
			gh_fail "prometheus: $q not increasing ($v1 -> $v2)"
		fi
	fi
	for jw in "badpass|401: wrong password for user 'alice'" \
		"nocert|peer did not return a certificate" \
		"expired|client certificate: certificate has expired"; do
		IFS='|' read -r j why <<<"$jw"
		if gh_wait_for 20 prom_is "up{job=\"$j\"}" 0 && grep -qF "$why" "$d/promw.err"; then
			gh_pass "prometheus: job $j is down (up 0); go-heap's log: $(grep -m1 -F "$why" "$d/promw.err" | sed 's/^go-heap watch: //')"
		else
			gh_fail "prometheus: job $j: up='$(gh_prom_query "$PROM" "up{job=\"$j\"}")', log has '$why': $(grep -cF "$why" "$d/promw.err")"
		fi
	done
	gh_stop "$PP"
	gh_stop "$WPID"
fi

# ---- valgrind on the TLS path ------------------------------------------------------------------
ASAN=0
ldd "$GH_GOHEAP" 2>/dev/null | grep -q libasan && ASAN=1
if ! command -v valgrind >/dev/null 2>&1; then
	gh_skip "valgrind: not installed (scripts/install-deps.sh)"
elif [ "$ASAN" = 1 ]; then
	gh_skip "valgrind: this is the sanitizer build (valgrind cannot run it; ASan and UBSan watch every exporter above instead)"
else
	VG="$top_builddir/src/.libs/go-heap"
	[ -x "$VG" ] || VG=$GH_GOHEAP
	valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite "$VG" watch --interval 1h --listen 127.0.0.1:0 \
		--web.config.file "$d/mtls.yml" "$W1" >"$d/vg.out" 2>"$d/vg.err" </dev/null &
	VP=$!
	GH_PIDS+=("$VP")
	if gh_wait_for 60 grep -qs 'listening on' "$d/vg.err"; then
		WPORT=$(sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$d/vg.err" | head -n 1)
		{
			tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT user=alice pass=s3cret
			tc get 127.0.0.1 "$WPORT" "$CA" $CLIENT user=alice pass=wrong
			tc get 127.0.0.1 "$WPORT" "$CA"
			tc get 127.0.0.1 "$WPORT" "$CA" cert="$d/evil.crt" key="$d/evil.key"
			tc plain 127.0.0.1 "$WPORT"
			tc flood 127.0.0.1 "$WPORT" "$CA" $CLIENT user=alice pass=s3cret nsilent=10 nhalf=10 ndone=5 tries=1
		} >"$d/vg.clients" 2>&1
		kill -TERM "$VP"
		wait "$VP"
		rc=$?
		if [ "$rc" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$d/vg.err" &&
			grep -q '^try 0 200' "$d/vg.clients"; then
			gh_pass "valgrind: the TLS path (mTLS + basic auth, refused handshakes, 401, plain HTTP, held connections, SIGTERM): 0 errors, $(grep -o 'definitely lost: [0-9,]* bytes' "$d/vg.err" || echo 'no leaks')"
		else
			gh_fail "valgrind: exit $rc"
			grep -E 'ERROR SUMMARY|definitely|Invalid|uninitialised' "$d/vg.err" | head -n 10 | sed 's/^/    | /'
			gh_show "$d/vg.clients" 8
		fi
	else
		gh_fail "valgrind: go-heap watch did not listen within 60 s"
		gh_show "$d/vg.err" 10
	fi
fi

# ---- the sanitizer build: no report from any exporter (all were stopped with SIGTERM, so
# LeakSanitizer ran at their exit) ----------------------------------------------------------------
if [ "$ASAN" = 1 ]; then
	for p in "${GH_PIDS[@]+"${GH_PIDS[@]}"}"; do
		[ "$p" = "$W1" ] || gh_stop "$p"
	done
	n=$(ls "$d"/*.err | wc -l)
	if grep -lE 'Sanitizer|runtime error:' "$d"/*.err >"$d/san.list" 2>/dev/null; then
		gh_fail "sanitizers: reports in $(tr '\n' ' ' <"$d/san.list")"
		grep -hE -A5 'ERROR: |runtime error:' "$d"/*.err | head -n 20 | sed 's/^/    | /'
	else
		gh_pass "sanitizers: ASan + UBSan (+ LeakSanitizer at exit): no report in the $n exporter and client logs"
	fi
fi
gh_summary
