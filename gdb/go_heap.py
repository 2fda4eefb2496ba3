# go_heap.py - the gdb command `go-heap`: a Go heap profile of the current
# inferior, written as runtime/pprof would write it.
#
# Load it with `source /path/to/go-heap/gdb/go_heap.py` (a built source tree
# or the installed copy under $(datadir)/go-heap/gdb/), or put that line in
# ~/.gdbinit.
#
# Design.  This file is a thin bridge and knows nothing about the Go runtime:
# every byte of the profile is found, decoded, symbolized and formatted by
# libgoheap, exactly as for the go-heap CLI.  The bridge only supplies a
# memory source (the library's goheap_memsrc_ops table) whose reads go
# through gdb, so the command works on whatever gdb can read: a live process
# (`gdb -p`), a core (`gdb EXE CORE`), or a gdbserver target (`target
# remote`).  The options are parsed by the library's own option table
# (goheap_command), so they are the CLI's options by construction, and this
# command's help and TAB completion are generated from the same table
# (goheap_command_options): there is no list of options in this file.
#
# ctypes rather than a C extension module: a C extension would have to be
# compiled against the headers of the exact Python that gdb embeds (gdb 13 on
# Debian links libpython3.11, other distributions other versions), which
# are often not installed and which our build cannot discover from
# configure; a mismatch makes `source` fail with an import error.  ctypes
# is in every Python, needs no compiler, and works with the distribution's
# gdb as it is.  The cost, a few microseconds per callback, is negligible
# because the library batches reads into 64 KiB blocks (and so does this
# file, see _GdbSource.read).
#
# Every error reaches the user as a gdb.GdbError message ("go-heap: ..."),
# never as a Python traceback: exceptions are caught in the command and in
# every callback that C calls (an exception escaping a ctypes callback would
# be printed and the callback would return 0, i.e. "success").

import ctypes
import ctypes.util
import glob
import os
import re
import shutil
import sys
import tempfile

import gdb

# This file's own path: `source` runs it without __file__ (gdb 13), but the
# code object still knows where it came from.
_SCRIPT = os.path.realpath(globals().get("__file__") or
                           sys._getframe(0).f_code.co_filename)

# ---------------------------------------------------------------------------
# The C interface (include/goheap.h), mirrored for ctypes.

# Error codes used here (GOHEAP_ERRORS in goheap.h).
GOHEAP_EINVAL = -2
GOHEAP_EIO = -3
GOHEAP_EUNMAPPED = -4
GOHEAP_EUNSUPPORTED = -12
GOHEAP_ENOEXE = -14

GOHEAP_MEMSRC_OPS_VERSION = 2
GOHEAP_OPTIONS_VERSION = 1
GOHEAP_FORMAT_PPROF = 0


class _Mapping(ctypes.Structure):
    _fields_ = [
        ("start", ctypes.c_uint64),
        ("end", ctypes.c_uint64),
        ("offset", ctypes.c_uint64),
        ("inode", ctypes.c_uint64),
        ("perms", ctypes.c_char * 5),
        ("path", ctypes.c_char_p),
        ("open_path", ctypes.c_char_p),
    ]


class _TargetInfo(ctypes.Structure):
    _fields_ = [
        ("ptr_size", ctypes.c_uint),
        ("big_endian", ctypes.c_int),
        ("machine", ctypes.c_uint),
    ]


_MAPPING_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_Mapping),
                               ctypes.c_void_p)
_READ_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                            ctypes.c_void_p, ctypes.c_size_t)
_MAPPINGS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, _MAPPING_CB,
                                ctypes.c_void_p)
_EXECUTABLE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                  ctypes.c_void_p, ctypes.c_size_t)
_TARGET_INFO_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                   ctypes.POINTER(_TargetInfo))
_WRITE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                             ctypes.c_void_p, ctypes.c_size_t)
_DESCRIBE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_size_t)
_CLOSE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _Ops(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("read", _READ_FN),
        ("mappings", _MAPPINGS_FN),
        ("executable", _EXECUTABLE_FN),
        ("target_info", _TARGET_INFO_FN),
        ("write", _WRITE_FN),
        ("describe", _DESCRIBE_FN),
        ("close", _CLOSE_FN),
        # Version 2: no stop slot (gdb has stopped the inferior already)
        # and no thread stacks: NULL.
        ("stop", ctypes.c_void_p),
        ("resume", ctypes.c_void_p),
        ("thread_stacks", ctypes.c_void_p),
    ]


class _Options(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("exe", ctypes.c_char_p),
        ("sysroot", ctypes.c_char_p),
        ("reserved", ctypes.c_int),
    ]


