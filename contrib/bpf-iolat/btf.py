#!/usr/bin/python3
"""stap/bpf/btf.py - byte offsets of struct members in the running kernel,
from its BTF (/sys/kernel/btf/vmlinux), for BPF-runtime scripts.

    btf.py STRUCT.MEMBER...        one offset per line, in order
    btf.py --btf FILE STRUCT.MEMBER...

Why: SystemTap 4.8's BPF runtime reads struct fields with the layout of
the headers it builds against, which is not the running kernel's when the
two differ (Debian's 6.1 headers here, a 6.18 kernel).  A script that
needs a field takes its offset as an argument instead (stap/bpf/iolat.stp
via stap/bpf/iolat.args).  Exit status 1 with a message when a struct or
member is missing (or is a bitfield).

BTF (Documentation/bpf/btf.rst): a header, then the type section (type ids
from 1: btf_type {name_off, info, size|type} and per kind extra data) and
the string section.
"""
import struct
import sys

KIND_EXTRA = {1: 4, 3: 12, 6: 8, 13: 8, 14: 4, 15: 12, 17: 4, 19: 12}  # bytes per kind (or per vlen item)
VLEN_KINDS = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}


def load(path):
    raw = open(path, 'rb').read()
    magic, ver, flags, hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from('<HBBIIIII', raw)
    if magic != 0xeb9f:
        raise SystemExit('btf.py: %s is not BTF (little-endian)' % path)
    types = raw[hdr_len + type_off:hdr_len + type_off + type_len]
    strs = raw[hdr_len + str_off:hdr_len + str_off + str_len]

    def name(off):
        return strs[off:strs.index(b'\0', off)].decode()
    structs = {}
    p = 0
    while p < len(types):
        name_off, info, _size = struct.unpack_from('<III', types, p)
        p += 12
        kind = (info >> 24) & 0x1f
        vlen = info & 0xffff
        kflag = info >> 31
        if kind in (4, 5):
            members = {}
            for i in range(vlen):
                m_name, _m_type, m_off = struct.unpack_from('<III', types, p + 12 * i)
                bits = m_off & 0xffffff if kflag else m_off
                bitfield = kflag and (m_off >> 24)
                members[name(m_name)] = None if bitfield or bits % 8 else bits // 8
            if kind == 4 and name_off and name(name_off) not in structs:
                structs[name(name_off)] = members
        if kind in VLEN_KINDS:
            p += VLEN_KINDS[kind] * vlen
        elif kind in KIND_EXTRA:
            p += KIND_EXTRA[kind]
    return structs


def main(argv):
    path = '/sys/kernel/btf/vmlinux'
    if argv[:1] == ['--btf']:
        path, argv = argv[1], argv[2:]
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        structs = load(path)
    except OSError as e:
        print('btf.py: %s: %s (the kernel needs CONFIG_DEBUG_INFO_BTF)' % (path, e), file=sys.stderr)
        return 1
    out = []
    for want in argv:
        s, _, m = want.partition('.')
        off = structs.get(s, {}).get(m)
        if off is None:
            print('btf.py: no byte-aligned member %s in the running kernel\'s BTF' % want,
                  file=sys.stderr)
            return 1
        out.append(str(off))
    print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
