/* unievent._search: bytes.find and bytes.rfind as C functions (compiled build;
 * _search.py is the pure-Python build's stand-in, and the definition this module is
 * tested against, tests/test_search.py).
 *
 * Compiled code calls a bytes method it has no primitive for as a Python method: the
 * arguments go into a tuple and are parsed from it by format, about 1,000 instructions
 * a call, where the search itself (a line end in a network read) takes a few dozen.
 * The framers make several such calls a push.
 * Here a call is a vectorcall of a METH_FASTCALL function.
 *
 * find(data, sub[, start]) and rfind(data, sub[, start]) return what data.find(sub,
 * start) and data.rfind(sub, start) return, for bytes `data` and `sub` and an int
 * `start` (negative counts from the end), with the searches of _bytesearch.h: a needle
 * of more than two bytes found with glibc's memmem (a two-way search, linear) where
 * there is one; otherwise a match is found by memchr (memrchr) for its first byte,
 * then compared whole: time at most len(data) * len(sub), linear for the short
 * separators the framers look for.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "_bytesearch.h"

/* one search: the haystack, the needle, and where the search starts */
typedef struct {
    const char *s;
    const char *p;
    Py_ssize_t n;
    Py_ssize_t m;
    Py_ssize_t start;
} Search;

/* the arguments of find and rfind; 0 on success, -1 with an exception set */
static int
parse(const char *name, PyObject *const *args, Py_ssize_t nargs, Search *q)
{
    if (nargs < 2 || nargs > 3) {
        PyErr_Format(PyExc_TypeError, "%s() takes 2 or 3 arguments (%zd given)", name, nargs);
        return -1;
    }
    if (!PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[1])) {
        PyErr_Format(PyExc_TypeError, "%s() searches bytes for bytes", name);
        return -1;
    }
    q->s = PyBytes_AS_STRING(args[0]);
    q->p = PyBytes_AS_STRING(args[1]);
    q->n = PyBytes_GET_SIZE(args[0]);
    q->m = PyBytes_GET_SIZE(args[1]);
    q->start = 0;
    if (nargs == 3) {
        if (!PyLong_CheckExact(args[2])) {
            PyErr_Format(PyExc_TypeError, "%s() takes an int start", name);
            return -1;
        }
        q->start = PyLong_AsSsize_t(args[2]);
        if (q->start == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (q->start < 0) { /* from the end, as a slice index */
            q->start += q->n;
            if (q->start < 0) {
                q->start = 0;
            }
        }
    }
    return 0;
}

/* the last match at or after start, or -1 (a needle that fits there, not empty) */
static Py_ssize_t
last_match(const Search *q)
{
    const char *s = q->s;
    const char *p = q->p;
    Py_ssize_t m = q->m;
    Py_ssize_t at = q->n - m; /* the last place a match may start */
    while (at >= q->start) {
        const char *hit = last_byte(s + q->start, p[0], (size_t)(at - q->start + 1));
        if (hit == NULL) {
            break;
        }
        at = hit - s;
        if (memcmp(hit + 1, p + 1, (size_t)(m - 1)) == 0) {
            return at;
        }
        at -= 1;
    }
    return -1;
}

PyDoc_STRVAR(find_doc, "find(data, sub, start=0) -> int\n\nWhat data.find(sub, start) returns.");

static PyObject *
find(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Search q;
    if (parse("find", args, nargs, &q) < 0) {
        return NULL;
    }
    /* no room for the needle after start; an empty one is found at start */
    Py_ssize_t at = q.start > q.n - q.m ? -1 : q.m == 0 ? q.start : find_from(q.s, q.n, q.start, q.p, q.m);
    return PyLong_FromSsize_t(at);
}

PyDoc_STRVAR(rfind_doc, "rfind(data, sub, start=0) -> int\n\nWhat data.rfind(sub, start) returns.");

static PyObject *
rfind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Search q;
    if (parse("rfind", args, nargs, &q) < 0) {
        return NULL;
    }
    /* no room for the needle after start; an empty one is found at the end */
    Py_ssize_t at = q.start > q.n - q.m ? -1 : q.m == 0 ? q.n : last_match(&q);
    return PyLong_FromSsize_t(at);
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
