#!/usr/bin/env python3
"""Rewrites a poclbinary (v9, v11 or v12) with every file's content cut to its first N bytes
(default 64: an ELF header keeps its magic), fixing the record sizes, so that the result is still a
well-formed poclbinary but small: a seed that lets the fuzzer spend its mutations on the
metadata instead of on 50 KB of machine code.

    shrink_poclbinary.py in.bin out.bin [N]
"""
import struct
import sys


class Reader:
    def __init__(self, data, pos=0, end=None):
        self.d, self.p, self.e = data, pos, len(data) if end is None else end

    def take(self, n):
        if self.p + n > self.e:
            raise ValueError(f"truncated at {self.p}")
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def blob(self):
        return self.take(self.u32())


def blob(b):
    return struct.pack("<I", len(b)) + b


def files(r, keep):
    out = b""
    while r.p < r.e:
        path = r.blob()
        content = r.blob()
        out += blob(path) + blob(content[:keep])
    return out


def shrink(data, keep):
    r = Reader(data)
    head = r.take(8 + 8 + 4)
    nk = r.u32()
    flags = r.u64()
    nroot = r.u32()
    hash_ = r.take(41)
    out = head + struct.pack("<IQI", nk, flags, nroot) + hash_
    version = struct.unpack_from("<I", head, 16)[0]
    if version >= 11 and flags & 2:  # the program-scope variable size follows the hash
        out += r.take(8)
    for _ in range(nroot):
        n = r.u64()
        body = files(Reader(data, r.p, r.p + n), keep)
        r.p += n
        out += struct.pack("<Q", len(body)) + body
    for _ in range(nk):
        start = r.p
        size = r.u64()
        bsize = r.u64()
        files_at = start + size - bsize
        meta = data[r.p:files_at]  # arginfo_size .. last argument record, unchanged
        body = files(Reader(data, files_at, start + size), keep)
        r.p = start + size
        out += struct.pack("<QQ", 8 + 8 + len(meta) + len(body), len(body)) + meta + body
    if r.p != len(data):
        raise ValueError(f"{len(data) - r.p} trailing bytes")
    return out


if __name__ == "__main__":
    src, dst = sys.argv[1], sys.argv[2]
    keep = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    data = open(src, "rb").read()
    small = shrink(data, keep)
    open(dst, "wb").write(small)
    print(f"{dst}: {len(data)} -> {len(small)} bytes")
