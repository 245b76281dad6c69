"""NumPy structured dtypes that mirror the library's result structs.

A dtype is built from the C layout cffi knows (field offsets and the struct
size), so an array of structs filled by the library is read by NumPy without a
Python loop over its fields; `packed` then copies the wanted fields into a
plain packed array. Vectors (tl_vec3) become (3,) subarrays.
"""
import numpy as np

from ._lib import ffi

_SCALARS = {"double": np.float64, "_Bool": np.bool_, "uint32_t": np.uint32, "int": np.int32,
            "int64_t": np.int64, "size_t": np.uint64}


def struct_dtype(ctype, fields):
    """The dtype of C struct `ctype` restricted to `fields` (in that order)."""
    t = ffi.typeof(ctype)
    members = dict(t.fields)
    names, formats, offsets = [], [], []
    for name in fields:
        ft = members[name].type
        if ft.kind == "struct" and ft.cname in ("tl_vec3", "struct tl_vec3"):
            fmt = (np.float64, 3)
        elif ft.kind == "primitive" and ft.cname in _SCALARS:
            fmt = _SCALARS[ft.cname]
        else:
            raise TypeError("no NumPy type for %s.%s (%s)" % (ctype, name, ft.cname))
        names.append(name)
        formats.append(fmt)
        offsets.append(members[name].offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ffi.sizeof(t)})


def packed(dtype):
    """The same fields without padding."""
    return np.dtype([(n, dtype.fields[n][0]) for n in dtype.names])


def read_array(ptr, count, dtype, out_dtype):
    """count structs at ptr as a new packed structured array."""
    if count == 0:
        return np.zeros(0, dtype=out_dtype)
    raw = np.frombuffer(ffi.buffer(ptr, count * dtype.itemsize), dtype=dtype, count=count)
    out = np.empty(count, dtype=out_dtype)
    for n in dtype.names:
        out[n] = raw[n]
    return out


CONTACT = struct_dtype("tl_contact_info", ["id_a", "id_b", "with_wall", "overlap", "normal", "point",
                                           "normal_force", "normal_damping_force", "tangential_force",
                                           "sliding"])
CONTACT_PACKED = packed(CONTACT)


def _energy_dtype():
    """tl_energy: each term of the library's table of energy terms (tl_energy_term_get: the
    ledger cannot lose a column here, and a term added to the table appears), then the total."""
    from ._lib import lib
    names = [ffi.string(lib.tl_energy_term_get(k).name).decode() for k in range(lib.TL_ENERGY_TERM_COUNT)]
    base = ffi.offsetof("tl_energy", "term")
    offsets = [base + 8 * k for k in range(len(names))] + [ffi.offsetof("tl_energy", "total")]
    return np.dtype({"names": names + ["total"], "formats": [np.float64] * (len(names) + 1), "offsets": offsets,
                     "itemsize": ffi.sizeof("tl_energy")})


ENERGY = _energy_dtype()
ENERGY_FIELDS = list(ENERGY.names)
ENERGY_PACKED = packed(ENERGY)

COLLISION = struct_dtype("tl_collision", ["id_a", "id_b", "with_wall", "t_begin", "t_end", "normal_speed_in",
                                          "normal_speed_out", "restitution", "max_overlap",
                                          "max_normal_force"])
COLLISION_PACKED = packed(COLLISION)

SAMPLE = struct_dtype("tl_collide_sample", ["t", "overlap", "overlap_rate", "fn", "fn_elastic", "fn_damping",
                                            "ft", "ft_normal"])
SAMPLE_PACKED = packed(SAMPLE)
