/* unievent._deltas: builds the delta events of a run of text fragments (compiled build;
 * _deltas.py is the pure-Python build's stand-in, the same loop in Python, and the
 * definition this one is tested against).
 *
 * Most events of a long answer are text or reasoning deltas: an item (TextDelta,
 * ThinkingDelta) and the DeltaEvent that carries it, two frozen attrs objects made
 * without running __init__ (object.__new__, then each slot set).  Called from
 * compiled code, each of those is a call through a Python wrapper that builds an
 * argument tuple: some 3,900 instructions an event, more than parsing its frame.  Here
 * an event is what object.__new__ and the slots' setters would make of it, built in
 * place: the class's tp_alloc (object.__new__'s own allocation), then each slot
 * written where its member descriptor says it lies, as the descriptor's __set__
 * writes it.
 *
 * An item whose every referent is of no type the collector tracks (a str, None, an
 * int) cannot be part of a reference cycle, nor can an event whose item is such an
 * item: both are untracked as they are made (see _gcfree.c for why that is safe and
 * what it saves).  Any other referent keeps its object tracked.
 *
 * The layout is checked on every call, before anything is made: each class must be
 * made by object.__new__ alone, each slot a writable object slot of exactly that class.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define MAX_FIXED 8 /* slots of an item set to one value for every event, at most */

/* the offset of `member`, a writable object slot of exactly `type`; -1 with an error set */
static Py_ssize_t
slot_offset(PyObject *member, PyTypeObject *type)
{
    if (!Py_IS_TYPE(member, &PyMemberDescr_Type)) {
        goto bad;
    }
    PyMemberDescrObject *descr = (PyMemberDescrObject *)member;
    PyMemberDef *def = descr->d_member;
    if (descr->d_common.d_type != type || def->type != T_OBJECT_EX || (def->flags & READONLY)
        || def->offset < (Py_ssize_t)sizeof(PyObject) || def->offset > type->tp_basicsize - (Py_ssize_t)sizeof(PyObject *)) {
        goto bad;
    }
    return def->offset;
bad:
    PyErr_SetString(PyExc_TypeError, "deltas: a layout's slot is not a writable object slot of its class");
    return -1;
}

/* whether `obj` is a class that object.__new__ makes without arguments */
static int
plain_class(PyObject *obj)
{
    if (!PyType_Check(obj)) {
        return 0;
    }
    PyTypeObject *type = (PyTypeObject *)obj;
    return type->tp_new == PyBaseObject_Type.tp_new && type->tp_alloc != NULL
           && !(type->tp_flags & Py_TPFLAGS_IS_ABSTRACT);
}

static void
put(PyObject *owner, Py_ssize_t offset, PyObject *value)
{
    Py_INCREF(value);
    PyObject **slot = (PyObject **)((char *)owner + offset);
    Py_XSETREF(*slot, value);
}

/* whether `value` keeps the object that refers to it tracked (see the header) */
static int
keeps_tracked(PyObject *value)
{
    return PyObject_IS_GC(value) && PyObject_GC_IsTracked(value);
}

PyDoc_STRVAR(deltas_doc,
"deltas(values, start, layout, created_at, out, parts, /)\n--\n\n"
"For each value of values[start:] that is true: append it to `parts`, and append to\n"
"`out` an event of the layout's event class whose item slot holds an item of its item\n"
"class, whose value slot holds the value and each fixed slot its fixed value, and whose\n"
"created_at slot holds `created_at`.  `layout` is (item_class, value_slot, fixed,\n"
"event_class, item_slot, created_at_slot), `fixed` a tuple of (slot, value) pairs, each\n"
"slot a member descriptor of its class.");

