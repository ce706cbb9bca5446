#include "av/vulkan_frames.hpp"

#include "av/av_error.hpp"
#include "av/logged_failure.hpp"
#include "error.hpp"

#include "glreader/utils/libav.h"

extern "C" {
#include <libavutil/hwcontext_vulkan.h>
#include <libavutil/pixdesc.h>
}

#include <cerrno>
#include <cstring>

namespace glr::av {

namespace {

constexpr int max_devices = 16;

struct vulkan_functions {
    PFN_vkGetInstanceProcAddr instance = nullptr;
    PFN_vkGetDeviceProcAddr device = nullptr;
};

vulkan_functions loaders(const AVVulkanDeviceContext &vk)
{
    vulkan_functions f;
    f.instance = vk.get_proc_addr;
    f.device = reinterpret_cast<PFN_vkGetDeviceProcAddr>(f.instance(vk.inst, "vkGetDeviceProcAddr"));
    return f;
}

// The device's and its driver's UUIDs (Vulkan 1.1, as FFmpeg's devices are).
void vulkan_uuids(const AVVulkanDeviceContext &vk, uint8_t device[VK_UUID_SIZE], uint8_t driver[VK_UUID_SIZE],
                  std::string &name)
{
    auto properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
        vk.get_proc_addr(vk.inst, "vkGetPhysicalDeviceProperties2"));
    VkPhysicalDeviceIDProperties id{};
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &id;
    properties2(vk.phys_dev, &props);
    std::memcpy(device, id.deviceUUID, VK_UUID_SIZE);
    std::memcpy(driver, id.driverUUID, VK_UUID_SIZE);
    name = props.properties.deviceName;
}

bool has_device_extension(const AVVulkanDeviceContext &vk, const char *name)
{
    for (int i = 0; i < vk.nb_enabled_dev_extensions; i++)
        if (std::strcmp(vk.enabled_dev_extensions[i], name) == 0)
            return true;
    return false;
}

} // namespace

AVBufferRef *vulkan_device_for_gl(const glr_log *log, const std::string &spec, glr_get_proc_address_fn loader)
{
    uint8_t gl_device[16], gl_driver[16];
    check(glr_gl_device_uuids(const_cast<glr_log *>(log), loader, gl_device, gl_driver));
    std::string tried;
    // FFmpeg's devices are chosen by index or name, not UUID: try the one named, or each.
    for (int index = 0; index < (spec.empty() ? max_devices : 1); index++) {
        std::string name = spec.empty() ? std::to_string(index) : spec;
        AVBufferRef *device = nullptr;
        int err = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_VULKAN, name.c_str(), nullptr, 0);
        if (err < 0) {
            if (index == 0 || !spec.empty())
                fail(code_of_av_error(err), "no Vulkan device %s%s: %s (FFmpeg's -init_hw_device vulkan%s%s)",
                     spec.empty() ? "" : "named ", spec.empty() ? "at all" : spec.c_str(), av_error_text(err).c_str(),
                     spec.empty() ? "" : ":", spec.c_str());
            break; // past the last device
        }
        const auto &vk = *static_cast<const AVVulkanDeviceContext *>(
            reinterpret_cast<AVHWDeviceContext *>(device->data)->hwctx);
        uint8_t vk_device[VK_UUID_SIZE], vk_driver[VK_UUID_SIZE];
        std::string device_name;
        vulkan_uuids(vk, vk_device, vk_driver, device_name);
        bool same = std::memcmp(vk_device, gl_device, 16) == 0 && std::memcmp(vk_driver, gl_driver, 16) == 0;
        if (same && has_device_extension(vk, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
            glr_log_message(log, GLR_LOG_INFO,
                            ("hardware frames: Vulkan device " + name + " (" + device_name + "), the GL context's")
                                .c_str());
            return device;
        }
        tried += (tried.empty() ? "" : ", ") + device_name +
                 (same ? " (no " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME ")" : " (another device than GL's)");
        av_buffer_unref(&device);
    }
    fail(GLR_ERROR_UNSUPPORTED, "no Vulkan device shares memory with the GL context: tried %s", tried.c_str());
}