class _CommandResult(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),  # sizeof: set before the call
        ("out", ctypes.c_void_p),
        ("out_len", ctypes.c_size_t),
        ("format", ctypes.c_int),
        ("output", ctypes.c_char_p),
        ("quiet", ctypes.c_int),
        ("verbose", ctypes.c_int),
        ("message", ctypes.c_char * 512),
        ("warnings", ctypes.c_char * 1024),
    ]


# ---------------------------------------------------------------------------
# Finding and loading libgoheap.

_SONAME = "libgoheap.so.0"
_lib = None


def _candidates():
    """Where libgoheap may be, in the order tried (GOHEAP_LIBRARY aside)."""
    here = os.path.dirname(_SCRIPT)
    top = os.path.dirname(here)
    paths = [
        # A built source tree: in-tree build, then the conventional
        # out-of-tree build directory (scripts/test.sh uses build/).
        os.path.join(top, "src", ".libs", _SONAME),
        os.path.join(top, "build", "src", ".libs", _SONAME),
    ]
    # Installed: this file is $(datadir)/go-heap/gdb/go_heap.py, with
    # $(datadir) = PREFIX/share, and the library is in $(libdir): PREFIX/lib,
    # PREFIX/lib64 or the multiarch PREFIX/lib/<triplet>.
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    for pattern in ("lib*/" + _SONAME, "lib/*/" + _SONAME):
        paths.extend(sorted(glob.glob(os.path.join(prefix, pattern))))
    found = ctypes.util.find_library("goheap")
    if found:
        paths.append(found)
    return paths


def _declare(lib):
    """Give every function we call its C signature."""
    vp, cp, ci = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    lib.goheap_version.argtypes = []
    lib.goheap_version.restype = cp
    lib.goheap_strerror.argtypes = [ci]
    lib.goheap_strerror.restype = cp
    lib.goheap_open_memsrc.argtypes = [ctypes.POINTER(vp),
                                       ctypes.POINTER(_Ops), vp,
                                       ctypes.POINTER(_Options)]
    lib.goheap_open_memsrc.restype = ci
    lib.goheap_errmsg.argtypes = [vp]
    lib.goheap_errmsg.restype = cp
    lib.goheap_close.argtypes = [vp]
    lib.goheap_close.restype = None
    lib.goheap_command.argtypes = [vp, ci, ctypes.POINTER(cp),
                                   ctypes.POINTER(_CommandResult)]
    lib.goheap_command.restype = ci
    lib.goheap_command_options.argtypes = [cp, ctypes.c_size_t]
    lib.goheap_command_options.restype = ci
    lib.goheap_describe.argtypes = [vp]
    lib.goheap_describe.restype = cp
    lib.goheap_free.argtypes = [vp]
    lib.goheap_free.restype = None
    return lib


def _load_library():
    """The loaded libgoheap, or gdb.GdbError naming what was tried."""
    global _lib
    if _lib is not None:
        return _lib
    env = os.environ.get("GOHEAP_LIBRARY")
    # An explicit choice is not second-guessed: no fallback behind it.
    tried = [env] if env else _candidates()
    errors = []
    for path in tried:
        if os.sep in path and not os.path.exists(path):
            errors.append("%s: not found" % path)
            continue
        try:
            lib = ctypes.CDLL(path)
            if not hasattr(lib, "goheap_command_options"):
                errors.append("%s: not this version's libgoheap (no "
                              "goheap_command_options)" % path)
                continue
            _lib = _declare(lib)
            return _lib
        except (OSError, AttributeError) as e:
            errors.append("%s: %s" % (path, e))
    if not tried:
        errors.append("no candidate location")
    raise gdb.GdbError(
        "go-heap: cannot load libgoheap (%s); build go-heap or set "
        "GOHEAP_LIBRARY to the path of %s" % ("; ".join(errors), _SONAME))


# ---------------------------------------------------------------------------
# The memory source: libgoheap reads the inferior through gdb.

_BLOCK = 64 * 1024        # cache block, aligned; the library's block size too
_MAX_BLOCKS = 64          # 4 MiB of cached target memory per command

_MAPS_LINE = re.compile(
    r"^\s*(0x[0-9a-fA-F]+)\s+(0x[0-9a-fA-F]+)\s+(0x[0-9a-fA-F]+)"
    r"\s+(0x[0-9a-fA-F]+)(?:\s+([r-][w-][xs-][psx-]))?(?:\s+(.*?))?\s*$")
_SECTION_LINE = re.compile(
    r"^\s*\[\s*\d+\]\s+(0x[0-9a-fA-F]+)->(0x[0-9a-fA-F]+)\s+at\s+"
    r"0x[0-9a-fA-F]+:\s+(\S+)\s*(.*)$")

