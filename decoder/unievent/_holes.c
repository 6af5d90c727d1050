/* unievent._holes: a run of hot frames matched against a template's bytes, in C
 * (compiled build; _holes.py is the pure-Python build's stand-in, and the definition
 * this module is tested against, tests/test_holes.py).
 *
 * holes(payloads, start, stop, counter, step, shape) returns what the stand-in
 * returns: the string's hole of each payload of payloads[start:stop], up to the first
 * that is not the template's; value_holes(payloads, start, stop, head, mid, tail,
 * strings, values) appends what the stand-in appends, the two holes of a template
 * with a JSON value after its string.  Compiled code would make each comparison a slice (a new
 * bytes object) and each counter a `%` format: about 2,300 instructions a frame.  Here
 * the bytes are compared where they are (memcmp), the counter's digits are written
 * into a buffer, and only the hole becomes an object.  A counter too large for a
 * machine integer is formatted and added as a Python int, as the stand-in does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "_bytesearch.h"

#define PAD_LAST 1
#define PAD_FIRST 2
/* counters and steps this small never overflow a long long in a run of fewer than
 * SMALL_RUN frames */
#define SMALL_COUNTER (1LL << 62)
#define SMALL_STEP (1LL << 30)
#define SMALL_RUN ((Py_ssize_t)1 << 30)

/* a template's bytes (see _holes.py: Shape) */
typedef struct {
    const char *head, *head2, *tail, *tail2, *between;
    Py_ssize_t head_size, head2_size, tail_size, tail2_size, between_size;
    int counter_in_head, counter_in_tail;
    long pad;
    Py_ssize_t pad_size;
    const unsigned char *plain;
} Shape;

static int
shape_bytes(PyObject *shape, Py_ssize_t i, const char **s, Py_ssize_t *n)
{
    PyObject *o = PyTuple_GET_ITEM(shape, i);
    if (!PyBytes_CheckExact(o)) {
        PyErr_Format(PyExc_TypeError, "holes(): item %zd of the shape is not bytes", i);
        return -1;
    }
    *s = PyBytes_AS_STRING(o);
    *n = PyBytes_GET_SIZE(o);
    return 0;
}

static int
shape_int(PyObject *shape, Py_ssize_t i, Py_ssize_t *v)
{
    PyObject *o = PyTuple_GET_ITEM(shape, i);
    if (!PyLong_Check(o)) { /* (a bool is an int) */
        PyErr_Format(PyExc_TypeError, "holes(): item %zd of the shape is not an int", i);
        return -1;
    }
    *v = PyLong_AsSsize_t(o);
    return *v == -1 && PyErr_Occurred() ? -1 : 0;
}

/* the shape tuple read into `sh`; 0 on success, -1 with an exception set */
static int
read_shape(PyObject *shape, Shape *sh)
{
    Py_ssize_t in_head, in_tail, pad, plain_size;
    const char *plain;
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 10) {
        PyErr_SetString(PyExc_TypeError, "holes(): the shape is a tuple of 10");
        return -1;
    }
    if (shape_bytes(shape, 0, &sh->head, &sh->head_size) < 0 || shape_bytes(shape, 1, &sh->head2, &sh->head2_size) < 0 ||
        shape_int(shape, 2, &in_head) < 0 || shape_bytes(shape, 3, &sh->tail, &sh->tail_size) < 0 ||
        shape_bytes(shape, 4, &sh->tail2, &sh->tail2_size) < 0 || shape_int(shape, 5, &in_tail) < 0 ||
        shape_int(shape, 6, &pad) < 0 || shape_bytes(shape, 7, &sh->between, &sh->between_size) < 0 ||
        shape_int(shape, 8, &sh->pad_size) < 0 || shape_bytes(shape, 9, &plain, &plain_size) < 0) {
        return -1;
    }
    if (plain_size != 256 || sh->pad_size < 0) {
        PyErr_SetString(PyExc_ValueError, "holes(): the table is 256 bytes, the padding's size not negative");
        return -1;
    }
    sh->counter_in_head = in_head != 0;
    sh->counter_in_tail = in_tail != 0;
    sh->pad = (long)pad;
    sh->plain = (const unsigned char *)plain;
    return 0;
}

