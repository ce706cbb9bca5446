// A Frame holds a lease of a ring slot. Its planes export the slot's memory through the
// buffer protocol, read-only, counted: release() (or leaving its with block) gives the slot
// back only when no export is alive, so no Python object can ever read a slot the ring
// has recycled; a released frame exports nothing. RGB frames export themselves as
// (height, width, channels) bytes, top row first (a negative row stride, as the ring
// lends them); every frame exports each plane as plane(i), (rows, row bytes).
#include "frames.hpp"

#include "errors.hpp"
#include "messages.hpp"

#include "glreader/ring.h"

#include <nanobind/stl/string.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <string>
#include <thread>

namespace nb = nanobind;

namespace glr_python {

namespace {

struct frame_core {
    frame_core() = default;
    frame_core(const frame_core &) = delete; // one lease, one owner
    frame_core &operator=(const frame_core &) = delete;

    glr_frame frame{};
    bool released = true; // until a lease is acquired into it
    int exports = 0;
    nb::object ring; // the RingCore: the ring outlives its leases' use from Python
    // Per plane, the shape and strides an export points at (valid while the frame lives).
    std::array<std::array<Py_ssize_t, 3>, 4> shape{}, strides{};

    ~frame_core()
    {
        if (!released)
            glr_frame_release(&frame); // any thread: a lease may go back from anywhere
    }

    const glr_format_info &info() const { return *glr_format_get_info(frame.format); }

    void check_live(const char *what) const
    {
        if (released)
            throw failure{-EINVAL, std::string("Frame.") + what + ": the frame was released"};
    }

    // Fills view with plane p (as_image: an RGB frame's (height, width, channels)).
    void export_plane(Py_buffer *view, PyObject *exporter, int p, bool as_image)
    {
        const glr_plane &plane = frame.planes[p];
        const glr_format_info &i = info();
        view->obj = exporter;
        Py_INCREF(exporter);
        view->buf = const_cast<uint8_t *>(plane.data);
        view->readonly = 1;
        view->itemsize = i.bytes_per_sample;
        view->format = const_cast<char *>(i.bytes_per_sample == 2 ? "H" : "B");
        if (as_image) {
            view->ndim = 3;
            shape[p] = {plane.rows, static_cast<Py_ssize_t>(frame.width), i.samples_per_pixel[0]};
            strides[p] = {plane.stride, i.samples_per_pixel[0] * i.bytes_per_sample, i.bytes_per_sample};
        } else {
            view->ndim = 2;
            shape[p] = {plane.rows, static_cast<Py_ssize_t>(plane.row_bytes / static_cast<size_t>(i.bytes_per_sample)), 0};
            strides[p] = {plane.stride, i.bytes_per_sample, 0};
        }
        view->len = static_cast<Py_ssize_t>(plane.row_bytes) * plane.rows;
        view->shape = shape[p].data();
        view->strides = strides[p].data();
        view->suboffsets = nullptr;
        view->internal = nullptr;
        exports++;
    }

    void release()
    {
        if (released)
            return;
        if (exports > 0)
            throw failure{-EBUSY, "Frame.release: " + std::to_string(exports) +
                                      " view(s) of its memory are alive (a numpy array, a memoryview): delete them "
                                      "first, so that none reads the slot once the ring reuses it"};
        released = true;
        glr_frame_release(&frame);
    }
};

struct plane_core {
    nb::object owner; // the Frame
    int index;
};

frame_core &frame_of(PyObject *o) { return *nb::inst_ptr<frame_core>(nb::handle(o)); }

int frame_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    frame_core &f = frame_of(self);
    if (f.released || f.info().yuv) {
        PyErr_SetString(PyExc_BufferError, f.released ? "the frame was released"
                                                      : "a YUV frame's memory is its planes: frame.plane(i)");
        view->obj = nullptr;
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
        PyErr_SetString(PyExc_BufferError, "a frame is read-only: it is the ring's memory");
        view->obj = nullptr;
        return -1;
    }
    f.export_plane(view, self, 0, true);
    return 0;
}

void frame_releasebuffer(PyObject *self, Py_buffer *) { frame_of(self).exports--; }

int plane_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    plane_core &p = *nb::inst_ptr<plane_core>(nb::handle(self));
    frame_core &f = frame_of(p.owner.ptr());
    if (f.released || (flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
        PyErr_SetString(PyExc_BufferError, f.released ? "the frame was released" : "a plane is read-only");
        view->obj = nullptr;
        return -1;
    }
    f.export_plane(view, self, p.index, false);
    return 0;
}

void plane_releasebuffer(PyObject *self, Py_buffer *)
{
    plane_core &p = *nb::inst_ptr<plane_core>(nb::handle(self));
    frame_of(p.owner.ptr()).exports--;
}

PyType_Slot frame_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void *>(frame_getbuffer)},
                             {Py_bf_releasebuffer, reinterpret_cast<void *>(frame_releasebuffer)},
                             {0, nullptr}};
