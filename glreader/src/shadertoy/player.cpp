#include "shadertoy/player.hpp"

#include "glreader/frame_range.h"

#include "error.hpp"
#include "scene/shader_scene.hpp"
#include "log.hpp"
#include "shadertoy/inputs.hpp"
#include "shadertoy/project.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

namespace {

const char *media_name(glr_media_kind kind)
{
    switch (kind) {
    case GLR_MEDIA_IMAGE: return "a picture";
    case GLR_MEDIA_VIDEO: return "a video";
    case GLR_MEDIA_SOUND: return "a sound";
    case GLR_MEDIA_CUBEMAP: return "a cube map";
    case GLR_MEDIA_NONE: break;
    }
    return "nothing";
}

// The Sound pass renders ahead in pieces that double from the first (a short render
// renders little) up to the longest, about 12 s at 44100 Hz, so that a GPU's queue is
// waited for once a piece. What lies more than a sound channel's analysis window before
// the latest ask is let go as the next piece comes.
constexpr int first_sound_piece = 4096, longest_sound_piece = 1 << 19, sound_lookback = 4096;

} // namespace

void glr_player::scene_deleter::operator()(glr_scene *s) const { delete s; }

bool glr_player::keeps_state(const glr_scene_params &params)
{
    auto reads_unrendered_buffer = [](int pass, const glr_channel *channels) {
        for (int c = 0; c < GLR_SCENE_CHANNELS; c++)
            if (channels[c].kind == GLR_CHANNEL_BUFFER && channels[c].buffer >= pass)
                return true;
        return false;
    };
    for (int b = 0; b < GLR_SCENE_BUFFERS; b++) {
        const glr_scene_pass &pass = params.buffers[b];
        if ((pass.source || pass.source_path) && reads_unrendered_buffer(b, pass.channels))
            return true;
    }
    return reads_unrendered_buffer(GLR_SCENE_IMAGE_PASS, params.channels);
}

glr_player::glr_player(const glr_log *log, const glr_player_params &p)
    : log_(log), first_(p.first_frame), next_(p.first_frame), preroll_(0)
{
    if (!p.project)
        glr::fail(-EINVAL, "glr_player_create: no project given");
    if (p.first_frame < 0 || p.first_frame == INT_MAX)
        glr::fail(-EINVAL, "glr_player_create: first frame %d is out of range 0..%d", p.first_frame, INT_MAX - 1);
    clock_.fps_num = p.fps_num ? p.fps_num : 30;
    clock_.fps_den = p.fps_den ? p.fps_den : 1;
    if (clock_.fps_num <= 0 || clock_.fps_den <= 0)
        glr::fail(-EINVAL, "glr_player_create: the frame rate %d/%d is not positive", p.fps_num, p.fps_den);
    std::memcpy(clock_.mouse, p.mouse, sizeof clock_.mouse);
    if (p.date) {
        clock_.date_start = glr::parse_date(p.date);
    } else { // Shadertoy's: the render's start, in local time
        clock_.date_start = static_cast<long long>(std::time(nullptr));
        clock_.date_local = 1;
    }
    if (p.feeder) {
        if (!p.feeder->update)
            glr::fail(-EINVAL, "glr_player_create: the channel feeder has no update");
        feeder_ = *p.feeder;
    } else {
        for (int pass = 0; pass <= GLR_SCENE_IMAGE_PASS; pass++)
            for (int c = 0; c < GLR_SCENE_CHANNELS; c++)
                if (const glr_channel_binding *b = glr_project_binding(p.project, pass, c); b && b->media != GLR_MEDIA_NONE)
                    glr::fail(-EINVAL, "glr_player_create: the %s pass's iChannel%d shows %s (%s), and no channel feeder "
                                       "was given to decode it",
                              glr::project_pass_titles[pass], c, media_name(b->media), b->path ? b->path : "the host's sound");
    }
    glr_scene_params sp{};
    sp.width = p.width;
    sp.height = p.height;
    glr_project_scene_params(p.project, &sp);
    if (p.source) {
        sp.source = p.source;
        sp.source_path = nullptr;
        sp.source_name = p.source_name;
    }
    sp.max_source_bytes = p.max_source_bytes;
    sp.alpha = p.alpha;
    sp.upload = p.upload;
    sp.get_proc_address = p.get_proc_address;
    if (p.sound_rate < 0) {
        sp.sound_source = sp.sound_path = sp.sound_name = nullptr;
    } else if (sp.sound_source || sp.sound_path) {
        sound_rate_ = p.sound_rate ? p.sound_rate : GLR_SOUND_RATE_DEFAULT;
        if (sound_rate_ < GLR_SOUND_RATE_MIN || sound_rate_ > GLR_SOUND_RATE_MAX)
            glr::fail(-EINVAL, "glr_player_create: the Sound pass's sample rate %d Hz is outside %d..%d", sound_rate_,
                      GLR_SOUND_RATE_MIN, GLR_SOUND_RATE_MAX);
    }
    // iSampleRate: the Sound pass's, else the feeder's sound's.
    clock_.sample_rate = sound_rate_ ? static_cast<float>(sound_rate_)
                         : feeder_.sample_rate ? feeder_.sample_rate(feeder_.opaque)
                                               : 0;
    preroll_ = keeps_state(sp) ? first_ : 0;
    scene_.reset(new glr_scene(log ? log : glr_log::fallback(), sp));
}

