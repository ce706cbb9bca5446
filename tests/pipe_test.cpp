// Pipe mode: frames and memory blocks through real pipes to slow readers, byte-exact; dead
// readers; EINTR, short writes and EAGAIN through the syscall seam; the ffmpeg child.
#include "glreader/pipe.hpp"
#include "pipe/syscall_seam.h"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"
#include "support/process.hpp"
#include "support/stream_reader.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

extern char **environ;

namespace {

using glr_test::frames_per_case;
using glr_test::pattern_scene;
using glr_test::ring_params;

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

struct os_pipe {
    int read = -1, write = -1;
    explicit os_pipe(bool nonblocking_writer = false)
    {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0)
            throw std::runtime_error("pipe2 failed");
        read = fds[0];
        write = fds[1];
        if (nonblocking_writer)
            fcntl(write, F_SETFL, fcntl(write, F_GETFL) | O_NONBLOCK);
    }
    ~os_pipe()
    {
        if (write >= 0)
            close(write);
    }
    void close_writer() { close(std::exchange(write, -1)); }
};

glr_pipe_params pipe_params(glr_pipe_transport transport)
{
    glr_pipe_params p{};
    p.transport = transport;
    return p;
}

struct delivery {
    std::vector<std::string> reader_errors;
    std::vector<uint64_t> reader_frames;
    glr_pipe_stats stats{};
    uint64_t leased_after = 0;
};

// Renders `frames` pattern frames through a depth-2 ring and writes frame n to fd n % fds,
// each read by a slow reader that checks every byte.
delivery deliver(const glr_pipe_params &pp, glr_flip flip, int frames, int fds, bool nonblocking = false)
{
    const int w = 32, h = 16;
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h, GLR_FORMAT_RGBA8, flip, 2));
    std::vector<std::unique_ptr<os_pipe>> pipes;
    std::vector<std::unique_ptr<glr_test::stream_reader>> readers;
    for (int i = 0; i < fds; i++) {
        pipes.push_back(std::make_unique<os_pipe>(nonblocking));
        auto sequence_of = [i, fds](uint64_t k) { return k * static_cast<uint64_t>(fds) + static_cast<uint64_t>(i); };
        readers.push_back(std::make_unique<glr_test::stream_reader>(pipes.back()->read, w, h, sequence_of,
                                                                    glr_test::reader_pace{}, 7u + static_cast<unsigned>(i)));
    }
    delivery d;
    {
        glr::pipe pipe(pp);
        uint64_t next = 0;
        auto sink = [&](glr::frame &&f) {
            EXPECT_EQ(f.sequence(), next);
            pipe.write(pipes[next++ % static_cast<uint64_t>(fds)]->write, std::move(f));
        };
        for (int n = 0; n < frames; n++) {
            scene.draw(static_cast<uint64_t>(n));
            ring.capture(scene.source(), n, sink);
        }
        ring.drain(sink);
        for (auto &p : pipes)
            pipe.close(p->write);
        d.stats = pipe.stats();
    }
    for (size_t i = 0; i < pipes.size(); i++) {
        pipes[i]->close_writer();
        readers[i]->join();
        d.reader_errors.push_back(readers[i]->error());
        d.reader_frames.push_back(readers[i]->frames());
    }
    d.leased_after = ring.stats().frames_leased_now;
    return d;
}

using delivery_case = std::tuple<glr_pipe_transport, glr_flip, bool>;

class pipe_delivery : public glr_test::gl_test, public ::testing::WithParamInterface<delivery_case> {};

TEST_P(pipe_delivery, thousands_of_frames_arrive_byte_exact_through_a_slow_reader)
{
    // A depth-2 ring recycles each slot as soon as the writer lets it go. With vmsplice the
    // pipe holds references to the ring's pages, and a 1 MiB pipe holds hundreds of these
    // 2 KiB frames: a lease released before the reader read it would be rendered over
    // while still in the pipe, and the reader would see the wrong frame.
    auto [transport, flip, nonblocking] = GetParam();
    const int frames = frames_per_case(150) * 10;
    delivery d = deliver(pipe_params(transport), flip, frames, 1, nonblocking);
    EXPECT_EQ(d.reader_errors[0], "");
    EXPECT_EQ(d.reader_frames[0], static_cast<uint64_t>(frames));
    EXPECT_EQ(d.leased_after, 0u);
    EXPECT_EQ(d.stats.blocks_written, static_cast<uint64_t>(frames));
    EXPECT_EQ(d.stats.blocks_failed, 0u);
    uint64_t bytes = static_cast<uint64_t>(frames) * 32 * 16 * 4;
    EXPECT_EQ(d.stats.bytes_written, bytes);
    EXPECT_EQ(transport == GLR_PIPE_AUTO ? d.stats.vmsplice_bytes : d.stats.write_bytes, bytes);
    EXPECT_GE(d.stats.pipe_size, 65536u);
}

