/* unievent._gcfree: takes the decoder's own events off the cyclic garbage collector's
 * lists (compiled build; _gcfree.py is the pure-Python build's stand-in, which does
 * nothing).
 *
 * A delta event is two frozen attrs objects, the event and its item, and every Python
 * class with slots is a type the collector tracks.  A whole-body push returns tens of
 * thousands of them at once, and the generational collector walks each one that stays
 * alive about six times (once young, once in the middle generation, then in its share
 * of the full collections): that was the whole-body cost of tests/bench/README.md.
 *
 * An object can only be part of a reference cycle through what it refers to.  An
 * event of one of the given classes whose every referent is atomic (str, bytes, int,
 * None, or a container the collector does not track, such as a dict of atomic values)
 * cannot, so it is untracked, as CPython untracks such tuples and dicts itself
 * (Objects/tupleobject.c, _PyTuple_MaybeUntrack).  Its item is looked at first, so an
 * event whose item was untracked is untracked too.  Reference counting still frees
 * every one of them; nothing else about them changes.  The collector's settings
 * (enabled, thresholds, frozen objects) are never read or changed.
 *
 * Only CPython's C API is used: PyObject_IS_GC, PyObject_GC_IsTracked and
 * PyObject_GC_UnTrack, and a class's tp_members (its object slots, read where
 * subtype_traverse reads them) or, for any other class, its tp_traverse.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* how deep the referents of a given class are followed: an event, then its item */
#define MAX_DEPTH 1

static int untrack_one(PyObject *op, PyObject *kinds, int depth);

static int
of_kind(PyObject *op, PyObject *kinds)
{
    PyObject *type = (PyObject *)Py_TYPE(op);
    Py_ssize_t n = PyTuple_GET_SIZE(kinds);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyTuple_GET_ITEM(kinds, i) == type) {
            return 1;
        }
    }
    return 0;
}

/* whether `referent` keeps its owner tracked: a container the collector tracks, unless
 * it is one of the given classes and is untracked first */
static int
keeps_tracked(PyObject *referent, PyObject *kinds, int depth)
{
    /* most referents are strings, None or ints: no GC type, told by a flag, no call */
    if (referent == NULL || !PyType_IS_GC(Py_TYPE(referent)) || !PyObject_IS_GC(referent)
        || !PyObject_GC_IsTracked(referent)) {
        return 0;
    }
    if (depth > 0 && of_kind(referent, kinds) && untrack_one(referent, kinds, depth - 1)) {
        return 0;
    }
    return 1;
}

typedef struct {
    PyObject *owner;
    PyObject *kinds;
    int depth;
} Walk;

/* tp_traverse's visitor, for a class whose slots are not read directly */
static int
visit(PyObject *referent, void *arg)
{
    Walk *walk = (Walk *)arg;
    if (referent == (PyObject *)Py_TYPE(walk->owner)) {
        return 0; /* an instance of a heap type refers to its class, which outlives it */
    }
    return keeps_tracked(referent, walk->kinds, walk->depth);
}

/* 1 when `op` is (now) untracked, 0 when it stays tracked */
static int
untrack_one(PyObject *op, PyObject *kinds, int depth)
{
    if (!PyObject_GC_IsTracked(op)) {
        return 1;
    }
    PyTypeObject *type = Py_TYPE(op);
    PyMemberDef *member = type->tp_members;
    if (member != NULL && type->tp_base == &PyBaseObject_Type && type->tp_dictoffset == 0) {
        /* a slotted class straight on object (an attrs class): its referents are its
         * object slots, read where they are, as subtype_traverse reads them (and its
         * class, which outlives it) */
        for (; member->name != NULL; member++) {
            if (member->type == T_OBJECT_EX
                && keeps_tracked(*(PyObject **)((char *)op + member->offset), kinds, depth)) {
                return 0;
            }
        }
    }
    else {
        traverseproc traverse = type->tp_traverse;
        Walk walk = {op, kinds, depth};
        if (traverse == NULL || traverse(op, visit, &walk) != 0) {
            return 0;
        }
    }
    PyObject_GC_UnTrack(op);
    return 1;
}

PyDoc_STRVAR(untrack_doc,
"untrack(objects, start, kinds)\n"
"--\n\n"
"Untrack objects[start:] whose class is one of `kinds` (a tuple of classes) and whose\n"
"referents are atomic (see the module's header); leave every other object as it is.");

static PyObject *
untrack(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "untrack(objects, start, kinds) takes 3 arguments");
        return NULL;
    }
    PyObject *objects = args[0];
    PyObject *kinds = args[2];
    if (!PyList_Check(objects) || !PyTuple_Check(kinds)) {
        PyErr_SetString(PyExc_TypeError, "untrack(objects, start, kinds): a list and a tuple");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (start < 0) {
        start = 0;
    }
    /* nothing here runs Python code, so the list cannot change under the loop */
    Py_ssize_t n = PyList_GET_SIZE(objects);
    for (Py_ssize_t i = start; i < n; i++) {
        PyObject *op = PyList_GET_ITEM(objects, i);
        if (of_kind(op, kinds)) {
            (void)untrack_one(op, kinds, MAX_DEPTH);
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"untrack", (PyCFunction)(void (*)(void))untrack, METH_FASTCALL, untrack_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "unievent._gcfree",
    "The decoder's atomic events, off the cyclic garbage collector's lists.",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__gcfree(void)
{
    return PyModule_Create(&module);
}
