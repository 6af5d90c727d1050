/* Byte searches shared by unievent's C modules (_search.c, _holes.c): the first place
 * of a needle in a buffer and the last place of a byte, as bytes.find and bytes.rfind
 * find them.  Included after Python.h (whose pyconfig.h defines _GNU_SOURCE, which
 * declares memmem and memrchr in glibc).
 */
#ifndef UNIEVENT_BYTESEARCH_H
#define UNIEVENT_BYTESEARCH_H

#include <string.h>

/* the last `c` among the `size` bytes at `s`, or NULL: memrchr where the C library has
 * it, else a loop */
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

/* where the `m` bytes at `p` first are among the `n` bytes at `s`, from `from` on (at
 * most n), or -1: what s.find(p, from) returns.  A needle of more than two bytes is
 * looked for with glibc's memmem (a two-way search, linear) where there is one;
 * otherwise a match is found by memchr for its first byte, then compared whole: time
 * at most n * m, linear for the short needles unievent looks for. */
static Py_ssize_t
find_from(const char *s, Py_ssize_t n, Py_ssize_t from, const char *p, Py_ssize_t m)
{
    if (m == 0) {
        return from;
    }
#if defined(__GLIBC__)
    if (m > 2) {
        const char *hit = memmem(s + from, (size_t)(n - from), p, (size_t)m);
        return hit == NULL ? -1 : hit - s;
    }
#endif
    Py_ssize_t last = n - m; /* the last place a match may start */
    Py_ssize_t at = from;
    while (at <= last) {
        const char *hit = memchr(s + at, p[0], (size_t)(last - at + 1));
        if (hit == NULL) {
            return -1;
        }
        at = hit - s;
        if (memcmp(hit + 1, p + 1, (size_t)(m - 1)) == 0) {
            return at;
        }
        at += 1;
    }
    return -1;
}

#endif