INSTANTIATE_TEST_SUITE_P(
    transports, pipe_delivery,
    ::testing::Combine(::testing::Values(GLR_PIPE_AUTO, GLR_PIPE_WRITE), ::testing::Values(GLR_FLIP_STRIDE, GLR_FLIP_GPU),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<delivery_case> &info) {
        return std::string(std::get<0>(info.param) == GLR_PIPE_AUTO ? "vmsplice" : "write") +
               (std::get<1>(info.param) == GLR_FLIP_STRIDE ? "_stride_flip" : "_gpu_flip") +
               (std::get<2>(info.param) ? "_nonblocking" : "_blocking");
    });

class pipe_test : public glr_test::gl_test {};

TEST_F(pipe_test, two_fds_at_once_each_keep_their_order)
{
    for (glr_pipe_transport transport : {GLR_PIPE_AUTO, GLR_PIPE_WRITE}) {
        const int frames = frames_per_case(150) * 4;
        delivery d = deliver(pipe_params(transport), GLR_FLIP_STRIDE, frames, 2);
        for (int i = 0; i < 2; i++) {
            EXPECT_EQ(d.reader_errors[static_cast<size_t>(i)], "") << "fd " << i;
            EXPECT_EQ(d.reader_frames[static_cast<size_t>(i)], static_cast<uint64_t>(frames / 2)) << "fd " << i;
        }
        EXPECT_EQ(d.leased_after, 0u);
    }
}

// Fails one call in four of each kind: EINTR, EAGAIN, and a short write of half the first
// piece; passes the rest to the real calls.
std::atomic<uint64_t> seam_calls{0}, injected_eintr{0}, injected_eagain{0}, injected_short{0};

template <typename Call>
ssize_t faulty(const iovec *iov, int count, Call &&call)
{
    switch (seam_calls++ % 4) {
    case 1:
        injected_eintr++;
        errno = EINTR;
        return -1;
    case 2:
        injected_eagain++;
        errno = EAGAIN;
        return -1;
    case 3:
        if (count > 1 || iov[0].iov_len > 1) {
            injected_short++;
            iovec half = {iov[0].iov_base, std::max<size_t>(1, iov[0].iov_len / 2)};
            return call(&half, 1);
        }
        break;
    default: break;
    }
    return call(iov, count);
}

ssize_t faulty_writev(int fd, const iovec *iov, int count)
{
    return faulty(iov, count, [fd](const iovec *v, int n) { return glr_internal_pipe_real_syscalls()->writev(fd, v, n); });
}

ssize_t faulty_vmsplice(int fd, const iovec *iov, unsigned long count, unsigned int flags)
{
    return faulty(iov, static_cast<int>(count), [fd, flags](const iovec *v, int n) {
        return glr_internal_pipe_real_syscalls()->vmsplice(fd, v, static_cast<unsigned long>(n), flags);
    });
}

TEST_F(pipe_test, eintr_short_writes_and_eagain_lose_and_repeat_nothing)
{
    const glr_internal_pipe_syscalls faulty_calls{faulty_writev, faulty_vmsplice};
    for (glr_pipe_transport transport : {GLR_PIPE_AUTO, GLR_PIPE_WRITE}) {
        injected_eintr = injected_eagain = injected_short = 0;
        glr_pipe_params pp = pipe_params(transport);
        pp.chunk_size = 3000; // several calls per frame in write mode
        glr_internal_pipe_set_syscalls(&faulty_calls);
        const int frames = frames_per_case(150) * 2;
        delivery d = deliver(pp, GLR_FLIP_STRIDE, frames, 1);
        glr_internal_pipe_set_syscalls(nullptr);
        EXPECT_EQ(d.reader_errors[0], "");
        EXPECT_EQ(d.reader_frames[0], static_cast<uint64_t>(frames));
        EXPECT_GT(injected_eintr.load(), 0u);
        EXPECT_GT(injected_eagain.load(), 0u);
        EXPECT_GT(injected_short.load(), 0u);
        EXPECT_GE(d.stats.retries, injected_eintr + injected_eagain + injected_short);
        EXPECT_EQ(d.leased_after, 0u);
    }
}

