/* Preloaded into a child a test spawns (an ffmpeg running the filters, which links the
 * installed glreader, with no test seam): the first GLR_TEST_UNSIGNALLED_POLLS polls of a GL
 * fence (glClientWaitSync with a timeout of 0) answer that it has not signalled, as a GPU
 * still copying or converting would, where a software rasterizer has finished at once;
 * waits with a timeout wait on the fence itself. glreader takes GL's functions from
 * eglGetProcAddress, which it finds with dlsym: both are wrapped. At exit it says how many
 * polls it answered, so that a test knows its frames were in flight. A test tool, built
 * with the tests only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned int gl_enum;
typedef void *gl_sync;
#define GL_TIMEOUT_EXPIRED 0x911B

static gl_enum (*real_wait)(gl_sync, unsigned int, uint64_t);
static void *(*real_get_proc)(const char *);
static atomic_long left = -1, answered;

/* strcmp's answer for equal names, by hand: AddressSanitizer's runtime looks up the
 * functions it wraps through this dlsym before its own strcmp works. */
static int same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static gl_enum wait_sync(gl_sync sync, unsigned int flags, uint64_t timeout)
{
    if (atomic_load(&left) < 0)
        atomic_store(&left, getenv("GLR_TEST_UNSIGNALLED_POLLS") ? atol(getenv("GLR_TEST_UNSIGNALLED_POLLS")) : 0);
    if (timeout == 0 && atomic_fetch_sub(&left, 1) > 0) {
        atomic_fetch_add(&answered, 1);
        return GL_TIMEOUT_EXPIRED;
    }
    return real_wait(sync, flags, timeout);
}

static void *get_proc(const char *name)
{
    void *p = real_get_proc(name);
    if (p && same_name(name, "glClientWaitSync")) {
        real_wait = (gl_enum(*)(gl_sync, unsigned int, uint64_t))p;
        return (void *)wait_sync;
    }
    return p;
}

void *dlsym(void *handle, const char *name)
{
    static void *(*real_dlsym)(void *, const char *);
    if (!real_dlsym)
        real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real_dlsym)
        real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    void *p = real_dlsym(handle, name);
    if (p && same_name(name, "eglGetProcAddress")) {
        real_get_proc = (void *(*)(const char *))p;
        return (void *)get_proc;
    }
    return p;
}

__attribute__((destructor)) static void say(void)
{
    fprintf(stderr, "unsignalled_fences: %ld polls answered not done\n", atomic_load(&answered));
}