PyType_Slot plane_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void *>(plane_getbuffer)},
                             {Py_bf_releasebuffer, reinterpret_cast<void *>(plane_releasebuffer)},
                             {0, nullptr}};

// The ring, used on the thread whose GL context was current when it was made.
class ring_core {
public:
    ring_core(int width, int height, const std::string &format, int depth)
    {
        glr_ring_params p{};
        p.width = width;
        p.height = height;
        p.format = glr_format_from_name(format.c_str());
        if (!p.format)
            throw failure{-EINVAL, "Ring: unknown format '" + format +
                                       "' (rgba, bgra, rgb24, nv12, yuv420p, p010le, yuv444p, yuva420p, yuva444p, "
                                       "yuva444p10le)"};
        p.depth = depth;
        if (!(ring_ = glr_ring_create(messages_log(), &p)))
            fail_with_last_error();
        thread_ = std::this_thread::get_id();
        flush_messages();
    }
    ring_core(const ring_core &) = delete;
    ring_core &operator=(const ring_core &) = delete;
    ~ring_core() { glr_ring_destroy(&ring_); } // leases still out free their slots when released

    bool capture(int kind, unsigned name, int64_t pts)
    {
        usable("capture");
        glr_source source{};
        source.kind = static_cast<glr_source_kind>(kind);
        source.name = name;
        int rc = glr_ring_capture(ring_, &source, pts);
        flush_messages();
        if (rc == -EBUSY)
            return false;
        if (rc < 0)
            fail_with_last_error();
        return true;
    }

    int acquire_into(frame_core &f, double timeout)
    {
        usable("acquire");
        uint64_t ns = timeout < 0 ? UINT64_MAX : static_cast<uint64_t>(timeout * 1e9);
        int rc;
        {
            nb::gil_scoped_release unlocked;
            rc = glr_ring_acquire(ring_, &f.frame, ns);
        }
        if (rc < 0 && rc != -EAGAIN && rc != -ENODATA)
            fail_with_last_error();
        return rc;
    }

    void close()
    {
        usable("close");
        glr_ring_destroy(&ring_);
    }

private:
    void usable(const char *call) const
    {
        if (!ring_)
            throw failure{-EINVAL, std::string("Ring.") + call + ": the ring is closed"};
        if (std::this_thread::get_id() != thread_)
            throw failure{-EINVAL, std::string("Ring.") + call +
                                       ": called from another thread than the one that made it, whose GL context "
                                       "it reads"};
    }

    glr_ring *ring_ = nullptr;
    std::thread::id thread_;
};

} // namespace

void register_frames(nb::module_ &m)
{
    nb::class_<frame_core>(m, "Frame", nb::type_slots(frame_slots), "A frame read back, lent until release().")
        .def(nb::init<>()) // Ring.acquire's; one made otherwise holds nothing
        .def_prop_ro("width", [](const frame_core &f) { return f.frame.width; })
        .def_prop_ro("height", [](const frame_core &f) { return f.frame.height; })
        .def_prop_ro("format", [](const frame_core &f) { return std::string(f.info().name); })
        .def_prop_ro("pts", [](const frame_core &f) { return f.frame.pts; })
        .def_prop_ro("planes", [](const frame_core &f) { return f.info().planes; })
        .def_prop_ro("released", [](const frame_core &f) { return f.released; })
        .def(
            "plane",
            [](nb::handle self, int i) {
                frame_core &f = *nb::inst_ptr<frame_core>(self);
                f.check_live("plane");
                if (i < 0 || i >= f.info().planes)
                    throw failure{-EINVAL, "Frame.plane: " + std::to_string(i) + " is not a plane of " +
                                               f.info().name + " (0.." + std::to_string(f.info().planes - 1) + ")"};
                return plane_core{nb::borrow(self), i};
            },
            nb::arg("index"))
        .def("release", &frame_core::release)
        .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
        .def("__exit__", [](frame_core &f, nb::args) { f.release(); });
    nb::class_<plane_core>(m, "Plane", nb::type_slots(plane_slots), "A plane of a frame: (rows, row samples).")
        .def_prop_ro("index", [](const plane_core &p) { return p.index; });
    nb::class_<ring_core>(m, "RingCore")
        .def(nb::init<int, int, const std::string &, int>(), nb::arg("width"), nb::arg("height"), nb::arg("format"),
             nb::arg("depth"))
        .def("capture", &ring_core::capture, nb::arg("kind"), nb::arg("name"), nb::arg("pts"))
        .def(
            "acquire",
            [](nb::handle self, double timeout) -> nb::object {
                nb::object frame = nb::type<frame_core>()();
                frame_core &f = *nb::inst_ptr<frame_core>(frame);
                if (nb::inst_ptr<ring_core>(self)->acquire_into(f, timeout) < 0)
                    return nb::none(); // nothing read back in time, or nothing captured
                f.ring = nb::borrow(self);
                f.released = false;
                return frame;
            },
            nb::arg("timeout"))
        .def("close", &ring_core::close);
}

} // namespace glr_python