// A byte pattern for caller-owned blocks: byte i of round r.
uint8_t block_byte(size_t i, int round) { return static_cast<uint8_t>((i * 131u + i / 4099u + static_cast<size_t>(round) * 77u) & 255u); }

// Reads everything from fd (slowly, after an initial pause) until end of file.
std::vector<uint8_t> read_all_slowly(int fd, int start_after_ms)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(start_after_ms)); // pace: a late reader
    std::vector<uint8_t> all;
    uint8_t buffer[5000];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        all.insert(all.end(), buffer, buffer + n);
        if (all.size() % 7 == 0)
            std::this_thread::sleep_for(std::chrono::microseconds(50)); // pace: a slow reader
    }
    close(fd);
    return all;
}

TEST(pipe_blocks, caller_memory_may_change_once_sync_returns)
{
    // 3 MiB, three times the pipe: sync must wait until the reader has read the last byte
    // of it, else rewriting the block would change bytes still in the pipe (vmsplice).
    for (glr_pipe_transport transport : {GLR_PIPE_AUTO, GLR_PIPE_WRITE}) {
        const size_t size = 3 << 20;
        std::vector<uint8_t> block(size);
        os_pipe fds;
        std::vector<uint8_t> got;
        std::thread reader([&] { got = read_all_slowly(fds.read, 0); });
        glr::pipe pipe(pipe_params(transport));
        for (int round = 0; round < 3; round++) {
            for (size_t i = 0; i < size; i++)
                block[i] = block_byte(i, round);
            pipe.write(fds.write, block.data(), size);
            pipe.sync(block.data());
        }
        uint8_t never_written = 0;
        EXPECT_EQ(glr_pipe_sync(pipe.get(), &never_written), 0); // returns at once
        pipe.close(fds.write);
        fds.close_writer();
        reader.join();
        ASSERT_EQ(got.size(), 3 * size);
        for (size_t i = 0; i < got.size(); i++)
            ASSERT_EQ(got[i], block_byte(i % size, static_cast<int>(i / size))) << "byte " << i;
    }
}

TEST(pipe_blocks, close_flushes_everything_queued_before_it_returns)
{
    // The reader starts late: writes queue up behind a full pipe, and close must wait for
    // all of them (closing the fd early would lose them).
    for (glr_pipe_transport transport : {GLR_PIPE_AUTO, GLR_PIPE_WRITE}) {
        const size_t size = 256 << 10, count = 12;
        std::vector<std::vector<uint8_t>> blocks(count);
        for (size_t b = 0; b < count; b++)
            for (size_t i = 0; i < size; i++)
                blocks[b].push_back(block_byte(i, static_cast<int>(b)));
        os_pipe fds;
        std::vector<uint8_t> got;
        std::thread reader([&] { got = read_all_slowly(fds.read, 200); });
        glr::pipe pipe(pipe_params(transport));
        for (const auto &b : blocks)
            pipe.write(fds.write, b.data(), b.size());
        pipe.close(fds.write);
        EXPECT_EQ(pipe.stats().blocks_written, count);
        fds.close_writer();
        reader.join();
        ASSERT_EQ(got.size(), size * count);
        for (size_t i = 0; i < got.size(); i++)
            ASSERT_EQ(got[i], block_byte(i % size, static_cast<int>(i / size))) << "byte " << i;
    }
}

// Starts `program args...` with stdin from fd and stdout to /dev/null; returns its pid.
pid_t spawn_reader(int fd, std::vector<std::string> argv)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd, STDIN_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char *> c_argv;
    for (auto &a : argv)
        c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, c_argv[0], &actions, nullptr, c_argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        throw std::runtime_error("cannot start " + argv[0]);
    return pid;
}

void kill_and_reap(pid_t pid)
{
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
}

