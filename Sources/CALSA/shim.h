#ifndef TILAWA_CALSA_SHIM_H
#define TILAWA_CALSA_SHIM_H

#include <alsa/asoundlib.h>

/* alsa-lib reports its own diagnostics ("ALSA lib pcm.c:…: Unknown PCM x") on stderr
 * through a variadic handler, which Swift can neither write nor pass. Tilawa reports every
 * failure itself (with snd_strerror), so it installs this one, which says nothing. */
static void tilawa_alsa_quiet_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Silences alsa-lib's messages on stderr for the whole process. */
static inline void tilawa_alsa_silence_errors(void) {
    snd_lib_error_set_handler(tilawa_alsa_quiet_error_handler);
}

#endif