# gdb architecture name prefixes -> ELF e_machine (informational only).
_MACHINES = (("i386:x86-64", 62), ("i386", 3), ("aarch64", 183),
             ("arm", 40), ("powerpc:common64", 21), ("powerpc", 20),
             ("rs6000", 20), ("s390", 22), ("riscv", 243), ("mips", 8),
             ("loongarch", 258))


def _guard(on_error):
    """Wrap a ctypes callback: no Python exception may cross into C."""
    def wrap(method):
        def guarded(self, *args):
            try:
                return method(self, *args)
            except BaseException as e:  # includes KeyboardInterrupt (Ctrl-C)
                self.note_error(method.__name__, e)
                return on_error
        guarded.__name__ = method.__name__
        return guarded
    return wrap


class _GdbSource:
    """A goheap_memsrc_ops table backed by the selected gdb inferior.

    Lives for one `go-heap` command: it is created, handed to
    goheap_open_memsrc, and released by the library's close callback (and
    then by Python).  It holds the ctypes callback objects so that they stay
    alive as long as the C side may call them.
    """

    def __init__(self):
        self.inf = gdb.selected_inferior()
        self.kind = self._target_kind()
        self.blocks = {}          # base -> (lo, bytes) or None (unreadable)
        self.order = []           # LRU order of self.blocks' keys
        self._maps = None         # parsed mappings, lazily
        self.tmpdir = None        # remote executable copy, if one was made
        self.error = None         # first Python-side failure, for messages
        self.nreads = 0           # gdb reads, for GOHEAP_GDB_TRACE
        self.nbytes = 0
        ops = _Ops()
        ops.version = GOHEAP_MEMSRC_OPS_VERSION
        ops.read = _READ_FN(self._cb_read)
        ops.mappings = _MAPPINGS_FN(self._cb_mappings)
        ops.executable = _EXECUTABLE_FN(self._cb_executable)
        ops.target_info = _TARGET_INFO_FN(self._cb_target_info)
        if self.kind != "core":
            ops.write = _WRITE_FN(self._cb_write)  # NULL for a core: read-only
        ops.describe = _DESCRIBE_FN(self._cb_describe)
        ops.close = _CLOSE_FN(self._cb_close)
        self.ops = ops

    def _target_kind(self):
        conn = getattr(self.inf, "connection", None)
        ctype = getattr(conn, "type", None) if conn is not None else None
        if ctype is None:
            # gdb before 12 has no Inferior.connection; ask `info inferiors`.
            try:
                text = gdb.execute("info inferiors", to_string=True)
            except gdb.error:
                text = ""
            for line in text.splitlines():
                if line.lstrip().startswith("*"):
                    m = re.search(r"\((core|native|remote|extended-remote)\)",
                                  line)
                    ctype = m.group(1) if m else None
        if ctype == "core":
            return "core"
        if ctype in ("remote", "extended-remote"):
            return "remote"
        return "live"

    def note_error(self, what, exc):
        if self.error is None:
            if isinstance(exc, KeyboardInterrupt):
                self.error = "interrupted"
            else:
                self.error = "%s: %s" % (what.lstrip("_").replace("cb_", ""),
                                         exc)

    # ---- reads ---------------------------------------------------------

    def _gdb_read(self, addr, length):
        self.nreads += 1
        self.nbytes += length
        return self.inf.read_memory(addr, length).tobytes()

    def _block(self, base, need):
        """The cached block at `base` as (lo, data), or None.

        A block is read whole; if that fails (the block crosses the end of a
        mapping, or part of it was not dumped into the core) it is clipped to
        the mapping that holds `need`, and if that fails too it is remembered
        as unreadable so the caller reads exactly what it wants instead.
        """
        if base in self.blocks:
            self.order.remove(base)
            self.order.append(base)
            return self.blocks[base]
        entry = None
        try:
            entry = (base, self._gdb_read(base, _BLOCK))
        except gdb.MemoryError:
            for m in self.mappings():
                if m[0] <= need < m[1]:
                    lo, hi = max(base, m[0]), min(base + _BLOCK, m[1])
                    try:
                        entry = (lo, self._gdb_read(lo, hi - lo))
                    except gdb.MemoryError:
                        pass
                    break
        if len(self.order) >= _MAX_BLOCKS:
            del self.blocks[self.order.pop(0)]
        self.blocks[base] = entry
        self.order.append(base)
        return entry

    def read_bytes(self, addr, length):
        """`length` bytes at `addr`, or gdb.MemoryError; never zero-filled."""
        first = addr & ~(_BLOCK - 1)
        last = (addr + length - 1) & ~(_BLOCK - 1)
        if length < _BLOCK and last - first <= _BLOCK:
            parts = []
            base = first
            while base <= last:
                need = max(addr, base)
                entry = self._block(base, need)
                if entry is None:
                    break
                lo, data = entry
                end = min(addr + length, base + _BLOCK)
                if need < lo or end > lo + len(data):
                    break
                parts.append(data[need - lo:end - lo])
                base += _BLOCK
            else:
                return b"".join(parts)
        data = self._gdb_read(addr, length)
        if length == _BLOCK and addr == first:
            # The library filling its own block: keep it for reads that the
            # library does not cache (those crossing its block boundaries).
            if len(self.order) >= _MAX_BLOCKS:
                del self.blocks[self.order.pop(0)]
            self.blocks.pop(addr, None)
            if addr in self.order:
                self.order.remove(addr)
            self.blocks[addr] = (addr, data)
            self.order.append(addr)
        return data

    @_guard(GOHEAP_EIO)
    def _cb_read(self, ctx, addr, buf, length):
        if length == 0:
            return 0
        try:
            data = self.read_bytes(addr, length)
        except gdb.MemoryError:
            return GOHEAP_EUNMAPPED
        except gdb.error as e:
            self.note_error("reading memory", e)
            return GOHEAP_EIO
        if len(data) != length:
            return GOHEAP_EIO
        ctypes.memmove(buf, data, length)
        return 0

    # ---- mappings ------------------------------------------------------

    def mappings(self):
        """[(start, end, offset, perms, path, inode)] in address order;
        inode is 0 where unknown (cores, remote targets)."""
        if self._maps is None:
            if self.kind == "core":
                self._maps = self._core_mappings()
            else:
                self._maps = self._proc_mappings()
        return self._maps

    @staticmethod
    def _parse_proc_mappings(text):
        """`info proc mappings` lines; perms is None where gdb omits them."""
        out = []
        for line in text.splitlines():
            m = _MAPS_LINE.match(line)
            if m is None:
                continue
            start, end = int(m.group(1), 16), int(m.group(2), 16)
            offset = int(m.group(4), 16)
            out.append((start, end, offset, m.group(5), m.group(6) or ""))
        return out

    def _native_maps(self):
        """/proc/PID/maps of a native inferior, with inodes, or None.

        `info proc mappings` shows the same file minus the inode column, and
        the inode is what lets the library recognise the executable's
        mapping when the program was started from a file that has since been
        replaced or deleted (the path then ends in " (deleted)" and only
        /proc/PID/exe still opens it), exactly as the CLI does.
        """
        if self.kind != "live" or self.inf.pid <= 0:
            return None
        try:
            with open("/proc/%d/maps" % self.inf.pid, "rb") as f:
                lines = f.read().decode("utf-8", "surrogateescape")
        except OSError:
            return None
        maps = []
        for line in lines.splitlines():
            parts = line.split(None, 5)
            if len(parts) < 5 or "-" not in parts[0]:
                continue
            start, _, end = parts[0].partition("-")
            maps.append((int(start, 16), int(end, 16), int(parts[2], 16),
                         parts[1], parts[5] if len(parts) > 5 else "",
                         int(parts[4])))
        return maps or None

    def _proc_mappings(self):
        # A live process, or gdbserver on Linux (which serves the remote
        # /proc/PID/maps through vFile): gdb 12+ prints the permissions.
        native = self._native_maps()
        if native is not None:
            return sorted(native)
        text = gdb.execute("info proc mappings", to_string=True)
        maps = []
        for start, end, offset, perms, path in self._parse_proc_mappings(text):
            # Without a Perms column (gdb < 12) nothing tells us which
            # mappings are executable; "r--p" keeps the profile's mapping
            # table empty rather than wrong.
            maps.append((start, end, offset, perms or "r--p", path, 0))
        maps.sort()
        return maps

    def _core_mappings(self):
        # A core: the segments (with their permissions) are the core's
        # "loadN" sections as bfd sees them; the file names and offsets
        # come from NT_FILE, which `info proc mappings` prints for a core.
        # This mirrors the library's own core backend (memsrc_core.c).
        # NT_FILE ranges with no segment at all (gcore omits unmodified
        # read-only file mappings) are listed too, as read-only, so the
        # executable's offset-0 mapping is always there.
        files = self._parse_proc_mappings(
            gdb.execute("info proc mappings", to_string=True))
        text = gdb.execute("maintenance info sections", to_string=True)
        segs = []
        in_core = False
        for line in text.splitlines():
            if re.match(r"^\s*Core file:", line):
                in_core = True
                continue
            if re.match(r"^\s*\S.*file:\s", line) and "Core file" not in line:
                in_core = False
                continue
            m = _SECTION_LINE.match(line)
            if not in_core or m is None or not m.group(3).startswith("load"):
                continue
            flags = m.group(4).split()
            if "ALLOC" not in flags:
                continue
            perms = "r%s%sp" % ("-" if "READONLY" in flags else "w",
                                "x" if "CODE" in flags else "-")
            segs.append((int(m.group(1), 16), int(m.group(2), 16), perms))
        # As memsrc_core.c: the vDSO (AT_SYSINFO_EHDR) and x86-64's fixed
        # vsyscall page have no NT_FILE name but runtime/pprof lists them.
        vdso = None
        try:
            auxv = gdb.execute("info auxv", to_string=True)
            m = re.search(r"AT_SYSINFO_EHDR\s.*?(0x[0-9a-fA-F]+)", auxv)
            if m:
                vdso = int(m.group(1), 16)
        except gdb.error:
            pass
        maps = []
        for start, end, perms in segs:
            path, offset = "", 0
            for fs, fe, fo, _, fp in files:
                if fs <= start and end <= fe:
                    path, offset = fp, fo + (start - fs)
                    break
            if not path and vdso is not None and start == vdso:
                path = "[vdso]"
            elif not path and start == 0xffffffffff600000:
                path = "[vsyscall]"
            maps.append((start, end, offset, perms, path, 0))
        for fs, fe, fo, _, fp in files:
            if not any(s < fe and fs < e for s, e, _ in segs):
                maps.append((fs, fe, fo, "r--p", fp, 0))
        maps.sort()
        return maps

    @_guard(GOHEAP_EIO)
    def _cb_mappings(self, ctx, cb, payload):
        try:
            maps = self.mappings()
        except gdb.error as e:
            self.note_error("listing mappings", e)
            return GOHEAP_EUNSUPPORTED
        for start, end, offset, perms, path, inode in maps:
            m = _Mapping()
            m.start, m.end, m.offset, m.inode = start, end, offset, inode
            m.perms = perms.encode("ascii")[:4]
            bpath = os.fsencode(path)
            m.path = bpath
            m.open_path = None
            if inode != 0 and path.startswith("/") and self.inf.pid > 0:
                # As the CLI: the mapped file itself, even if replaced.
                bopen = b"/proc/%d/map_files/%x-%x" % (self.inf.pid, start,
                                                      end)
                m.open_path = bopen
            rc = cb(ctypes.byref(m), payload)
            if rc != 0:
                return rc
        return 0

    # ---- executable, target, description -------------------------------

    def executable(self):
        """A local path of the inferior's executable, or None."""
        name = gdb.current_progspace().filename
        if name is None and self.kind == "live" and self.inf.pid > 0:
            name = "/proc/%d/exe" % self.inf.pid
        if name is None:
            return None
        if name.startswith("target:"):
            # sysroot "target:" (the default with gdbserver): the file is on
            # the target.  Use it directly when it is also visible here (a
            # gdbserver on this machine), else fetch a copy once.
            remote = name[len("target:"):]
            if os.path.isfile(remote):
                return remote
            self.tmpdir = tempfile.mkdtemp(prefix="go-heap-gdb.")
            local = os.path.join(self.tmpdir, os.path.basename(remote))
            gdb.execute("remote get %s %s" % (gdb_quote(remote),
                                              gdb_quote(local)),
                        to_string=True)
            return local
        if not os.path.exists(name) and self.kind == "live" and \
                self.inf.pid > 0:
            return "/proc/%d/exe" % self.inf.pid
        return name

    @_guard(GOHEAP_ENOEXE)
    def _cb_executable(self, ctx, buf, length):
        try:
            path = self.executable()
        except gdb.error as e:
            self.note_error("fetching the executable", e)
            return GOHEAP_ENOEXE
        if path is None:
            self.error = ("gdb knows no executable for this inferior; load "
                          "it with `file EXE`")
            return GOHEAP_ENOEXE
        data = os.fsencode(path) + b"\0"
        if len(data) > length:
            return GOHEAP_EINVAL
        ctypes.memmove(buf, data, len(data))
        return 0

    @_guard(GOHEAP_EIO)
    def _cb_target_info(self, ctx, out):
        # `out` arrives filled from the executable's ELF header; fields gdb
        # cannot tell us are left as they are.
        try:
            out.contents.ptr_size = gdb.lookup_type("void").pointer().sizeof
        except gdb.error:
            pass
        try:
            endian = gdb.execute("show endian", to_string=True)
            m = re.search(r"\b(big|little) endian", endian)
            if m:
                out.contents.big_endian = 1 if m.group(1) == "big" else 0
        except gdb.error:
            pass
        try:
            arch = self.inf.architecture().name()
        except (gdb.error, AttributeError):
            arch = ""
        for prefix, machine in _MACHINES:
            if arch.startswith(prefix):
                out.contents.machine = machine
                break
        return 0

    @_guard(GOHEAP_EIO)
    def _cb_write(self, ctx, addr, buf, length):
        # --force: the library calls this only when every thread is stopped,
        # which under gdb (all-stop) they are while the command runs.
        data = ctypes.string_at(buf, length)
        self.blocks.clear()
        self.order.clear()
        try:
            self.inf.write_memory(addr, data)
        except gdb.MemoryError:
            return GOHEAP_EUNMAPPED
        except gdb.error as e:
            self.note_error("writing memory", e)
            return GOHEAP_EIO
        return 0

    @_guard(GOHEAP_EINVAL)
    def _cb_describe(self, ctx, buf, length):
        text = "gdb inferior %d (%s)" % (self.inf.num, self.kind)
        data = text.encode("utf-8")[:max(length - 1, 0)] + b"\0"
        if length > 0:
            ctypes.memmove(buf, data, len(data))
        return 0

    @_guard(None)
    def _cb_close(self, ctx):
        self.blocks.clear()
        self.order.clear()
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


