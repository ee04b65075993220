#!/usr/bin/env python3
"""Random public addresses for bench/http.sh, one per line: uniform public
IPv4 and uniform public IPv6 in 2000::/3 (as benches/lookup.rs), alternating,
all distinct, from a fixed seed so every run asks the same questions.

    python3 addresses.py COUNT [SEED] > addresses.txt
"""

import ipaddress
import random
import sys

count = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 6)
seen = set()
out = []
while len(out) < count:
    if len(out) % 2 == 0:
        a = ipaddress.IPv4Address(rng.getrandbits(32))
    else:
        a = ipaddress.IPv6Address((1 << 125) | rng.getrandbits(125))
    if a.is_global and not a.is_multicast and a not in seen:
        seen.add(a)
        out.append(str(a))
sys.stdout.write("\n".join(out) + "\n")