glr_player::~glr_player() = default;

double glr_player::seconds_at(int n) const
{
    glr_scene_inputs at{};
    glr::shadertoy_inputs(clock_, n, at);
    return at.time;
}

// Calls the feeder's update or skip for frame n; its failure is the frame's.
void glr_player::feed(int (*step)(void *, glr_player *, double), int n, double seconds)
{
    glr_set_last_error(0, "");
    if (int rc = step(feeder_.opaque, this, seconds); rc < 0)
        glr::fail(rc, "frame %d: %s", n, *glr_last_error() ? glr_last_error() : "the channel feeder failed");
}

void glr_player::render(int n)
{
    glr::shadertoy_inputs(clock_, n, inputs_);
    uint64_t start = glr::now_ns();
    if (feeder_.update)
        feed(feeder_.update, n, inputs_.time);
    uint64_t fed = glr::now_ns();
    scene_->render(inputs_);
    channels_.record_ns(fed - start);
    render_.record_ns(glr::now_ns() - fed);
    rendered_++;
}

glr_player_stats glr_player::stats() const
{
    glr_player_stats out{};
    out.frames_rendered = rendered_;
    out.preroll_frames = prerolled_;
    out.channels = channels_.summary();
    out.render = render_.summary();
    out.sound_samples = sound_samples_;
    out.sound_seconds = sound_seconds_;
    return out;
}

long long glr_player::sound_sample(long long frame) const
{
    return sound_rate_ ? glr_frame_first_sample(frame, sound_rate_, clock_.fps_num, clock_.fps_den) : -1;
}

void glr_player::render_sound(long long first, int count, int16_t *stereo)
{
    if (!sound_rate_)
        glr::fail(-EINVAL, "glr_player_render_sound: the player plays no Sound pass");
    if (count < 0 || (count && !stereo))
        glr::fail(-EINVAL, "glr_player_render_sound: %d samples into %p cannot be rendered", count,
                  static_cast<void *>(stereo));
    if (first < 0) { // silence before the track
        long long silent = std::min<long long>(count, -first);
        std::fill(stereo, stereo + 2 * silent, int16_t{0});
        stereo += 2 * silent;
        count -= static_cast<int>(silent);
        first = 0;
    }
    if (!count)
        return;
    const long long end = first + count;
    if (first < sound_first_ || first > sound_end()) { // not where the cache goes on from: start it here
        sound_.clear();
        sound_first_ = first;
        sound_piece_ = 0;
    }
    extend_sound(first, end);
    std::copy_n(&sound_[static_cast<size_t>(first - sound_first_) * 2], 2 * static_cast<size_t>(count), stereo);
}

void glr_player::extend_sound(long long first, long long end)
{
    long long cached_end = sound_end();
    if (cached_end >= end)
        return;
    if (long long drop = std::max<long long>(0, first - sound_lookback) - sound_first_; drop > 0) {
        sound_.erase(sound_.begin(), sound_.begin() + static_cast<std::ptrdiff_t>(2 * drop));
        sound_first_ += drop;
    }
    uint64_t started = glr::now_ns();
    while (cached_end < end) {
        long long piece = std::max<long long>(end - cached_end,
                                              std::clamp(2 * sound_piece_, first_sound_piece, longest_sound_piece));
        // Up to the last sample the pass renders; a range past it is the scene's error.
        piece = std::max(end - cached_end, std::min<long long>(piece, INT32_MAX - cached_end));
        const size_t kept = sound_.size();
        sound_.resize(kept + 2 * static_cast<size_t>(piece));
        try {
            scene_->render_sound(sound_rate_, cached_end, static_cast<int>(piece), &sound_[kept]);
        } catch (...) {
            sound_.resize(kept);
            throw;
        }
        sound_piece_ = static_cast<int>(piece);
        cached_end += piece;
        sound_samples_ += static_cast<uint64_t>(piece);
    }
    sound_seconds_ += static_cast<double>(glr::now_ns() - started) / 1e9;
}

void glr_player::render_next()
{
    if (error_)
        glr::fail(error_, "%s", error_message_.c_str());
    try {
        if (!started_) {
            started_ = true;
            // Frames before the first: rendered where passes keep state, so that the
            // first is what a render from 0 shows; else only what the media carry.
            for (int n = 0; n < first_; n++) {
                if (preroll_) {
                    render(n);
                    prerolled_++;
                }
                else if (feeder_.skip)
                    feed(feeder_.skip, n, seconds_at(n));
            }
        }
        if (next_ == INT_MAX)
            glr::fail(-EINVAL, "glr_player_render_next: frame %d is the last a player counts", INT_MAX - 1);
        render(next_);
        next_++;
    } catch (const glr::failure &e) {
        error_ = e.code();
        error_message_ = e.what();
        throw;
    }
}
