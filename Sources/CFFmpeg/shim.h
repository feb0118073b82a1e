#ifndef TILAWA_CFFMPEG_SHIM_H
#define TILAWA_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libavutil/mem.h>
#include <libavutil/tx.h>

/* AVERROR(EAGAIN) and AVERROR_EOF are function-like / composite macros Swift cannot import. */
static inline int tilawa_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int tilawa_averror_eof(void) { return AVERROR_EOF; }
static inline int tilawa_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int tilawa_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int64_t tilawa_av_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
