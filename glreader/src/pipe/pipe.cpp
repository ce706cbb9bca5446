#include "pipe/pipe.hpp"

#include "enum_value.hpp"
#include "error.hpp"

#include <algorithm>
#include <vector>

namespace {

// Errors that happened on a writer thread were logged there; the caller gets the message
// as its last error.
int returned(const glr::pipe_io::failure_note &failure)
{
    if (failure.code != 0)
        glr_priv_report_error(nullptr, failure.code, failure.message.c_str(), 0);
    return failure.code;
}

} // namespace

glr_pipe::glr_pipe(const glr_log *log, const glr_pipe_params &params) : log_(log), params_(params)
{
    int transport = glr::enum_value(params.transport);
    if (transport != GLR_PIPE_AUTO && transport != GLR_PIPE_WRITE)
        glr::fail(-EINVAL, "glr_pipe_create: transport %d is neither GLR_PIPE_AUTO nor GLR_PIPE_WRITE", transport);
    if (params.queue_depth < 0 || params.queue_depth > 1024)
        glr::fail(-EINVAL, "glr_pipe_create: queue_depth %d is outside 0..1024", params.queue_depth);
}

glr_pipe::~glr_pipe()
{
    std::map<int, std::shared_ptr<glr::pipe_io::fd_writer>> writers;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        writers.swap(writers_);
    }
    for (auto &entry : writers)
        entry.second->finish();
}

glr_pipe_stats glr_pipe::stats() const
{
    glr_pipe_stats s = book_.stats();
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &entry : writers_)
        s.reader_idle_ms = std::max(s.reader_idle_ms, entry.second->reader_idle_ms());
    for (const auto &writer : closing_)
        s.reader_idle_ms = std::max(s.reader_idle_ms, writer->reader_idle_ms());
    return s;
}

std::shared_ptr<glr::pipe_io::fd_writer> glr_pipe::writer_for(int fd)
{
    std::lock_guard<std::mutex> lock(mutex_);
    auto &writer = writers_[fd];
    if (!writer) {
        try {
            writer = std::make_shared<glr::pipe_io::fd_writer>(log_, fd, params_, book_);
        } catch (...) {
            writers_.erase(fd);
            throw;
        }
    }
    return writer;
}

int glr_pipe::write(int fd, glr::pipe_io::block b)
{
    std::shared_ptr<glr::pipe_io::fd_writer> writer;
    try {
        writer = writer_for(fd);
    } catch (...) {
        if (b.has_lease())
            b.release_lease(); // the lease is never lost
        throw;
    }
    return returned(writer->enqueue(std::move(b)));
}

int glr_pipe::sync(const void *key) { return returned(book_.sync(key)); }

int glr_pipe::sync_all()
{
    std::vector<std::shared_ptr<glr::pipe_io::fd_writer>> writers;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto &entry : writers_)
            writers.push_back(entry.second);
    }
    for (auto &writer : writers)
        writer->flush();
    return returned(book_.take_first_failure());
}

int glr_pipe::close(int fd)
{
    std::shared_ptr<glr::pipe_io::fd_writer> writer;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = writers_.find(fd);
        if (it == writers_.end())
            return 0;
        writer = std::move(it->second);
        writers_.erase(it);
        closing_.push_back(writer);
    }
    int rc = returned(writer->finish());
    std::lock_guard<std::mutex> lock(mutex_);
    closing_.erase(std::find(closing_.begin(), closing_.end(), writer));
    return rc;
}
