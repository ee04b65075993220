"""Compare the raw answers (status line, headers, body) of two servers byte
for byte, the Date header aside and local_time's clock digits masked (its
offset kept; the text pages' "Local time" lines left out). Random addresses
from a list, special-purpose and invalid ones, and format, language, Accept,
User-Agent and If-None-Match variations, on /api/v1/ip/{ip}.

Usage: python3 bench/compare.py OLD_PORT NEW_PORT ADDRESS_LIST COUNT
(two servers already listening on 127.0.0.1; ADDRESS_LIST from
bench/ceiling/helpers/addresses.py)."""
import socket, sys, random, re

def exchange(port, head):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(head.encode("latin-1"))
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data

TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
def clean(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = [l for l in head.split(b"\r\n") if not l.lower().startswith(b"date:")]
    body = TIME.sub(b"<time>", body)
    # the text/markdown/html pages write local time in words
    body = b"\n".join(l for l in body.split(b"\n") if b"Local time" not in l and "স্থানীয় সময়".encode() not in l)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body

old, new, listfile, count = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
rng = random.Random(24)
addrs = [l.strip() for l in open(listfile) if l.strip()]
special = ["10.1.2.3", "192.168.0.1", "127.0.0.1", "100.64.1.1", "169.254.1.1", "192.0.2.5", "198.51.100.7",
           "203.0.113.9", "224.0.0.1", "255.255.255.255", "0.0.0.0", "192.88.99.1", "::1", "::", "fe80::1",
           "fc00::1", "fd12:3456::1", "2001:db8::1", "64:ff9b::808:808", "2001::1", "2002::1", "ff02::1",
           "::ffff:8.8.8.8", "::ffff:10.0.0.1", "2620:4f:8000::1", "192.31.196.1", "5f00::1", "100::1"]
bad = ["1.2.3", "01.2.3.4", "not-an-ip", "1.2.3.4.5", "::g", "8.8.8.8%2E", "2001:db8::1%25eth0", "300.1.1.1"]
queries = ["", "", "", "", "?format=json", "?format=text", "?format=md", "?format=html", "?format=xml",
           "?lang=bn", "?format=json&lang=bn", "?x=%zz", "?format=text&lang=bn"]
extras = ["", "", "", "Accept: */*\r\n", "Accept: application/json\r\n", "Accept: text/html\r\n",
          "Accept: text/plain\r\n", "Accept: text/markdown\r\n", "Accept: image/png\r\n",
          "User-Agent: curl/8.5.0\r\nAccept: */*\r\n",
          "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/145.0\r\nAccept: text/html,application/xhtml+xml,*/*;q=0.8\r\n",
          "Accept-Language: bn\r\n", "If-None-Match: W/\"x\"\r\n", "Accept: application/json;q=0.5, text/plain\r\n",
          "User-Agent: Wget/1.21\r\n", "Accept: application/*\r\n"]
raw = exchange(old, "GET /api/v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
etag = re.search(rb"(?i)\r\netag: ([^\r]*)", raw).group(1).decode()
extras += ["If-None-Match: %s\r\n" % etag, "If-None-Match: *\r\n"]
n = diff = 0
kinds = {"v4": 0, "v6": 0, "special": 0, "bad": 0}
for i in range(count):
    r = rng.random()
    if r < 0.1:
        a = rng.choice(special); kinds["special"] += 1
    elif r < 0.13:
        a = rng.choice(bad); kinds["bad"] += 1
    else:
        a = rng.choice(addrs); kinds["v6" if ":" in a else "v4"] += 1
    # half plain (the hot route as wrk sends it), half with variations
    if rng.random() < 0.5:
        q, e = "", ""
    else:
        q, e = rng.choice(queries), rng.choice(extras)
    method = "HEAD" if rng.random() < 0.03 else "GET"
    head = "%s /api/v1/ip/%s%s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n" % (method, a, q, e)
    x, y = clean(exchange(old, head)), clean(exchange(new, head))
    n += 1
    if x != y:
        diff += 1
        if diff <= 5:
            print("DIFF", repr(head)); print(x[:800]); print(y[:800])
print("compared", n, "exchanges,", diff, "differ;", kinds)