vulkan_frames::vulkan_frames(const glr_log *log, AVBufferRef *device, const glr_converter_params &params,
                             glr_converter *converter)
    : log_(log), params_(params), converter_(converter)
{
    glr_color_resolve(params.format, &params.color, &color_); // the converter took it
    try {
        // (No av_vkfmt_from_pixfmt here: glreader-av must load with an FFmpeg built without
        // Vulkan; av_hwframe_ctx_init refuses a format the frames do not take.)
        frames_ = make_frames_pool(device, AV_PIX_FMT_VULKAN, "Vulkan", params, [](AVHWFramesContext &ctx) {
            auto *vk = static_cast<AVVulkanFramesContext *>(ctx.hwctx);
            // Optimal tiling, which GL can import (not a DRM format modifier's), and a memory
            // object per plane: each plane becomes one GL texture.
            vk->tiling = VK_IMAGE_TILING_OPTIMAL;
            vk->flags = AV_VK_FRAME_FLAG_NONE;
        });
        auto *ctx = reinterpret_cast<AVHWFramesContext *>(frames_->data);
        const auto &dev = *static_cast<const AVVulkanDeviceContext *>(ctx->device_ctx->hwctx);
        vulkan_functions f = loaders(dev);
        device_ = dev.act_dev;
        get_memory_fd_ = reinterpret_cast<PFN_vkGetMemoryFdKHR>(f.device(device_, "vkGetMemoryFdKHR"));
        get_requirements_ = reinterpret_cast<PFN_vkGetImageMemoryRequirements2>(
            f.device(device_, "vkGetImageMemoryRequirements2"));
        if (!get_memory_fd_ || !has_device_extension(dev, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
            fail(GLR_ERROR_UNSUPPORTED, "the Vulkan device does not export memory (" VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME
                                        "), so GL cannot write its frames");
    } catch (...) {
        av_buffer_unref(&frames_);
        throw;
    }
}

vulkan_frames::~vulkan_frames()
{
    for (plane_image &p : images_)
        glr_memory_texture_destroy(&p.texture);
    av_buffer_unref(&frames_);
}

const vulkan_frames::plane_image &vulkan_frames::imported(VkImage image, VkDeviceMemory memory, size_t size,
                                                          ptrdiff_t offset, int plane)
{
    for (const plane_image &p : images_)
        if (p.image == image)
            return p;
    // GL is told whether the memory is a dedicated allocation, as FFmpeg decided it: where
    // the driver prefers or requires one.
    VkImageMemoryRequirementsInfo2 info{};
    info.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2;
    info.image = image;
    VkMemoryDedicatedRequirements dedicated{};
    dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS;
    VkMemoryRequirements2 requirements{};
    requirements.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
    requirements.pNext = &dedicated;
    get_requirements_(device_, &info, &requirements);

    VkMemoryGetFdInfoKHR fd_info{};
    fd_info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
    fd_info.memory = memory;
    fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VkResult result = get_memory_fd_(device_, &fd_info, &fd);
    if (result != VK_SUCCESS)
        fail(GLR_ERROR_UNSUPPORTED,
             "the Vulkan frame's memory is not exportable as an opaque fd (vkGetMemoryFdKHR: %d): the device cannot "
             "share it with GL",
             static_cast<int>(result));
    glr_memory_image m{};
    m.fd = fd;
    m.memory_size = size;
    m.offset = static_cast<uint64_t>(offset);
    m.dedicated = dedicated.prefersDedicatedAllocation || dedicated.requiresDedicatedAllocation;
    m.width = glr_converter_plane_width(converter_, plane);
    m.height = glr_format_plane_rows(params_.format, plane, params_.height);
    m.internal_format = glr_converter_plane_format(converter_, plane);
    m.get_proc_address = params_.get_proc_address;
    glr_memory_texture *texture = check(glr_memory_texture_import(const_cast<glr_log *>(log_), &m));
    images_.push_back({image, texture});
    return images_.back();
}

hw_frame_kind::converted vulkan_frames::convert(const glr_source &source)
{
    AVFrame *frame = pooled_frame(frames_, "Vulkan");
    try {
        const auto *vk = reinterpret_cast<const AVVkFrame *>(frame->data[0]);
        unsigned textures[4] = {};
        int planes = av_pix_fmt_count_planes(glr_av_pix_fmt(params_.format));
        for (int p = 0; p < planes; p++)
            textures[p] = glr_memory_texture_name(imported(vk->img[p], vk->mem[p], vk->size[p], vk->offset[p], p).texture);
        check(glr_converter_convert(converter_, &source, textures));
        glr_av_set_color(frame, &color_);
        glr_gl_fence *fence = glr_converter_fence(converter_);
        if (!fence)
            throw logged_failure(glr_last_error_code());
        return {frame, fence};
    } catch (...) {
        av_frame_free(&frame);
        throw;
    }
}

int vulkan_frames::wait(void *mark, uint64_t timeout_ns)
{
    return check(glr_converter_fence_wait(converter_, static_cast<glr_gl_fence *>(mark), timeout_ns));
}

void vulkan_frames::forget(void *mark) { glr_converter_fence_delete(converter_, static_cast<glr_gl_fence *>(mark)); }

} // namespace glr::av
