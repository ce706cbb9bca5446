// The TurboPipe model, done so that nothing is read from memory that may have gone:
// a queued block's memory is a Py_buffer view the pipe holds (so the object, and any
// mapping behind its buffer protocol, lives) until the block is out: until sync(data),
// done(data), close, or the next pipe() of the same object, which waits for it as
// TurboPipe does. A moderngl.Buffer is read (Buffer.read(), on the caller's thread, where
// its context is current) into bytes the pipe then owns: its mapping is never held, so
// the caller may render into it again at once. Everything here runs with the GIL; the
// waits release it.
#include "turbopipe.hpp"

#include "errors.hpp"
#include "messages.hpp"

#include "glreader/pipe.h"

#include <nanobind/stl/string.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace glr_python {

namespace {

// A block queued for a fd: the view of the object's memory, held until it is out.
struct block {
    nb::object owner; // what `view` was taken from
    Py_buffer view{};
    int fd = -1;
    block() = default;
    block(const block &) = delete;
    block &operator=(const block &) = delete;
    ~block()
    {
        if (view.obj)
            PyBuffer_Release(&view); // with the GIL: a mapping behind it may end here
    }
};

// What TurboPipe waits on: the memory's address, as TurboPipe keys it (so sync() of
// another memoryview of the same bytes finds them); a moderngl.Buffer, whose bytes are read
// into a copy, by its internal object (held through its blocks, so its id stays its own).
using key = std::pair<bool, uintptr_t>; // (a moderngl.Buffer, its id or the memory's address)

bool is_moderngl_buffer(const nb::handle &data) { return nb::hasattr(data, "mglo") && nb::hasattr(data, "read"); }

struct state {
    glr_pipe *pipe = nullptr;
    std::map<key, std::vector<std::unique_ptr<block>>> queued;
    // What each fd written to was (device, inode): a number the caller closed and the
    // system gave to another file starts afresh, without the old one's error.
    std::map<int, std::pair<dev_t, ino_t>> files;

    glr_pipe *get()
    {
        if (!pipe && !(pipe = glr_pipe_create(messages_log(), nullptr)))
            fail_with_last_error();
        return pipe;
    }
};

state &the_state()
{
    static state *s = new state; // never freed: writer threads may outlive interpreter teardown
    return *s;
}

int fd_of(const nb::handle &file)
{
    if (nb::isinstance<nb::int_>(file))
        return nb::cast<int>(file);
    if (nb::hasattr(file, "fileno"))
        return nb::cast<int>(file.attr("fileno")());
    throw failure{-EINVAL, "turbopipe: the file is neither a file descriptor nor has fileno()"};
}

// Raises the pipe's error as the exception its errno names (a dead reader: BrokenPipeError).
void check(int rc, const char *what)
{
    if (rc < 0)
        throw failure{rc, std::string("turbopipe.") + what + ": " + glr_last_error()};
}

// The key of data's blocks; nothing is queued under a key that cannot be had.
key key_of(const nb::handle &data)
{
    if (is_moderngl_buffer(data)) // by its internal object, which a Buffer and its .mglo share
        return {true, reinterpret_cast<uintptr_t>(data.attr("mglo").ptr())};
    Py_buffer view{};
    if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0)
        throw nb::python_error();
    uintptr_t address = reinterpret_cast<uintptr_t>(view.buf);
    PyBuffer_Release(&view);
    return {false, address};
}

// Waits until every block queued under `k` is out, then lets their views go.
void sync_key(state &s, const key &k)
{
    auto it = s.queued.find(k);
    if (it == s.queued.end())
        return;
    int rc = 0;
    {
        nb::gil_scoped_release unlocked;
        for (const auto &b : it->second)
            if (int r = glr_pipe_sync(s.pipe, b->view.buf); r < 0 && rc == 0)
                rc = r;
    }
    s.queued.erase(it);
    check(rc, "sync");
}

// Drops what the pipe keeps of fd: its writer, its blocks, its error.
int forget_fd(state &s, int fd)
{
    int rc;
    {
        nb::gil_scoped_release unlocked;
        rc = glr_pipe_close(s.pipe, fd);
    }
    for (auto it = s.queued.begin(); it != s.queued.end();) {
        auto &blocks = it->second;
        for (auto b = blocks.begin(); b != blocks.end();)
            b = (*b)->fd == fd ? blocks.erase(b) : b + 1;
        it = blocks.empty() ? s.queued.erase(it) : std::next(it);
    }
    return rc;
}

void pipe(nb::object data, nb::handle file)
{
    state &s = the_state();
    int fd = fd_of(file);
    glr_pipe *p = s.get();
    struct stat st{};
    if (fstat(fd, &st) != 0)
        throw failure{-errno, "turbopipe.pipe: fd " + std::to_string(fd) + " is no open file"};
    auto [known, added] = s.files.try_emplace(fd, st.st_dev, st.st_ino);
    if (!added && known->second != std::make_pair(st.st_dev, st.st_ino)) {
        forget_fd(s, fd);
        known->second = {st.st_dev, st.st_ino};
    }
    const key k = key_of(data);
    sync_key(s, k); // TurboPipe's rule: memory queued already is waited for
    auto b = std::make_unique<block>();
    b->fd = fd;
    b->owner = data;
    nb::object source = is_moderngl_buffer(data) ? data.attr("read")() : data; // a GL buffer: its bytes, now
    if (PyObject_GetBuffer(source.ptr(), &b->view, PyBUF_C_CONTIGUOUS) != 0)
        throw nb::python_error();
    if (b->view.len == 0)
        return; // nothing to write
    int rc;
    {
        nb::gil_scoped_release unlocked; // a full queue waits for the reader
        rc = glr_pipe_write(p, fd, b->view.buf, static_cast<size_t>(b->view.len));
    }
    check(rc, "pipe");
    s.queued[k].push_back(std::move(b));
}

// Waits for every queued write, then lets every view go; returns the first error.
int wait_all(state &s)
{
    int rc;
    {
        nb::gil_scoped_release unlocked;
        rc = glr_pipe_sync_all(s.pipe);
    }
    s.queued.clear();
    return rc;
}

void sync_all()
{
    state &s = the_state();
    if (s.pipe)
        check(wait_all(s), "sync");
}

void close_fd(int fd)
{
    state &s = the_state();
    if (!s.pipe)
        return;
    int rc = forget_fd(s, fd);
    s.files.erase(fd);
    check(rc, "close");
}

void close_all()
{
    state &s = the_state();
    if (!s.pipe)
        return;
    int rc = wait_all(s);
    {
        nb::gil_scoped_release unlocked;
        glr_pipe_destroy(&s.pipe); // every writer thread ends
    }
    s.files.clear();
    check(rc, "close");
}

} // namespace

void register_turbopipe(nb::module_ &m)
{
    // Each call ends by passing glreader's warnings (a pipe it could not enlarge) to logging.
    m.def(
        "tp_pipe",
        [](nb::object data, nb::handle file) {
            pipe(data, file);
            flush_messages();
        },
        nb::arg("data"), nb::arg("file"));
    m.def(
        "tp_sync",
        [](nb::object data) {
            sync_key(the_state(), key_of(data));
            flush_messages();
        },
        nb::arg("data"));
    m.def("tp_sync_all", [] {
        sync_all();
        flush_messages();
    });
    m.def(
        "tp_close",
        [](int fd) {
            close_fd(fd);
            flush_messages();
        },
        nb::arg("fd"));
    m.def("tp_close_all", [] {
        close_all();
        flush_messages();
    });
}

} // namespace glr_python
