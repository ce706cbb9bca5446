// "key=value:key=value" option strings as an AVDictionary that frees itself, and the
// first key its consumer (a codec, a muxer) left unused, for "has no option 'x'" errors.
#pragma once

#include "error.hpp"

extern "C" {
#include <libavutil/dict.h>
}

#include <cerrno>
#include <string>

namespace glr {

class av_dictionary {
public:
    // Parses text (NULL: empty); throws -EINVAL with what_failed and the text when it is no
    // key=value:key=value list.
    av_dictionary(const char *what_failed, const char *text)
    {
        if (text && av_dict_parse_string(&dict_, text, "=", ":", 0) < 0) {
            av_dict_free(&dict_);
            fail(-EINVAL, "%s \"%s\" (want key=value:key=value)", what_failed, text);
        }
    }
    ~av_dictionary() { av_dict_free(&dict_); }
    av_dictionary(const av_dictionary &) = delete;
    av_dictionary &operator=(const av_dictionary &) = delete;

    AVDictionary **address() { return &dict_; }
    // A key left in the dictionary after it was passed on: one nobody took; "" if none.
    std::string first_key() const
    {
        const AVDictionaryEntry *e = av_dict_get(dict_, "", nullptr, AV_DICT_IGNORE_SUFFIX);
        return e ? e->key : "";
    }

private:
    AVDictionary *dict_ = nullptr;
};

} // namespace glr