/* the frame's counter: a long long while it is small, else a Python int */
typedef struct {
    int small;
    long long value, step;
    PyObject *number; /* owned, when not small */
    PyObject *by;     /* borrowed: the step, when not small */
} Counter;

/* the digits of `value` (as b"%d" writes them) into `buf` (24 bytes); their count */
static Py_ssize_t
small_digits(long long value, char *buf)
{
    char reversed[24];
    int count = 0;
    unsigned long long u = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    do {
        reversed[count++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u != 0);
    Py_ssize_t size = 0;
    if (value < 0) {
        buf[size++] = '-';
    }
    while (count > 0) {
        buf[size++] = reversed[--count];
    }
    return size;
}

/* the digits of the counter: in `buf`, or in a new bytes object `*big` (digits point
 * into it); -1 with an exception set */
static Py_ssize_t
counter_digits(Counter *c, char *buf, const char **digits, PyObject **big)
{
    if (c->small) {
        *digits = buf;
        return small_digits(c->value, buf);
    }
    PyObject *text = PyObject_Str(c->number);
    if (text == NULL) {
        return -1;
    }
    *big = PyUnicode_AsASCIIString(text);
    Py_DECREF(text);
    if (*big == NULL) {
        return -1;
    }
    *digits = PyBytes_AS_STRING(*big);
    return PyBytes_GET_SIZE(*big);
}

static int
counter_next(Counter *c)
{
    if (c->small) {
        c->value += c->step;
        return 0;
    }
    PyObject *next = PyNumber_Add(c->number, c->by);
    if (next == NULL) {
        return -1;
    }
    Py_SETREF(c->number, next);
    return 0;
}

/* what `s[at:at + m] == p` is in Python, for at >= 0 */
static int
slice_is(const char *s, Py_ssize_t n, Py_ssize_t at, const char *p, Py_ssize_t m)
{
    if (m == 0) {
        return 1;
    }
    return at < n && n - at >= m && memcmp(s + at, p, (size_t)m) == 0;
}

/* whether the table maps each of the bytes from `from` to `to` to itself */
static int
plain_bytes(const unsigned char *plain, const char *s, Py_ssize_t from, Py_ssize_t to)
{
    for (Py_ssize_t i = from; i < to; i++) {
        unsigned char byte = (unsigned char)s[i];
        if (plain[byte] != byte) {
            return 0;
        }
    }
    return 1;
}

/* the hole of the frame `s` (n bytes) as [*begin_out, *end_out); 0: it is not the
 * template's frame */
static int
hole_of(const Shape *sh, const char *s, Py_ssize_t n, const char *d, Py_ssize_t dn, Py_ssize_t *begin_out,
        Py_ssize_t *end_out)
{
    Py_ssize_t begin = sh->head_size;
    if (n < begin || memcmp(s, sh->head, (size_t)sh->head_size) != 0) {
        return 0;
    }
    if (sh->counter_in_head) {
        begin += dn + sh->head2_size;
        if (n < begin || memcmp(s + sh->head_size, d, (size_t)dn) != 0 ||
            memcmp(s + sh->head_size + dn, sh->head2, (size_t)sh->head2_size) != 0) {
            return 0;
        }
    }
    Py_ssize_t end = n - sh->tail_size;
    if (end < begin || memcmp(s + end, sh->tail, (size_t)sh->tail_size) != 0) {
        return 0;
    }
    if (sh->counter_in_tail) {
        Py_ssize_t cut = end - (sh->tail2_size + dn);
        if (cut < begin || memcmp(s + cut, sh->tail2, (size_t)sh->tail2_size) != 0 ||
            memcmp(s + cut + sh->tail2_size, d, (size_t)dn) != 0) {
            return 0;
        }
        end = cut;
    }
    if (sh->pad == PAD_LAST) {
        /* the padding: after the last quote before the tail */
        const char *mark = last_byte(s + begin, '"', (size_t)(end - begin));
        if (mark == NULL) {
            return 0;
        }
        Py_ssize_t quote = mark - s + 1;
        Py_ssize_t cut = quote - sh->between_size;
        if (cut < begin || memcmp(s + cut, sh->between, (size_t)sh->between_size) != 0 ||
            !plain_bytes(sh->plain, s, quote, end)) {
            return 0;
        }
        end = cut;
    }
    else if (sh->pad == PAD_FIRST) {
        /* the padding: up to its learned length when `between` follows, else the first quote */
        Py_ssize_t quote = begin + sh->pad_size;
        if (!slice_is(s, n, quote, sh->between, sh->between_size)) {
            const char *mark = memchr(s + begin, '"', (size_t)(end - begin));
            if (mark == NULL) {
                return 0;
            }
            quote = mark - s;
            if (!slice_is(s, n, quote, sh->between, sh->between_size)) {
                return 0;
            }
        }
        if (!plain_bytes(sh->plain, s, begin, quote < n ? quote : n)) {
            return 0;
        }
        begin = quote + sh->between_size;
    }
    if (end <= begin) {
        return 0;
    }
    *begin_out = begin;
    *end_out = end;
    return 1;
}

PyDoc_STRVAR(holes_doc, "holes(payloads, start, stop, counter, step, shape) -> list\n\n"
                        "What unievent._holes.holes (the stand-in) returns.");

static PyObject *
holes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "holes() takes 6 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *payloads = args[0];
    if (!PyList_CheckExact(payloads) || !PyLong_Check(args[1]) || !PyLong_Check(args[2]) || !PyLong_Check(args[3]) ||
        !PyLong_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "holes() takes a list, four ints and a shape");
        return NULL;
    }
    Shape sh;
    if (read_shape(args[5], &sh) < 0) {
        return NULL;
    }
    Py_ssize_t start = PyNumber_AsSsize_t(args[1], NULL); /* clamped, as a slice's bounds are */
    Py_ssize_t stop = PyNumber_AsSsize_t(args[2], NULL);
    PySlice_AdjustIndices(PyList_GET_SIZE(payloads), &start, &stop, 1);

    int counted = sh.counter_in_head || sh.counter_in_tail;
    Counter c = {1, 0, 0, NULL, NULL};
    if (counted) {
        int over_value, over_step;
        c.value = PyLong_AsLongLongAndOverflow(args[3], &over_value);
        c.step = PyLong_AsLongLongAndOverflow(args[4], &over_step);
        if (PyErr_Occurred()) {
            return NULL;
        }
        c.small = !over_value && !over_step && c.value > -SMALL_COUNTER && c.value < SMALL_COUNTER &&
                  c.step > -SMALL_STEP && c.step < SMALL_STEP && stop - start < SMALL_RUN;
        if (!c.small) {
            c.number = Py_NewRef(args[3]);
            c.by = args[4];
        }
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        Py_XDECREF(c.number);
        return NULL;
    }
    char buf[24];
    for (Py_ssize_t i = start; i < stop && i < PyList_GET_SIZE(payloads); i++) {
        PyObject *payload = PyList_GET_ITEM(payloads, i);
        if (!PyBytes_CheckExact(payload)) {
            break;
        }
        const char *d = NULL;
        Py_ssize_t dn = 0;
        PyObject *big = NULL;
        if (counted) {
            dn = counter_digits(&c, buf, &d, &big);
            if (dn < 0) {
                goto error;
            }
        }
        Py_ssize_t begin, end;
        int matched = hole_of(&sh, PyBytes_AS_STRING(payload), PyBytes_GET_SIZE(payload), d, dn, &begin, &end);
        Py_XDECREF(big);
        if (!matched) {
            break;
        }
        PyObject *hole = PyBytes_FromStringAndSize(PyBytes_AS_STRING(payload) + begin, end - begin);
        if (hole == NULL) {
            goto error;
        }
        int appended = PyList_Append(out, hole);
        Py_DECREF(hole);
        if (appended < 0 || (counted && counter_next(&c) < 0)) {
            goto error;
        }
    }
    Py_XDECREF(c.number);
    return out;