TEST_F(pipe_test, reader_killed_mid_stream_gives_epipe_and_every_lease_back)
{
    for (glr_pipe_transport transport : {GLR_PIPE_AUTO, GLR_PIPE_WRITE}) {
        const int w = 64, h = 32;
        pattern_scene scene({w, h});
        glr::ring ring(ring_params(w, h, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3));
        glr::pipe pipe(pipe_params(transport));
        os_pipe fds;
        pid_t reader = spawn_reader(fds.read, {"cat"});
        close(std::exchange(fds.read, -1));
        int error = 0;
        std::string message;
        auto sink = [&](glr::frame &&f) { pipe.write(fds.write, std::move(f)); };
        try {
            for (int n = 0; n < 5000; n++) {
                if (n == 50)
                    kill_and_reap(reader);
                scene.draw(static_cast<uint64_t>(n));
                ring.capture(scene.source(), n, sink);
            }
        } catch (const glr::error &e) {
            error = e.code();
            message = e.what();
        }
        EXPECT_EQ(error, -EPIPE) << message;
        EXPECT_TRUE(contains(message, "the reader closed its end of the pipe (EPIPE)")) << message;
        EXPECT_TRUE(contains(message, "fd " + std::to_string(fds.write))) << message;
        ring.drain([](glr::frame &&) {});
        EXPECT_EQ(glr_pipe_sync_all(pipe.get()), -EPIPE); // the error stays, with its words
        EXPECT_EQ(std::string(glr_last_error()), message);
        EXPECT_EQ(glr_pipe_close(pipe.get(), fds.write), -EPIPE);
        EXPECT_EQ(ring.stats().frames_leased_now, 0u);
        EXPECT_GT(pipe.stats().blocks_written, 0u);
    }
}

TEST_F(pipe_test, reader_killed_with_spliced_bytes_unread_does_not_hang_sync)
{
    // vmsplice: the frames sit in the pipe, their leases held until read. The reader never
    // reads and dies: sync must notice (POLLERR) rather than wait for ever.
    const int w = 64, h = 32;
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3));
    glr::pipe pipe(pipe_params(GLR_PIPE_AUTO));
    os_pipe fds;
    pid_t reader = spawn_reader(fds.read, {"sleep", "60"});
    close(std::exchange(fds.read, -1));
    auto sink = [&](glr::frame &&f) { pipe.write(fds.write, std::move(f)); };
    for (int n = 0; n < 3; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ring.capture(scene.source(), n, sink);
    }
    ring.drain(sink);
    EXPECT_EQ(ring.stats().frames_leased_now, 3u); // queued or in the pipe, unread
    ASSERT_TRUE(glr_test::wait_until(
        [&] {
            int unread = 0;
            return ioctl(fds.write, FIONREAD, &unread) == 0 && unread >= 3 * w * h * 4;
        },
        "all three frames spliced into the pipe"));
    kill_and_reap(reader);
    EXPECT_EQ(glr_pipe_sync_all(pipe.get()), -EPIPE);
    EXPECT_TRUE(contains(glr_last_error(), "bytes unread")) << glr_last_error();
    EXPECT_EQ(ring.stats().frames_leased_now, 0u);
    EXPECT_EQ(pipe.stats().blocks_failed, 3u);
}

TEST_F(pipe_test, bad_input_is_refused_with_words_and_leases_come_back)
{
    glr::pipe pipe;
    uint8_t byte = 1;
    EXPECT_EQ(glr_pipe_write(pipe.get(), -1, &byte, 1), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "fd -1 is negative")) << glr_last_error();
    EXPECT_EQ(glr_pipe_write(pipe.get(), 1, nullptr, 1), -EINVAL);
    EXPECT_EQ(glr_pipe_write(pipe.get(), 1, &byte, 0), -EINVAL);

    int closed_fd = dup(1);
    close(closed_fd);
    EXPECT_EQ(glr_pipe_write(pipe.get(), closed_fd, &byte, 1), -EBADF);
    EXPECT_TRUE(contains(glr_last_error(), "is not an open file descriptor")) << glr_last_error();
    os_pipe fds;
    EXPECT_EQ(glr_pipe_write(pipe.get(), fds.read, &byte, 1), -EBADF);
    EXPECT_TRUE(contains(glr_last_error(), "is open for reading only")) << glr_last_error();
    close(fds.read);

    glr_pipe_params bad{};
    int not_a_transport = 7;
    std::memcpy(&bad.transport, &not_a_transport, sizeof bad.transport); // as a C caller could
    EXPECT_EQ(glr_pipe_create(nullptr, &bad), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "transport 7")) << glr_last_error();

    // A lease handed over with a bad fd is released, not lost.
    pattern_scene scene({16, 16});
    glr::ring ring(ring_params(16, 16));
    scene.draw(0);
    ASSERT_TRUE(ring.try_capture(scene.source(), 0));
    glr_frame f = ring.acquire(UINT64_MAX)->detach();
    EXPECT_EQ(glr_pipe_write_frame(pipe.get(), -3, &f), -EINVAL);
    EXPECT_EQ(ring.stats().frames_leased_now, 0u);
}