def gdb_quote(s):
    """Quote a file name for a gdb command line (gdb_buildargv rules)."""
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


# ---------------------------------------------------------------------------
# The command.

_FILE_ARG = ("-o", "--output")


def _option_table(lib):
    """[(long, letter or None, ARG or None, (values...), help)] from the
    library's own option table (goheap_command_options)."""
    buf = ctypes.create_string_buffer(16384)
    if lib.goheap_command_options(buf, len(buf)) != 0:
        return []
    rows = []
    for line in buf.value.decode("utf-8", "replace").splitlines():
        f = line.split("\t")
        if len(f) != 5:
            continue
        rows.append((f[0], None if f[1] == "-" else f[1], f[2] or None,
                     tuple(v for v in f[3].split("|") if v), f[4]))
    return rows


def _completions(rows):
    """Option words and, per option spelling, its accepted values."""
    words = tuple(sorted("--" + r[0] for r in rows))
    values = {}
    for lng, letter, _, vals, _ in rows:
        if vals:
            values["--" + lng] = vals
            if letter:
                values["-" + letter] = vals
    return words, values


def _help_text(rows):
    """`help go-heap`: fixed prose around the rows of the option table."""
    lines = []
    for lng, letter, arg, _, hlp in rows:
        left = ("-%s, " % letter if letter else "    ") + "--" + lng
        if arg:
            left += "[=%s]" % arg if lng == "force" else " " + arg
        lines.append("  %-24s %s" % (left, hlp))
    return _DOC_HEAD + "\n".join(lines) + "\n" + _DOC_TAIL


