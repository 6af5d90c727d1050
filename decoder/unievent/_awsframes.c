/* unievent._awsframes: reads a run of AWS event-stream frames that share one header
 * block (compiled build; _awsframes.py is the pure-Python build's stand-in, the same
 * loop in Python, and the definition this one is tested against).
 *
 * A Bedrock stream is mostly frames of one header block (`contentBlockDelta`, `chunk`)
 * one after the other.  In Python, each of them costs two `zlib.crc32` calls over two
 * fresh slices and a `struct` tuple of three ints, about as much as parsing its JSON
 * payload: the frame checks were a third of a compiled Converse decode.  Here they are
 * read in place: the prelude's lengths, the prelude CRC and the message CRC (zlib's
 * crc32, the function `zlib.crc32` calls), the header block compared byte for byte, and
 * only the payload is copied out, as a bytes object appended to the caller's list.
 *
 * The first frame that is not whole in `buf`, not of that header block, over
 * `max_frame`, or fails a check ends the run: its position is returned, and the framer
 * reads it as it reads any frame (a failing check is reported there, never here).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <zlib.h>

#define PRELUDE 12
#define OVERHEAD 16 /* prelude and message CRC */

static uint32_t
u32_at(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint32_t
crc_of(uint32_t start, const unsigned char *p, Py_ssize_t size)
{
    return (uint32_t)crc32_z((uLong)start, p, (z_size_t)size);
}

PyDoc_STRVAR(same_block_frames_doc,
"same_block_frames(buf, pos, block, max_frame, payloads, /)\n--\n\n"
"Append to `payloads` the payload of each whole frame of `buf` from `pos` on whose\n"
"header block is `block`, whose length is at most `max_frame` and whose two CRCs\n"
"hold; the position of the first frame that is not so (or of the end).");

static PyObject *
same_block_frames(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "same_block_frames takes 5 arguments");
        return NULL;
    }
    PyObject *buf = args[0], *block = args[2], *payloads = args[4];
    if (!PyBytes_Check(buf) || !PyBytes_Check(block) || !PyList_Check(payloads)) {
        PyErr_SetString(PyExc_TypeError, "same_block_frames takes bytes, int, bytes, int, list");
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    if (pos == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int overflow = 0;
    long long max_frame = PyLong_AsLongLongAndOverflow(args[3], &overflow);
    if (max_frame == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (overflow > 0) {
        max_frame = LLONG_MAX; /* more than any u32 length */
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(buf);
    const char *header_block = PyBytes_AS_STRING(block);
    Py_ssize_t end = PyBytes_GET_SIZE(buf);
    Py_ssize_t size = PyBytes_GET_SIZE(block);
    Py_ssize_t least = OVERHEAD + size;
    if (pos < 0 || pos > end) {
        PyErr_SetString(PyExc_ValueError, "same_block_frames: pos is outside buf");
        return NULL;
    }
    while (end - pos >= PRELUDE) {
        const unsigned char *frame = data + pos;
        Py_ssize_t total = (Py_ssize_t)u32_at(frame);
        if (total < least || (Py_ssize_t)u32_at(frame + 4) != size || (long long)total > max_frame
            || end - pos < total) {
            break;
        }
        if (crc_of(0, frame, 8) != u32_at(frame + 8)
            || memcmp(frame + PRELUDE, header_block, (size_t)size) != 0) {
            break;
        }
        Py_ssize_t crc_at = total - 4;
        /* the message CRC continues the prelude's, which it covers (as the framer does) */
        if (crc_of(u32_at(frame + 8), frame + 8, crc_at - 8) != u32_at(frame + crc_at)) {
            break;
        }
        Py_ssize_t payload_at = PRELUDE + size;
        PyObject *payload = PyBytes_FromStringAndSize((const char *)frame + payload_at, crc_at - payload_at);
        if (payload == NULL) {
            return NULL;
        }
        int failed = PyList_Append(payloads, payload);
        Py_DECREF(payload);
        if (failed) {
            return NULL;
        }
        pos += total;
    }
    return PyLong_FromSsize_t(pos);
}

static PyMethodDef methods[] = {
    {"same_block_frames", (PyCFunction)(void (*)(void))same_block_frames, METH_FASTCALL, same_block_frames_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "unievent._awsframes",
    "A run of AWS event-stream frames of one header block, read in place.",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__awsframes(void)
{
    return PyModule_Create(&module);
}
