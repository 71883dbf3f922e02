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
REC_SESSION_END = 4


def v1_to_v2(rec):
    """Capture version 1 SESSION_END (a stitch position) in today's layout (a stitched mask)."""
    if len(rec) != 32 + 2320 or struct.unpack_from('<I', rec)[0] != REC_SESSION_END:
        return rec
    arrays = rec[32:32 + 1536]
    depth, max_depth, stitch_pos, kstack_sz = struct.unpack_from('<IIIi', rec, 32 + 1536)
    mask = 0
    if stitch_pos:
        for i in range(stitch_pos, 64):
            mask |= 1 << i
    kstack = rec[32 + 1552:32 + 1552 + 768]
    return (rec[:32] + arrays + struct.pack('<IIQiI', depth, max_depth, mask, kstack_sz, 0) +
            kstack)

for cap in sorted(glob.glob(os.path.join(here, '..', 'golden', '*.cap'))):
    data = open(cap, 'rb').read()
    assert data[:8] in (b'RSNPCAP1', b'RSNPCAP2'), cap
    v1 = data[:8] == b'RSNPCAP1'
    off, recs = 8, []
    while off + 8 <= len(data):
        kind, size = struct.unpack_from('<II', data, off)
        off += 8
        if kind == CAP_RECORD:
            rec = data[off:off + size]
            recs.append(v1_to_v2(rec) if v1 else rec)
        off += size + (-size % 8)
    name = os.path.basename(cap)[:-4]
    # stack + trace + LBR views, then everything including the address/offset variants
    for views in (0x07, 0x7f):
        body = bytes([views]) + b''.join(struct.pack('<H', len(r)) + r for r in recs)
        with open(os.path.join(out_dir, '%s-views%02x' % (name, views)), 'wb') as f:
            f.write(body)