_DOC_HEAD = """Write the Go heap profile of the current inferior, as runtime/pprof would.

Usage: go-heap [OPTIONS]

Reads the sampled heap profile (runtime.mbuckets) of the Go program being
debugged, a live process, a core file or a gdbserver target, through gdb's
memory access, and writes it like runtime/pprof.  The options are those of
the go-heap command line (its option table, read from libgoheap), without
the target: the current inferior is the target, and its executable is the
current program's.

"""

_DOC_TAIL = """
Output goes through gdb's pager; pprof output needs -o FILE.  Errors are
reported as gdb errors; the command fails with "memory profiling is
disabled" when the target's MemProfileRate is 0 (see --force; live and
remote targets only, refused on a core).

The library libgoheap is found through $GOHEAP_LIBRARY, else next to this
script in a built source tree (src/.libs, build/src/.libs), else in the
installation's lib directory, else by the dynamic linker.

Examples:
  go-heap                      top table of in-use space
  go-heap -f text              Go's debug=1 text, as pprof.Lookup("heap")
  go-heap -o heap.pb.gz        gzip'd profile.proto for `go tool pprof`
  go-heap -p allocs -f collapsed -o allocs.folded
  go-heap -p goroutine -f traceback   every goroutine, as debug=2
  info goroutines              one line per goroutine (-f list)"""


