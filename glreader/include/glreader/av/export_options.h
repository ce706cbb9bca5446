/*
 * glreader-av: the export's options, named once. Every front-end that renders a project
 * (glreader-export, glreader.render, glreader.farm) takes its options through this table:
 * each one's name, its command-line spellings, the kind of value, its bounds, its default
 * and its help. Front-ends read the table for their help and argument parsers, and hand
 * each option to a settings object as text, which checks it, and which makes the export
 * job's params (glreader/av/export.h) from them:
 *
 *   glr_export_settings *s = glr_export_settings_create();
 *   glr_export_settings_set(s, "-t", "2.5");      // a spelling, or the name: "duration"
 *   glr_export_settings_set(s, "-preset", "slow"); // not in the table: the encoder's option
 *   struct glr_export_params params;
 *   glr_export_settings_resolve(s, log, &params); // the project opened, the range counted
 *   ... glr_export_create(log, &params) ...
 *   glr_export_settings_destroy(&s);               // after the job: params point into it
 *
 * The shape is libplacebo's pl_options (a static list that front-ends and documentation
 * read, and a setter by key that refuses an unknown key) with FFmpeg's opt_default: a name
 * the table lacks is taken as an encoder option when some encoder of libavcodec has it
 * (-preset, -crf, -b:v, -tune, x264-params...), and the chosen encoder checks it before a
 * frame renders. Options that only one front-end has (glreader-export's -v and
 * --stats-json, Python's progress, the farm's --chunks) stay in that front-end.
 *
 * Values are text as the command line gives them; kinds say how they are read:
 * times as glr_parse_time, rates as glr_parse_rate (glreader/frame_range.h).
 */
#ifndef GLREADER_AV_EXPORT_OPTIONS_H
#define GLREADER_AV_EXPORT_OPTIONS_H

#include "glreader/av/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an option's value is written. */
enum glr_export_option_kind {
    GLR_EXPORT_OPTION_TEXT = 1, /* any text: a file, a URL, a codec's name */
    GLR_EXPORT_OPTION_SWITCH,   /* on or off: no value on the command line; else 1, 0, true, false */
    GLR_EXPORT_OPTION_INTEGER,  /* a whole number from min to max */
    GLR_EXPORT_OPTION_NUMBER,   /* a decimal or a fraction (1.5, 3/2) from min to max */
    GLR_EXPORT_OPTION_TIME,     /* a time (2.5, 500ms, 1:30.5) from min to max seconds */
    GLR_EXPORT_OPTION_RATE,     /* a frame rate (30, 29.97, 30000/1001, ntsc) */
    GLR_EXPORT_OPTION_SIZE,     /* WIDTHxHEIGHT, each from min to max */
    GLR_EXPORT_OPTION_BITS,     /* bits a second: 192000, 192k, 1.5M, from min to max */
    GLR_EXPORT_OPTION_BYTES,    /* bytes: 65536, 64k, 16M (k, M: 1024, 1024 x 1024), min to max */
    GLR_EXPORT_OPTION_CHOICE,   /* one of choices */
    GLR_EXPORT_OPTION_LIST      /* KEY=VALUE, given again for each entry */
};

struct glr_export_option {
    const char *name;    /* the key: Python's keyword, the farm's, the docs' ("duration") */
    const char *flags;   /* the command line's spellings, ", " between them ("-t"; "-c, -c:v") */
    const char *value;   /* the value in help ("TIME"); "" for a switch */
    enum glr_export_option_kind kind;
    double min, max;     /* INTEGER, NUMBER, TIME (seconds), SIZE, BITS, BYTES */
    const char *choices; /* CHOICE: "gpu|cpu"; else NULL */
    const char *fallback;/* the default, in words ("120", "the encoder's") */
    const char *help;    /* what it does, one sentence or two */
    const char *section; /* the part of a help it belongs to ("What to render", "Encoding",
                          * "Sound", "Output", "Colour and readback") */
};

/* The table, in help order; *count gets its length. */
GLR_API const struct glr_export_option *glr_export_options(int *count);

/* The option a key names: its name ("pix_fmt") or one of its command-line spellings
 * ("-pix_fmt", "--pix-fmt"). NULL: none. */
GLR_API const struct glr_export_option *glr_export_option_find(const char *key);

/* The table's readers of numbers, for a front-end's own options too: the whole text is the
 * number (no exponent, inf, nan or spaces). Each returns 0, or -EINVAL (no last error: a
 * front-end says it in its words). */
GLR_API int glr_export_parse_integer(const char *text, long long *value);  /* [-]DIGITS */
/* A decimal ([-]DIGITS[.DIGITS], [-].DIGITS) or a fraction of two (3/2, the second not 0). */
GLR_API int glr_export_parse_number(const char *text, double *value);
/* A decimal with k (or K), M or G: kilo, kilo squared, cubed (192k, 1.5M). */
GLR_API int glr_export_parse_scaled(const char *text, double kilo, double *value);

typedef struct glr_export_settings glr_export_settings;

/* Empty settings: every option at its default. NULL when out of memory. */
GLR_API glr_export_settings *glr_export_settings_create(void);

/* Sets an option by name or spelling from its text (a switch: "1", "0", "true", "false"),
 * checked at once; a LIST option adds an entry; the last value of any other wins. A key
 * the table lacks that names an encoder option of libavcodec ("preset", "-crf", "-b:v") is
 * added to the encoder's options. Returns 0, or -EINVAL (a value that is not of the
 * option's kind or is out of its bounds, naming the option as the key spelled it) or
 * -ENOENT (an unknown key, naming it and the nearest known one: "unknown option -tt:
 * neither glreader's nor an encoder's (did you mean -t?)"), with the reason as the last error. */
GLR_API int glr_export_settings_set(glr_export_settings *settings, const char *key, const char *value);

/* Whether the option `name` (or a spelling of it) was set. */
GLR_API int glr_export_settings_has(const glr_export_settings *settings, const char *key);

/* The text an option was set to (a switch's as "1" or "0"; a LIST's last entry), valid
 * until it is set again; NULL when it was not set or the key names no option. */
GLR_API const char *glr_export_settings_get(const glr_export_settings *settings, const char *key);

/* Checks what needs more than one option and no file: the range (glr_frame_range: two
 * starts or two lengths), --audio-offset without --audio, -an with a sound option. What a
 * command line refuses as a usage error, before anything is opened. Returns 0 or -EINVAL
 * with the reason as the last error (not logged). */
GLR_API int glr_export_settings_check(const glr_export_settings *settings);

/* The project the settings name (shader, media, channel0..3 bound), opened once and kept
 * by the settings. NULL with the reason as the last error. */
GLR_API glr_project *glr_export_settings_project(glr_export_settings *settings, glr_log *log);

/* Fills *params (zeroed first) from the settings: glr_export_settings_check, the project
 * opened, the range counted by glr_frame_range (5 s without a length), every default the
 * table gives; a sound option with no sound to shape (no --audio, no Sound pass) is
 * refused. A start or end time between two frames is said as a
 * warning on log. params points into the settings: keep them until the job is destroyed.
 * Returns 0 or a negative errno with the reason logged and as the last error. */
GLR_API int glr_export_settings_resolve(glr_export_settings *settings, glr_log *log,
                                        struct glr_export_params *params);

/* Frees the settings (and the project they opened) and sets *settings to NULL. NULL and a
 * pointer to NULL are accepted. */
GLR_API void glr_export_settings_destroy(glr_export_settings **settings);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_EXPORT_OPTIONS_H */
