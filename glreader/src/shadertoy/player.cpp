#include "shadertoy/player.hpp"

#include "error.hpp"
#include "scene/shader_scene.hpp"
#include "log.hpp"
#include "shadertoy/inputs.hpp"
#include "shadertoy/project.hpp"

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
        clock_.sample_rate = feeder_.sample_rate ? feeder_.sample_rate(feeder_.opaque) : 0;
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

void glr_player::render(int n)
{
    glr::shadertoy_inputs(clock_, n, inputs_);
    uint64_t start = glr::now_ns();
    if (feeder_.update) {
        char err[1024] = "";
        if (int rc = feeder_.update(feeder_.opaque, scene_.get(), inputs_.time, err, sizeof err); rc < 0)
            glr::fail(rc, "frame %d: %s", n, *err ? err : "the channel feeder failed");
    }
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
    return out;
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
                    feeder_.skip(feeder_.opaque, seconds_at(n));
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