def _init_options():
    """Help and completion from the library; without it, a doc that says
    why (the command itself then reports the same error)."""
    try:
        rows = _option_table(_load_library())
    except gdb.GdbError as e:
        return (), {}, "%s\n\n%s" % (_DOC_HEAD.rstrip(), e)
    words, values = _completions(rows)
    return words, values, _help_text(rows)


_OPTIONS, _VALUES, _DOC = (), {}, ""
_MSG_LEN = 16384


class GoHeapCommand(gdb.Command):
    """Write the Go heap profile of the current inferior (see help go-heap)."""

    def __init__(self):
        # gdb reads the class docstring for `help go-heap` when the command
        # is registered: generate it from the library's option table first.
        global _OPTIONS, _VALUES, _DOC
        _OPTIONS, _VALUES, _DOC = _init_options()
        type(self).__doc__ = _DOC
        super().__init__("go-heap", gdb.COMMAND_DATA)

    # ---- completion ------------------------------------------------------

    def complete(self, text, word):
        try:
            return self._complete(text, word)
        except Exception:  # completion must never raise
            return []

    def _complete(self, text, word):
        word = word or ""
        words = text.split()
        partial = bool(text) and not text[-1].isspace() and bool(words)
        current = words[-1] if partial else ""
        prev = (words[-2] if len(words) >= 2 else None) if partial else \
            (words[-1] if words else None)
        if current.startswith("--") and "=" in current:
            name, _, current = current.partition("=")
            cands = _VALUES.get(name, ())
        elif prev in _FILE_ARG:
            # Returning gdb.COMPLETE_FILENAME completes nothing in gdb 13
            # when the command also completes words itself; list the files.
            cands = [p + "/" if os.path.isdir(p) else p
                     for p in glob.glob(glob.escape(current) + "*")]
        elif prev in _VALUES:
            cands = _VALUES[prev]
        elif current == "" or current.startswith("-"):
            cands = _OPTIONS
        else:
            return []
        # gdb replaces only `word`, which its word-break characters ('-',
        # '=') may have cut shorter than what was typed.
        cut = max(len(current) - len(word), 0)
        return [c[cut:] for c in cands if c.startswith(current)]

    # ---- running ---------------------------------------------------------

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        try:
            self._invoke(arg)
        except gdb.GdbError:
            raise
        except KeyboardInterrupt:
            raise gdb.GdbError("go-heap: interrupted")
        except gdb.error as e:
            raise gdb.GdbError("go-heap: %s" % e)
        except Exception as e:
            raise gdb.GdbError("go-heap: internal error: %s: %s"
                               % (type(e).__name__, e))

    @staticmethod
    def _front_options(argv):
        """The options this file answers itself (no target needed)."""
        seen = set()
        for a in argv:
            if a == "--":
                break
            if a in ("-h", "--help", "--version"):
                seen.add("--help" if a == "-h" else a)
        return seen

    def _invoke(self, arg):
        argv = gdb.string_to_argv(arg)
        front = self._front_options(argv)
        if "--help" in front:
            gdb.write(_DOC + "\n")
            return
        lib = _load_library()
        if "--version" in front:
            gdb.write("go-heap %s (libgoheap)\n"
                      % lib.goheap_version().decode("utf-8", "replace"))
            return
        res, out = self.run(lib, argv)
        if res.message and not res.quiet:
            gdb.write(res.message.decode("utf-8", "replace") + "\n")
        if out is None:
            return
        if res.output:
            path = os.fsdecode(res.output)
            try:
                with open(path, "wb") as f:
                    f.write(out)
            except OSError as e:
                raise gdb.GdbError("go-heap: writing %s: %s"
                                   % (path, e.strerror or e))
            if not res.quiet:
                gdb.write("wrote %d bytes to %s\n" % (len(out), path))
            return
        if res.format == GOHEAP_FORMAT_PPROF:
            raise gdb.GdbError("go-heap: this output is binary (pprof); "
                               "write it to a file with -o FILE")
        gdb.write(out.decode("utf-8", "replace"))

    @classmethod
    def run(cls, lib, argv):
        """goheap_command(argv) on the selected inferior: (result, bytes or
        None); warnings are written, errors raised as gdb.GdbError."""
        inf = gdb.selected_inferior()
        if inf is None or inf.pid == 0:
            raise gdb.GdbError(
                "go-heap: no inferior: run or attach to a Go program, open a "
                "core (gdb EXE CORE) or connect to gdbserver first")

        src = _GdbSource()
        sess = ctypes.c_void_p()
        opts = _Options(GOHEAP_OPTIONS_VERSION, None, None, 0)
        res = _CommandResult()
        res.size = ctypes.sizeof(_CommandResult)
        try:
            rc = lib.goheap_open_memsrc(ctypes.byref(sess),
                                        ctypes.byref(src.ops), None,
                                        ctypes.byref(opts))
            if rc != 0:
                raise gdb.GdbError("go-heap: %s" % cls._message(
                    lib.goheap_errmsg(sess), src))
            status, out = cls._command(lib, sess, argv, res)
            if status == 0 and res.verbose:
                gdb.write(lib.goheap_describe(sess).decode(
                    "utf-8", "replace") + "\n", gdb.STDERR)
        finally:
            # goheap_close calls src's close callback, so src (and the
            # ctypes callbacks it holds) must stay alive until it returns.
            lib.goheap_close(sess)
            cls._trace(src)
        if status != 0:
            raise gdb.GdbError("go-heap: %s" % cls._message(res.message,
                                                            src))
        if res.warnings and not res.quiet:
            for w in res.warnings.decode("utf-8", "replace").splitlines():
                gdb.write("go-heap: %s\n" % w, gdb.STDERR)
        return res, out

    @staticmethod
    def _command(lib, sess, argv, res):
        bargs = [os.fsencode(a) for a in argv]
        cargv = (ctypes.c_char_p * (len(bargs) + 1))(*bargs, None)
        status = lib.goheap_command(sess, len(bargs), cargv,
                                    ctypes.byref(res))
        data = None
        if res.out:
            try:
                data = ctypes.string_at(res.out, res.out_len)
            finally:
                lib.goheap_free(ctypes.c_void_p(res.out))
                res.out = None
        # res.output points into cargv: copy it while cargv is alive.
        res.output = bytes(res.output) if res.output else None
        return status, data

    @staticmethod
    def _message(msg, src):
        text = (msg or b"").decode("utf-8", "replace").strip()
        if src.error:
            # The library's message says what it was reading; ours says why
            # gdb could not (or that a callback failed).
            text = "%s (gdb: %s)" % (text, src.error) if text else src.error
        return text or "failed"

    @staticmethod
    def _trace(src):
        if os.environ.get("GOHEAP_GDB_TRACE"):
            gdb.write("go-heap: %s: %d gdb reads, %d bytes, %d mappings\n"
                      % (src.kind, src.nreads, src.nbytes,
                         len(src._maps or ())), gdb.STDERR)


