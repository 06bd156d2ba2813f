#!/usr/bin/env python3
"""Regenerates the small .npy test files in this directory.

NumPy is not needed: the files are laid out byte for byte as numpy.save
writes them (numpy.lib.format._wrap_header: magic, version, little-endian
header length, the dict repr, spaces and a newline so that the data starts
at a multiple of 64 bytes).  test_npy.c checks the values these files hold,
so keep the two in sync.  Run from this directory: python3 make_npy_data.py
"""
import struct


def wrap(header, version=(1, 0)):
    fmt = '<H' if version == (1, 0) else '<I'
    enc = 'utf8' if version == (3, 0) else 'latin1'
    h = header.encode(enc)
    hlen = len(h) + 1
    padlen = 64 - ((6 + 2 + struct.calcsize(fmt) + hlen) % 64)
    return (b'\x93NUMPY' + bytes(version) + struct.pack(fmt, hlen + padlen)
            + h + b' ' * padlen + b'\n')


def dict_repr(descr, fortran, shape):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (
        descr, 'True' if fortran else 'False', tuple(shape))


def save(name, descr, fortran, shape, values, version=(1, 0), header=None):
    fmt = {'<f8': '<d', '<f4': '<f', '>f8': '>d', '<i8': '<q'}[descr]
    data = b''.join(struct.pack(fmt, v) for v in values)
    with open(name, 'wb') as f:
        f.write(wrap(header or dict_repr(descr, fortran, shape), version) + data)


# C order 2x3: [[0, 1, 2], [3, 4, 5]]
save('f8_2x3.npy', '<f8', False, (2, 3), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
# float32 vector; all values exact in float32
save('f4_4.npy', '<f4', False, (4,), [1.5, -2.25, 0.0, 1e-3])
# Fortran order 2x3 holding [[1, 2, 3], [4, 5, 6]]: stored column by column
save('fortran_2x3.npy', '<f8', True, (2, 3), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0])
# version 2.0 scalar
save('v2_scalar.npy', '<f8', False, (), [42.0], version=(2, 0))
# version 3.0 (utf8 header) float32, shape (5,)
save('v3_f4_5.npy', '<f4', False, (5,), [1.0, 2.0, 3.0, 4.0, 5.0], version=(3, 0))
# Python 2 era header: long suffixes in the shape
save('py2_long_2x2.npy', '<f8', False, (2, 2), [1.0, 2.0, 3.0, 4.0],
     header="{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 2L), }")
# refused: big-endian and integer data
save('be_f8_2.npy', '>f8', False, (2,), [1.0, 2.0])
save('i8_3.npy', '<i8', False, (3,), [1, 2, 3])