TEST(pipe_blocks, a_full_disk_is_reported_by_sync_and_close)
{
    int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    ASSERT_GE(full, 0);
    glr::pipe pipe;
    std::vector<uint8_t> block(4096, 9);
    pipe.write(full, block.data(), block.size()); // queued: fails on the writer thread
    EXPECT_EQ(glr_pipe_sync(pipe.get(), block.data()), -ENOSPC);
    EXPECT_TRUE(contains(glr_last_error(), "No space left on device (ENOSPC)")) << glr_last_error();
    EXPECT_EQ(glr_pipe_write(pipe.get(), full, block.data(), block.size()), -ENOSPC); // sticky
    EXPECT_EQ(glr_pipe_close(pipe.get(), full), -ENOSPC);
    EXPECT_EQ(pipe.stats().blocks_failed, 2u);
    close(full);
}

glr_ffmpeg_child_params child_params(int w, int h, const char *const *args)
{
    glr_ffmpeg_child_params p{};
    p.width = w;
    p.height = h;
    p.format = GLR_FORMAT_RGBA8;
    p.fps_num = 25;
    p.args = args;
    return p;
}

TEST_F(pipe_test, ffmpeg_child_encodes_every_frame_the_pipe_writes)
{
    const int w = 64, h = 48, frames = 30;
    std::string path = glr_test::scratch_path("child.mkv");
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3));
    glr::pipe pipe;
    glr::ffmpeg_child child(child_params(w, h, nullptr), {"-c:v", "ffv1", "-y", path});
    auto sink = [&](glr::frame &&f) { pipe.write(child.stdin_fd(), std::move(f)); };
    for (int n = 0; n < frames; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ring.capture(scene.source(), n, sink);
    }
    ring.drain(sink);
    pipe.close(child.stdin_fd());
    child.finish();
    glr_test::expect_pattern_video(path, frames, w, h, true);
    std::remove(path.c_str());
}

// Renders `frames` pattern frames into an ffmpeg child stopped (SIGSTOP) after the first
// frames, for `pause` or until the rendering ended (a capture gave up), through a ring
// whose capture waits `timeout`. Returns the error a capture met ("" when none) and
// leaves the child's file at path.
std::string deliver_to_paused_child(int frames, std::chrono::seconds pause, uint64_t timeout, const std::string &path)
{
    const int w = 256, h = 192; // 192 KiB a frame: a few fill the pipe
    pattern_scene scene({w, h});
    glr_ring_params rp = ring_params(w, h, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3);
    rp.capture_timeout_ns = timeout;
    glr::ring ring(rp);
    glr::ffmpeg_child child(child_params(w, h, nullptr), {"-c:v", "ffv1", "-y", path});
    glr::pipe pipe;
    auto sink = [&](glr::frame &&f) { pipe.write(child.stdin_fd(), std::move(f)); };
    std::string error;
    std::mutex mutex;
    std::condition_variable ended;
    bool rendered = false;
    std::thread pauser;
    try {
        for (int n = 0; n < frames; n++) {
            scene.draw(static_cast<uint64_t>(n));
            ring.capture(scene.source(), n, sink);
            if (n == 2)
                pauser = std::thread([&] {
                    kill(child.pid(), SIGSTOP);
                    std::unique_lock<std::mutex> lock(mutex);
                    ended.wait_for(lock, pause, [&] { return rendered; }); // pace: the pause under test
                    kill(child.pid(), SIGCONT);
                });
        }
        ring.drain(sink);
    } catch (const glr::error &e) {
        error = e.what();
    }
    {
        std::lock_guard<std::mutex> lock(mutex);
        rendered = true;
    }
    ended.notify_all();
    if (pauser.joinable())
        pauser.join();
    pipe.close(child.stdin_fd());
    child.finish();
    return error;
}