error:
    Py_XDECREF(c.number);
    Py_DECREF(out);
    return NULL;
}

PyDoc_STRVAR(value_holes_doc, "value_holes(payloads, start, stop, head, mid, tail, strings, values) -> None\n\n"
                              "What unievent._holes.value_holes (the stand-in) does.");

static PyObject *
value_holes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_Format(PyExc_TypeError, "value_holes() takes 8 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *payloads = args[0], *strings = args[6], *values = args[7];
    if (!PyList_CheckExact(payloads) || !PyLong_Check(args[1]) || !PyLong_Check(args[2]) ||
        !PyBytes_CheckExact(args[3]) || !PyBytes_CheckExact(args[4]) || !PyBytes_CheckExact(args[5]) ||
        !PyList_CheckExact(strings) || !PyList_CheckExact(values)) {
        PyErr_SetString(PyExc_TypeError, "value_holes() takes a list, two ints, three bytes and two lists");
        return NULL;
    }
    const char *head = PyBytes_AS_STRING(args[3]), *mid = PyBytes_AS_STRING(args[4]), *tail = PyBytes_AS_STRING(args[5]);
    Py_ssize_t head_size = PyBytes_GET_SIZE(args[3]), mid_size = PyBytes_GET_SIZE(args[4]);
    Py_ssize_t tail_size = PyBytes_GET_SIZE(args[5]);
    Py_ssize_t mid_start = mid_size < 4 ? mid_size : 4; /* looked for first, then `mid` compared there */
    Py_ssize_t start = PyNumber_AsSsize_t(args[1], NULL);
    Py_ssize_t stop = PyNumber_AsSsize_t(args[2], NULL);
    PySlice_AdjustIndices(PyList_GET_SIZE(payloads), &start, &stop, 1);
    for (Py_ssize_t i = start; i < stop && i < PyList_GET_SIZE(payloads); i++) {
        PyObject *payload = PyList_GET_ITEM(payloads, i);
        if (!PyBytes_CheckExact(payload)) {
            break;
        }
        const char *s = PyBytes_AS_STRING(payload);
        Py_ssize_t n = PyBytes_GET_SIZE(payload);
        if (n < head_size || n < tail_size || memcmp(s, head, (size_t)head_size) != 0 ||
            memcmp(s + n - tail_size, tail, (size_t)tail_size) != 0) {
            break;
        }
        Py_ssize_t end = n - tail_size;
        Py_ssize_t cut = find_from(s, n, head_size, mid, mid_start);
        if (cut < 0 || cut + mid_size > end || memcmp(s + cut, mid, (size_t)mid_size) != 0) {
            break;
        }
        PyObject *string = PyBytes_FromStringAndSize(s + head_size, cut - head_size);
        if (string == NULL) {
            return NULL;
        }
        int appended = PyList_Append(strings, string);
        Py_DECREF(string);
        if (appended < 0) {
            return NULL;
        }
        PyObject *value = PyBytes_FromStringAndSize(s + cut + mid_size, end - cut - mid_size);
        if (value == NULL) {
            return NULL;
        }
        appended = PyList_Append(values, value);
        Py_DECREF(value);
        if (appended < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"holes", (PyCFunction)(void (*)(void))holes, METH_FASTCALL, holes_doc},
    {"value_holes", (PyCFunction)(void (*)(void))value_holes, METH_FASTCALL, value_holes_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "unievent._holes",
    "A run of hot frames matched against a template's bytes, in C.",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__holes(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    /* where a template's padding lies, as the stand-in names it */
    if (PyModule_AddIntConstant(m, "PAD_NONE", 0) < 0 || PyModule_AddIntConstant(m, "PAD_LAST", PAD_LAST) < 0 ||
        PyModule_AddIntConstant(m, "PAD_FIRST", PAD_FIRST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