static PyObject *
deltas(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "deltas takes 6 arguments");
        return NULL;
    }
    PyObject *values = args[0], *layout = args[2], *created_at = args[3], *out = args[4], *parts = args[5];
    if (!PyList_Check(values) || !PyTuple_Check(layout) || PyTuple_GET_SIZE(layout) != 6 || !PyList_Check(out)
        || !PyList_Check(parts)) {
        PyErr_SetString(PyExc_TypeError, "deltas takes a list, an int, a layout tuple, an object, a list, a list");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (start < 0) {
        PyErr_SetString(PyExc_ValueError, "deltas: start is negative");
        return NULL;
    }
    PyObject *item_class = PyTuple_GET_ITEM(layout, 0), *fixed = PyTuple_GET_ITEM(layout, 2);
    PyObject *event_class = PyTuple_GET_ITEM(layout, 3);
    if (!plain_class(item_class) || !plain_class(event_class) || !PyTuple_Check(fixed)
        || PyTuple_GET_SIZE(fixed) > MAX_FIXED) {
        PyErr_SetString(PyExc_TypeError, "deltas: a layout's classes are not made by object.__new__ alone");
        return NULL;
    }
    PyTypeObject *item_type = (PyTypeObject *)item_class, *event_type = (PyTypeObject *)event_class;
    Py_ssize_t value_at = slot_offset(PyTuple_GET_ITEM(layout, 1), item_type);
    Py_ssize_t item_at = value_at < 0 ? -1 : slot_offset(PyTuple_GET_ITEM(layout, 4), event_type);
    Py_ssize_t created_at_at = item_at < 0 ? -1 : slot_offset(PyTuple_GET_ITEM(layout, 5), event_type);
    if (created_at_at < 0) {
        return NULL;
    }
    Py_ssize_t fixed_count = PyTuple_GET_SIZE(fixed);
    Py_ssize_t fixed_at[MAX_FIXED];
    PyObject *fixed_value[MAX_FIXED];
    int fixed_atomic = 1;
    for (Py_ssize_t i = 0; i < fixed_count; i++) {
        PyObject *pair = PyTuple_GET_ITEM(fixed, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "deltas: a fixed slot is not a (slot, value) pair");
            return NULL;
        }
        fixed_at[i] = slot_offset(PyTuple_GET_ITEM(pair, 0), item_type);
        if (fixed_at[i] < 0) {
            return NULL;
        }
        fixed_value[i] = PyTuple_GET_ITEM(pair, 1); /* `fixed` holds it while we run */
        fixed_atomic = fixed_atomic && !keeps_tracked(fixed_value[i]);
    }
    int created_atomic = !keeps_tracked(created_at);

    /* the list's length is read on every step: a value's __bool__ may change it */
    for (Py_ssize_t i = start; i < PyList_GET_SIZE(values); i++) {
        PyObject *value = PyList_GET_ITEM(values, i);
        Py_INCREF(value);
        int truth = PyUnicode_CheckExact(value) ? PyUnicode_GET_LENGTH(value) != 0 : PyObject_IsTrue(value);
        if (truth <= 0) {
            Py_DECREF(value);
            if (truth < 0) {
                return NULL;
            }
            continue;
        }
        if (PyList_Append(parts, value) < 0) {
            Py_DECREF(value);
            return NULL;
        }
        PyObject *item = item_type->tp_alloc(item_type, 0);
        if (item == NULL) {
            Py_DECREF(value);
            return NULL;
        }
        put(item, value_at, value);
        for (Py_ssize_t k = 0; k < fixed_count; k++) {
            put(item, fixed_at[k], fixed_value[k]);
        }
        int item_atomic = fixed_atomic && !keeps_tracked(value);
        Py_DECREF(value);
        if (item_atomic && PyObject_IS_GC(item)) {
            PyObject_GC_UnTrack(item);
        }
        PyObject *event = event_type->tp_alloc(event_type, 0);
        if (event == NULL) {
            Py_DECREF(item);
            return NULL;
        }
        put(event, item_at, item);
        Py_DECREF(item); /* the event holds it */
        put(event, created_at_at, created_at);
        if (item_atomic && created_atomic && PyObject_IS_GC(event)) {
            PyObject_GC_UnTrack(event);
        }
        int appended = PyList_Append(out, event);
        Py_DECREF(event);
        if (appended < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"deltas", (PyCFunction)(void (*)(void))deltas, METH_FASTCALL, deltas_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "unievent._deltas",
    "The delta events of a run of text fragments, built in place.",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__deltas(void)
{
    return PyModule_Create(&module);
}