TEST_F(pipe_test, a_child_stopped_longer_than_the_old_timeout_resumes_and_gets_every_frame)
{
    const int frames = 40;
    std::string path = glr_test::scratch_path("paused.mkv");
    ASSERT_EQ(deliver_to_paused_child(frames, std::chrono::seconds(15), UINT64_MAX, path), "");
    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames));
    for (int n = 0; n < frames; n++)
        ASSERT_EQ(glr_test::check_decoded(v.frames[static_cast<size_t>(n)], static_cast<uint64_t>(n), 256, 192, true),
                  "");
    std::remove(path.c_str());
}

TEST_F(pipe_test, a_capture_timeout_names_what_holds_the_frames)
{
    std::string path = glr_test::scratch_path("timeout.mkv");
    // Stopped until the capture gave up: never resumed in time, however slow the machine.
    std::string error = deliver_to_paused_child(40, std::chrono::seconds(3600), 500'000'000, path);
    EXPECT_TRUE(contains(error, "all 3 slots stayed leased for 500 ms")) << error;
    EXPECT_TRUE(contains(error, "glr_pipe's writer for fd")) << error;
    EXPECT_TRUE(contains(error, "whose reader has taken no byte for")) << error;
    std::remove(path.c_str());
}

TEST_F(pipe_test, ffmpeg_child_failure_carries_its_own_words)
{
    const int w = 64, h = 48;
    const char *args[] = {"-c:v", "no_such_encoder", "-f", "null", "-", nullptr};
    glr_ffmpeg_child_params params = child_params(w, h, args);
    glr_ffmpeg_child *child = glr_ffmpeg_child_spawn(nullptr, &params);
    ASSERT_NE(child, nullptr) << glr_last_error();
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h));
    glr::pipe pipe;
    int fd = glr_ffmpeg_child_stdin(child);
    int written = 0;
    try {
        for (; written < 2000; written++) { // until ffmpeg has given up and closed its stdin
            scene.draw(static_cast<uint64_t>(written));
            ring.capture(scene.source(), written, [&](glr::frame &&f) { pipe.write(fd, std::move(f)); });
        }
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), -EPIPE) << e.what();
    }
    ring.drain([](glr::frame &&) {});
    glr_pipe_close(pipe.get(), fd);
    EXPECT_EQ(glr_ffmpeg_child_finish(child), GLR_ERROR_CHILD);
    std::string message = glr_last_error();
    EXPECT_TRUE(contains(message, "exited with status")) << message;
    EXPECT_TRUE(contains(message, "Unknown encoder 'no_such_encoder'")) << message;
    EXPECT_EQ(glr_ffmpeg_child_finish(child), GLR_ERROR_CHILD); // again, the same
    EXPECT_STREQ(glr_last_error(), message.c_str());
    // ffmpeg's stderr as it wrote it, its own lines whole: the input it was given, then why
    // it stopped (the message quotes only the tail).
    std::string err = glr_ffmpeg_child_stderr(child);
    EXPECT_TRUE(contains(err, "rawvideo")) << err;
    EXPECT_TRUE(contains(err, "Unknown encoder 'no_such_encoder'")) << err;
    EXPECT_TRUE(contains(message, err.substr(err.rfind("Unknown encoder")))) << message;
    glr_ffmpeg_child_destroy(&child);
    EXPECT_EQ(ring.stats().frames_leased_now, 0u);
}

TEST(ffmpeg_child, a_program_that_cannot_start_is_named)
{
    glr_ffmpeg_child_params p = child_params(16, 16, nullptr);
    p.ffmpeg = "/nonexistent/ffmpeg";
    EXPECT_EQ(glr_ffmpeg_child_spawn(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), GLR_ERROR_CHILD);
    EXPECT_TRUE(contains(glr_last_error(), "cannot start '/nonexistent/ffmpeg'")) << glr_last_error();
    p.ffmpeg = nullptr;
    p.width = 0;
    EXPECT_EQ(glr_ffmpeg_child_spawn(nullptr, &p), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "size 0x16")) << glr_last_error();
    p.width = 16;
    int not_a_format = 42;
    std::memcpy(&p.format, &not_a_format, sizeof p.format); // as a C caller could
    EXPECT_EQ(glr_ffmpeg_child_spawn(nullptr, &p), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "unknown format 42")) << glr_last_error();
}

} // namespace
