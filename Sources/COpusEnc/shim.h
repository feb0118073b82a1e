#ifndef TILAWA_COPUSENC_SHIM_H
#define TILAWA_COPUSENC_SHIM_H

#include <opus/opusenc.h>
#include <opus/opus_defines.h>

/* ope_encoder_ctl is variadic and its requests are macros: one typed wrapper per request we use. */
static inline int tilawa_ope_set_bitrate(OggOpusEnc *enc, opus_int32 bps) {
    return ope_encoder_ctl(enc, OPUS_SET_BITRATE(bps));
}
static inline int tilawa_ope_set_vbr(OggOpusEnc *enc, opus_int32 on) {
    return ope_encoder_ctl(enc, OPUS_SET_VBR(on));
}
static inline int tilawa_ope_set_complexity(OggOpusEnc *enc, opus_int32 complexity) {
    return ope_encoder_ctl(enc, OPUS_SET_COMPLEXITY(complexity));
}
/* signal: 0 auto, 1 voice, 2 music. */
static inline int tilawa_ope_set_signal(OggOpusEnc *enc, int signal) {
    opus_int32 value = signal == 1 ? OPUS_SIGNAL_VOICE : (signal == 2 ? OPUS_SIGNAL_MUSIC : OPUS_AUTO);
    return ope_encoder_ctl(enc, OPUS_SET_SIGNAL(value));
}
static inline int tilawa_ope_set_header_gain(OggOpusEnc *enc, int gain_q8) {
    return ope_encoder_ctl(enc, OPE_SET_HEADER_GAIN(gain_q8));
}
static inline int tilawa_ope_get_lookahead(OggOpusEnc *enc, opus_int32 *value) {
    return ope_encoder_ctl(enc, OPUS_GET_LOOKAHEAD(value));
}

#endif
