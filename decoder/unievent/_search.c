/* unievent._search: bytes.find and bytes.rfind as C functions (compiled build;
 * _search.py is the pure-Python build's stand-in, and the definition this module is
 * tested against, tests/test_search.py).
 *
 * Compiled code calls a bytes method it has no primitive for as a Python method: the
 * arguments go into a tuple and are parsed from it by format, about 1,000 instructions
 * a call, where the search itself (a line end in a network read) takes a few dozen.
 * The framers make several such calls a push, and Gemini's template one a record.
 * Here a call is a vectorcall of a METH_FASTCALL function.
 *
 * find(data, sub[, start]) and rfind(data, sub[, start]) return what data.find(sub,
 * start) and data.rfind(sub, start) return, for bytes `data` and `sub` and an int
 * `start` (negative counts from the end).  find looks for a needle of more than two
 * bytes with glibc's memmem (a two-way search, linear) where there is one; otherwise
 * a match is found by memchr (memrchr) for its first byte, then compared whole: time
 * at most len(data) * len(sub), linear for the short separators the framers look for.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* the last `c` among the `size` bytes at `s`, or NULL: memrchr where the C library has
 * it (pyconfig.h defines _GNU_SOURCE, which declares it in glibc), else a loop */
static const char *
last_byte(const char *s, char c, size_t size)
{
#if defined(__GLIBC__)
    return memrchr(s, c, size);
#else
    while (size > 0) {
        size -= 1;
        if (s[size] == c) {
            return s + size;
        }
    }
    return NULL;
#endif
}

/* the arguments of find and rfind; 0 on success, -1 with an exception set */
static int
parse(const char *name, PyObject *const *args, Py_ssize_t nargs, PyObject **data, PyObject **sub,
      Py_ssize_t *start)
{
    if (nargs < 2 || nargs > 3) {
        PyErr_Format(PyExc_TypeError, "%s() takes 2 or 3 arguments (%zd given)", name, nargs);
        return -1;
    }
    if (!PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[1])) {
        PyErr_Format(PyExc_TypeError, "%s() searches bytes for bytes", name);
        return -1;
    }
    *data = args[0];
    *sub = args[1];
    *start = 0;
    if (nargs == 3) {
        if (!PyLong_CheckExact(args[2])) {
            PyErr_Format(PyExc_TypeError, "%s() takes an int start", name);
            return -1;
        }
        *start = PyLong_AsSsize_t(args[2]);
        if (*start == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (*start < 0) {
            *start += PyBytes_GET_SIZE(args[0]);
            if (*start < 0) {
                *start = 0;
            }
        }
    }
    return 0;
}

PyDoc_STRVAR(find_doc, "find(data, sub, start=0) -> int\n\nWhat data.find(sub, start) returns.");

static PyObject *
find(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *data, *sub;
    Py_ssize_t start;
    if (parse("find", args, nargs, &data, &sub, &start) < 0) {
        return NULL;
    }
    const char *s = PyBytes_AS_STRING(data);
    const char *p = PyBytes_AS_STRING(sub);
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    Py_ssize_t m = PyBytes_GET_SIZE(sub);
    if (start > n || m > n - start) {
        return PyLong_FromSsize_t(-1);
    }
    if (m == 0) {
        return PyLong_FromSsize_t(start);
    }
#if defined(__GLIBC__)
    if (m > 2) { /* glibc's memmem is a two-way search: linear in len(data) */
        const char *hit = memmem(s + start, (size_t)(n - start), p, (size_t)m);
        return PyLong_FromSsize_t(hit == NULL ? -1 : hit - s);
    }
#endif
    Py_ssize_t last = n - m; /* the last place a match may start */
    Py_ssize_t at = start;
    while (at <= last) {
        const char *hit = memchr(s + at, p[0], (size_t)(last - at + 1));
        if (hit == NULL) {
            break;
        }
        at = hit - s;
        if (memcmp(hit + 1, p + 1, (size_t)(m - 1)) == 0) {
            return PyLong_FromSsize_t(at);
        }
        at += 1;
    }
    return PyLong_FromSsize_t(-1);
}

PyDoc_STRVAR(rfind_doc, "rfind(data, sub, start=0) -> int\n\nWhat data.rfind(sub, start) returns.");

static PyObject *
rfind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *data, *sub;
    Py_ssize_t start;
    if (parse("rfind", args, nargs, &data, &sub, &start) < 0) {
        return NULL;
    }
    const char *s = PyBytes_AS_STRING(data);
    const char *p = PyBytes_AS_STRING(sub);
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    Py_ssize_t m = PyBytes_GET_SIZE(sub);
    if (start > n || m > n - start) {
        return PyLong_FromSsize_t(-1);
    }
    if (m == 0) {
        return PyLong_FromSsize_t(n);
    }
    Py_ssize_t at = n - m; /* the last place a match may start */
    while (at >= start) {
        const char *hit = last_byte(s + start, p[0], (size_t)(at - start + 1));
        if (hit == NULL) {
            break;
        }
        at = hit - s;
        if (memcmp(hit + 1, p + 1, (size_t)(m - 1)) == 0) {
            return PyLong_FromSsize_t(at);
        }
        at -= 1;
    }
    return PyLong_FromSsize_t(-1);
}

static PyMethodDef methods[] = {
    {"find", (PyCFunction)(void (*)(void))find, METH_FASTCALL, find_doc},
    {"rfind", (PyCFunction)(void (*)(void))rfind, METH_FASTCALL, rfind_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "unievent._search",
    "bytes.find and bytes.rfind, called as C functions.",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__search(void)
{
    return PyModule_Create(&module);
}