GoHeapCommand()


# ---------------------------------------------------------------------------
# `info goroutines`: go-heap -p goroutine -f list, one line per goroutine.

_THREAD_TAG = re.compile(r"  \(thread (\d+)\)$")


def _selected_lwp():
    """The LWP of gdb's selected thread (a core's or gdbserver's thread id
    too), or None."""
    try:
        th = gdb.selected_thread()
    except gdb.error:
        return None
    if th is None or not th.is_valid():
        return None
    pid, lwp, tid = th.ptid
    return lwp or tid or None


def _mark_list(text, lwp):
    """Prefix each goroutine line of a `-f list` text with '* ' when it runs
    on thread `lwp` ("(thread N)", m.procid), else two spaces."""
    out = []
    for line in text.splitlines():
        if line.startswith("#"):
            out.append(line)
            continue
        m = _THREAD_TAG.search(line)
        mine = m is not None and lwp is not None and int(m.group(1)) == lwp
        out.append(("* " if mine else "  ") + line)
    return "\n".join(out) + ("\n" if out else "")


class InfoGoroutinesCommand(gdb.Command):
    """List the goroutines of the current inferior, one line each.

Usage: info goroutines

What `go-heap -p goroutine -f list` writes (libgoheap, as the go-heap
command): every goroutine runtime.Stack(buf, true) would print, in allgs
order, as

  ID [STATUS]  FUNCTION  FILE:LINE  created by F in goroutine N  (thread TID)

STATUS is the debug=2 header's (wait reason, minutes, "locked to thread");
FUNCTION and FILE:LINE are the first frame of that goroutine's traceback
(runtime frames hidden as the runtime hides them); "(thread TID)" names
the thread (m.procid) of a goroutine on an M, and '*' marks the one on
gdb's selected thread.  A running goroutine's stack is not shown (the
runtime's rule; use `bt` on its thread).  Full tracebacks:
go-heap -p goroutine -f traceback."""

    def __init__(self):
        super().__init__("info goroutines", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        try:
            if gdb.string_to_argv(arg):
                raise gdb.GdbError("info goroutines: no arguments expected "
                                   "(go-heap -p goroutine -f list takes the "
                                   "options)")
            lib = _load_library()
            _, out = GoHeapCommand.run(
                lib, ["-p", "goroutine", "-f", "list"])
            gdb.write(_mark_list((out or b"").decode("utf-8", "replace"),
                                 _selected_lwp()))
        except gdb.GdbError:
            raise
        except KeyboardInterrupt:
            raise gdb.GdbError("info goroutines: interrupted")
        except gdb.error as e:
            raise gdb.GdbError("go-heap: %s" % e)
        except Exception as e:
            raise gdb.GdbError("go-heap: internal error: %s: %s"
                               % (type(e).__name__, e))


InfoGoroutinesCommand()
