#!/usr/bin/env python3
# Regenerate tests/fuzz/corpus/session/ from the golden captures: the ring-buffer records of
# each tests/golden/*.cap in the session target's input format (a view byte, then records as
# a little-endian u16 length and the record). Run it after the record layout changes and the
# golden captures were re-recorded.
import glob
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.path.join(here, 'corpus', 'session')
CAP_RECORD = 1

for cap in sorted(glob.glob(os.path.join(here, '..', 'golden', '*.cap'))):
    data = open(cap, 'rb').read()
    assert data[:8] == b'RSNPCAP1', cap
    off, recs = 8, []
    while off + 8 <= len(data):
        kind, size = struct.unpack_from('<II', data, off)
        off += 8
        if kind == CAP_RECORD:
            recs.append(data[off:off + size])
        off += size + (-size % 8)
    name = os.path.basename(cap)[:-4]
    # stack + trace + LBR views, then everything including the address/offset variants
    for views in (0x07, 0x7f):
        body = bytes([views]) + b''.join(struct.pack('<H', len(r)) + r for r in recs)
        with open(os.path.join(out_dir, '%s-views%02x' % (name, views)), 'wb') as f:
            f.write(body)
