#!/usr/bin/env bash
# Regenerates every audio test fixture in this directory, plus manifest.json.
#
#   ./generate.sh            (from any cwd; writes only into its own directory)
#
# Needs: espeak-ng (Arabic voice "ar"), sox, ffmpeg/ffprobe, opusenc, python3 (stdlib only).
# Deterministic: espeak-ng is deterministic, every sox call runs with -R (fixed
# noise / dither seeds), ffmpeg muxers/encoders run with bitexact flags, opusenc
# gets a fixed --serial, and "random" bytes come from a SHA-256 counter stream.
# (Byte-identical output is only guaranteed with the same tool versions; the
# manifest records sha256 of every file.)
#
# The script measures every fixture afterwards (ffprobe, decoded sample count,
# ffmpeg ebur128 loudness on the mono/48 kHz downmix, an energy-based speech
# estimate, clipped-sample fraction) and FAILS if the measurements contradict the
# expected verdict/reasons/warnings declared below in the FIXTURES table.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

for tool in espeak-ng sox soxi ffmpeg ffprobe opusenc python3; do
  command -v "$tool" >/dev/null || { echo "generate.sh: missing tool: $tool" >&2; exit 1; }
done

SOX=(sox -R -V1)                                  # -R: repeatable (fixed seeds); -V1: errors only
FF=(ffmpeg -nostdin -hide_banner -loglevel error -y)
BITEXACT=(-fflags +bitexact -flags:a +bitexact -map_metadata -1)
PY="$TMP/fixturetool.py"

# --------------------------------------------------------------------------
# Python helper (stdlib only): hand-written WAVs, random bytes, PNG, manifest.
# --------------------------------------------------------------------------
cat >"$PY" <<'PYEOF'
import array, hashlib, json, math, os, re, struct, subprocess, sys, wave, zlib

def read_pcm_wav(path):
    with wave.open(path, "rb") as w:
        return (w.getnchannels(), w.getsampwidth(), w.getframerate(),
                w.readframes(w.getnframes()))

def fmt_body(tag, ch, sr, bits):
    ba = ch * bits // 8
    return struct.pack("<HHIIHH", tag, ch, sr, sr * ba, ba, bits)

def chunk(cid, body, pad=True):
    out = cid + struct.pack("<I", len(body)) + body
    if pad and len(body) % 2:
        out += b"\0"
    return out

def cmd_list_chunk(src, dst):
    # RIFF/WAVE with an odd-sized LIST/INFO chunk (+ RIFF pad byte) BEFORE "fmt ".
    ch, sw, sr, data = read_pcm_wav(src)
    inam = b"Tilawa fixture\0"                 # 15 bytes -> LIST body = 4+8+15 = 27 (odd)
    list_body = b"INFO" + b"INAM" + struct.pack("<I", len(inam)) + inam
    assert len(list_body) % 2 == 1
    body = (b"WAVE" + chunk(b"LIST", list_body)          # chunk() appends the pad byte
            + chunk(b"fmt ", fmt_body(1, ch, sr, sw * 8)) + chunk(b"data", data))
    open(dst, "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)

def cmd_header_4gb(src, dst, seconds):
    ch, sw, sr, data = read_pcm_wav(src)
    data = data[: int(float(seconds) * sr) * ch * sw]
    data_size = 0xFFFFFFC0                     # ~4 GiB claimed, only `seconds` present
    riff_size = data_size + 36
    hdr = (b"RIFF" + struct.pack("<I", riff_size) + b"WAVE"
           + chunk(b"fmt ", fmt_body(1, ch, sr, sw * 8))
           + b"data" + struct.pack("<I", data_size))
    open(dst, "wb").write(hdr + data)

def cmd_zero_channels(src, dst):
    ch, sw, sr, data = read_pcm_wav(src)
    fmt = struct.pack("<HHIIHH", 1, 0, sr, 0, 0, sw * 8)   # nChannels = 0 (so byte rate / block align = 0)
    body = b"WAVE" + chunk(b"fmt ", fmt) + chunk(b"data", data)
    open(dst, "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)

def cmd_truncate(src, dst, fraction):
    b = open(src, "rb").read()
    n = int(len(b) * float(fraction))
    n -= n % 2
    open(dst, "wb").write(b[:n])

def cmd_random(dst, nbytes, seed):
    out, i = bytearray(), 0
    while len(out) < int(nbytes):
        out += hashlib.sha256(f"{seed}:{i}".encode()).digest()
        i += 1
    open(dst, "wb").write(bytes(out[: int(nbytes)]))

def cmd_png(dst):
    w, h = 64, 48
    raw = b"".join(b"\0" + bytes(v for x in range(w) for v in (x * 4, y * 5, 128)) for y in range(h))
    def pchunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    png = (b"\x89PNG\r\n\x1a\n" + pchunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + pchunk(b"IDAT", zlib.compress(raw, 9)) + pchunk(b"IEND", b""))
    open(dst, "wb").write(png)

def cmd_caf_fix_pakt(path, valid_frames):
    b = bytearray(open(path, "rb").read())
    assert b[:4] == b"caff"
    i, done = 8, False
    while i + 12 <= len(b):
        cid, size = bytes(b[i:i + 4]), struct.unpack(">q", b[i + 4:i + 12])[0]
        if cid == b"pakt":
            npk, nvalid, prime, rem = struct.unpack(">qqii", b[i + 12:i + 36])
            vf = int(valid_frames)
            assert prime == 0 and rem == 0 and 0 <= nvalid - vf < 4096, (nvalid, vf)
            struct.pack_into(">qqii", b, i + 12, npk, vf, 0, nvalid - vf)
            done = True
        if size < 0:
            break
        i += 12 + size
    assert done, "no pakt chunk"
    open(path, "wb").write(bytes(b))

def cmd_clip_fraction(path):
    # fraction of (all-channel) decoded samples with |x| >= 0.999
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-"],
                         check=True, capture_output=True).stdout
    a = array.array("f"); a.frombytes(raw)
    print("%.6f" % (sum(1 for x in a if abs(x) >= 0.999) / len(a)))

# ---------------------------------------------------------------- manifest --
DOWNMIX = "mono = mean of all channels, resampled to 48 kHz"
MIN_DUR, MAX_DUR, MIN_SPEECH, MIN_RATIO, MIN_LUFS = 10.0, 900.0, 5.0, 0.2, -50.0
CLIP_LEVEL, CLIP_FRACTION, LONG_SILENCE = 0.999, 0.001, 5.0
FRAME = 960                 # 20 ms at 48 kHz
VOICED_DBFS = -45.0         # frame RMS above this counts as "speech" (estimate only)
REASON_ORDER = ["empty", "unreadable", "unsupported_format", "too_short", "too_long", "silent", "too_quiet"]

A, R = "accepted", "rejected"
# file, description, container, lossy, expected verdict, reasons, warnings[, header facts for bad files]
FIXTURES = [
 ("speech_mono_s16_48k.wav", "espeak-ng Arabic Al-Fatiha 1-3, 16-bit PCM 48 kHz mono (reference)", "wav", False, A, [], []),
 ("speech_stereo_s16_44k1.wav", "same speech, 16-bit 44.1 kHz stereo (R = 0.85 x L, independent noise per channel)", "wav", False, A, [], []),
 ("speech_s24_16k.wav", "same speech, 24-bit PCM 16 kHz mono (plain WAVE_FORMAT_PCM)", "wav", False, A, [], []),
 ("speech_f32_16k.wav", "same speech, 32-bit float 16 kHz mono (WAVE_FORMAT_IEEE_FLOAT + fact chunk)", "wav", False, A, [], []),
 ("speech_f64_8k.wav", "same speech, 64-bit float 8 kHz mono (WAVE_FORMAT_IEEE_FLOAT + fact chunk)", "wav", False, A, [], []),
 ("speech_u8_8k.wav", "same speech, 8-bit unsigned PCM 8 kHz mono", "wav", False, A, [], []),
 ("speech_s32_8k.wav", "same speech, 32-bit integer PCM 8 kHz mono", "wav", False, A, [], []),
 ("speech_extensible_4ch_s16_8k.wav", "same speech, WAVE_FORMAT_EXTENSIBLE (0xFFFE), 16-bit, 4 channels at 8 kHz (gains 1/0.9/0.8/0.7)", "wav", False, A, [], []),
 ("speech_list_chunk_odd.wav", "same speech, 16-bit 16 kHz mono; odd-sized (27 B) LIST/INFO chunk + pad byte BEFORE fmt", "wav", False, A, [], []),
 ("speech.flac", "same speech, FLAC 16-bit 16 kHz mono", "flac", False, A, [], []),
 ("speech.mp3", "same speech, MP3 (LAME) 64 kb/s CBR 48 kHz mono", "mp3", True, A, [], []),
 ("speech.ogg", "same speech, Ogg Vorbis q2 48 kHz mono", "ogg", True, A, [], []),
 ("speech.opus", "same speech, Ogg Opus (opusenc) 32 kb/s mono", "ogg", True, A, [], []),
 ("speech.m4a", "same speech, AAC-LC 64 kb/s in MP4/M4A, 48 kHz mono", "mp4", True, A, [], []),
 ("speech.webm", "same speech, Opus 32 kb/s in WebM (Matroska), mono", "webm", True, A, [], []),
 ("speech.caf", "same speech, Apple Lossless (ALAC) in CAF, 16-bit 16 kHz mono", "caf", False, A, [], []),
 ("speech_leading_silence_20s.wav", "20 s of -70 dBFS noise, then the speech; 16-bit 16 kHz mono", "wav", False, A, [], ["long_leading_silence"]),
 ("recitation_fatiha_16k.wav", "espeak-ng Arabic isti'adha then Al-Fatiha 1:1-7 ayah by ayah (1:7 in two halves), pauses 0.5-0.9 s, white noise 20 dB under the speech; 16-bit 16 kHz mono; ayah_starts = where each clip starts", "wav", False, A, [], []),
 ("speech_clipped.wav", "the speech +12 dB, hard-clipped at full scale (~2-3 % of samples); 16-bit 16 kHz mono", "wav", False, A, [], ["clipping"]),
 ("digital_silence.wav", "12 s of exact zeros, 16-bit 8 kHz mono", "wav", False, R, ["silent", "too_quiet"], []),
 ("low_noise.wav", "12 s of steady white noise at -60 dBFS RMS, 16-bit 8 kHz mono", "wav", False, R, ["silent", "too_quiet"], []),
 ("too_short.wav", "first 3 s of the speech, 16-bit 16 kHz mono", "wav", False, R, ["too_short", "silent"], []),
 ("truncated.wav", "16-bit 8 kHz mono speech WAV cut to 60 % of its bytes; header still claims the full length",
  "wav", False, R, ["unreadable"], [], dict(codec="pcm_s16le", sample_rate=8000, channels=1)),
 ("header_4gb.wav", "RIFF/data sizes claim ~4 GiB (0xFFFFFFE4/0xFFFFFFC0) but only 1 s of 16-bit 8 kHz mono samples follow",
  "wav", False, R, ["unreadable"], [], dict(codec="pcm_s16le", sample_rate=8000, channels=1)),
 ("zero_channels.wav", "well-formed RIFF/fmt/data, but fmt says 0 channels (byte rate and block align 0); 11 s of 8 kHz s16 data",
  "wav", False, R, ["unreadable"], [], dict(codec="pcm_s16le", sample_rate=8000, channels=0)),
 ("random_bytes.wav", "64 KiB of deterministic pseudo-random bytes (SHA-256 counter stream), no header", None, None, R, ["unsupported_format"], [], {}),
 ("image.m4a", "a valid 64x48 RGB PNG image renamed .m4a", None, None, R, ["unsupported_format"], [], {}),
 ("empty.wav", "0-byte file", None, None, R, ["empty"], [], {}),
 ("text.mp3", "a few lines of plain UTF-8 text renamed .mp3", None, None, R, ["unsupported_format"], [], {}),
]

def run(args):
    return subprocess.run(args, check=False, capture_output=True)

def ffprobe(path):
    p = run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path])
    try:
        j = json.loads(p.stdout or b"{}")
    except ValueError:
        j = {}
    return p.returncode, j, p.stderr.decode(errors="replace").strip()

def wav_format_tag(path):
    b = open(path, "rb").read(4096)
    i = 12
    while i + 8 <= len(b):
        cid, size = b[i:i + 4], struct.unpack("<I", b[i + 4:i + 8])[0]
        if cid == b"fmt ":
            return "0x%04X" % struct.unpack("<H", b[i + 8:i + 10])[0]
        i += 8 + size + (size & 1)
    return None

def mono48_filter(channels):
    if channels == 1:
        return "aresample=48000"
    g = 1.0 / channels
    expr = "+".join("%.17g*c%d" % (g, k) for k in range(channels))
    return "pan=mono|c0=%s,aresample=48000" % expr

def loudness(path, channels):
    af = mono48_filter(channels) + ",ebur128=metadata=1,ametadata=mode=print:key=lavfi.r128.I:file=/dev/stdout"
    p = run(["ffmpeg", "-nostdin", "-nostats", "-hide_banner", "-i", path, "-af", af, "-f", "null", "-"])
    if p.returncode != 0:
        raise SystemExit("ebur128 failed for %s: %s" % (path, p.stderr.decode()[-500:]))
    vals = re.findall(r"lavfi\.r128\.I=(-?[0-9.]+|-?inf|nan)", p.stdout.decode())
    summ = re.findall(r"^\s+I:\s+(-?[0-9.]+) LUFS", p.stderr.decode(), re.M)
    if not vals or not summ:
        raise SystemExit("no ebur128 result for " + path)
    precise, summary = float(vals[-1]), float(summ[-1])
    if abs(precise - summary) > 0.051:
        raise SystemExit("ebur128 mismatch for %s: %s vs summary %s" % (path, precise, summary))
    return precise

def decode(path, extra_af=None):
    args = ["ffmpeg", "-nostdin", "-v", "error", "-i", path]
    if extra_af:
        args += ["-af", extra_af]
    args += ["-f", "f32le", "-"]
    p = run(args)
    if p.returncode != 0:
        raise SystemExit("decode failed for %s: %s" % (path, p.stderr.decode()[-500:]))
    a = array.array("f"); a.frombytes(p.stdout)
    return a

def analyse_audio(path, st):
    ch, sr = int(st["channels"]), int(st["sample_rate"])
    native = decode(path)
    if len(native) % ch:
        raise SystemExit("odd decoded sample count in " + path)
    frames = len(native) // ch
    duration = frames / sr
    clip_native = sum(1 for x in native if abs(x) >= CLIP_LEVEL) / max(1, len(native))
    digital_silence = all(x == 0.0 for x in native)
    mono = decode(path, mono48_filter(ch))
    clip_mono = sum(1 for x in mono if abs(x) >= CLIP_LEVEL) / max(1, len(mono))
    voiced, first, last = 0, None, None
    for i in range(0, len(mono) - FRAME + 1, FRAME):
        seg = mono[i:i + FRAME]
        rms = math.sqrt(sum(x * x for x in seg) / FRAME)
        if rms > 0 and 20 * math.log10(rms) > VOICED_DBFS:
            voiced += 1
            last = (i + FRAME) / 48000.0
            if first is None:
                first = i / 48000.0
    speech = voiced * FRAME / 48000.0
    lufs = None if digital_silence else loudness(path, ch)
    return dict(frames=frames, duration=duration, clip_native=clip_native, clip_mono=clip_mono,
                speech=speech, lead=first, trail=(len(mono) / 48000.0 - last) if last is not None else None,
                lufs=lufs, digital_silence=digital_silence)

def judge(m):
    reasons, warnings = [], []
    if m["duration"] < MIN_DUR: reasons.append("too_short")
    if m["duration"] > MAX_DUR: reasons.append("too_long")
    if m["speech"] < MIN_SPEECH or m["speech"] / m["duration"] < MIN_RATIO: reasons.append("silent")
    if m["lufs"] is None or m["lufs"] < MIN_LUFS: reasons.append("too_quiet")
    if max(m["clip_native"], m["clip_mono"]) >= CLIP_FRACTION: warnings.append("clipping")
    if m["lead"] is not None and m["lead"] > LONG_SILENCE: warnings.append("long_leading_silence")
    if m["trail"] is not None and m["trail"] > LONG_SILENCE: warnings.append("long_trailing_silence")
    return ("rejected" if reasons else "accepted"), reasons, warnings

def cmd_manifest(dirpath):
    out, problems, names = [], [], set()
    for fx in FIXTURES:
        name, desc, container, lossy, verdict, reasons, warnings = fx[:7]
        bad = fx[7] if len(fx) > 7 else None
        names.add(name)
        path = os.path.join(dirpath, name)
        data = open(path, "rb").read()
        assert reasons == sorted(reasons, key=REASON_ORDER.index), name
        rc, probe, err = ffprobe(path)
        astreams = [s for s in probe.get("streams", []) if s.get("codec_type") == "audio"]
        e = dict(file=name, description=desc, container=container)
        if bad is None:
            if rc != 0 or len(astreams) != 1:
                raise SystemExit("ffprobe cannot read good fixture %s: %s" % (name, err))
            st = astreams[0]
            m = analyse_audio(path, st)
            v, r, w = judge(m)
            if (v, r, w) != (verdict, reasons, warnings):
                problems.append("%s: expected %s %s %s, measured %s %s %s (%s)" % (name, verdict, reasons, warnings, v, r, w,
                                {k: m[k] for k in ("duration", "speech", "lufs", "clip_native", "lead", "trail")}))
            if container in ("wav", "flac") and "duration_ts" in st and st.get("time_base") == "1/%s" % st["sample_rate"] \
                    and int(st["duration_ts"]) != m["frames"]:
                problems.append("%s: duration_ts %s != decoded frames %d" % (name, st["duration_ts"], m["frames"]))
            e.update(codec=st["codec_name"], sample_rate=int(st["sample_rate"]), channels=int(st["channels"]),
                     lossy=lossy, duration_seconds=round(m["duration"], 6),
                     loudness_lufs=None if m["lufs"] is None else round(m["lufs"], 2),
                     verdict=verdict, reasons=reasons, warnings=warnings,
                     speech_seconds_approx=round(m["speech"], 2),
                     sample_count=m["frames"])
            if st.get("profile"): e["codec_profile"] = st["profile"]
            if container == "wav": e["wav_format_tag"] = wav_format_tag(path)
            e["leading_silence_seconds_approx"] = None if m["lead"] is None else round(m["lead"], 2)
            e["trailing_silence_seconds_approx"] = None if m["trail"] is None else round(m["trail"], 2)
            e["clipped_sample_fraction"] = round(max(m["clip_native"], m["clip_mono"]), 5)
        else:
            e.update(codec=bad.get("codec"), sample_rate=bad.get("sample_rate"), channels=bad.get("channels"),
                     lossy=lossy, duration_seconds=None, loudness_lufs=None,
                     verdict=verdict, reasons=reasons, warnings=warnings, speech_seconds_approx=None)
            e["ffprobe_reads_it"] = (rc == 0 and len(astreams) > 0)
            if e["ffprobe_reads_it"]:
                st = astreams[0]
                e["ffprobe_says"] = "%s %s Hz %s ch, duration %s" % (st.get("codec_name"), st.get("sample_rate"),
                                                                     st.get("channels"), st.get("duration"))
            else:
                fmt = probe.get("format", {}).get("format_name")
                kinds = ",".join("%s:%s" % (s.get("codec_type"), s.get("codec_name")) for s in probe.get("streams", []))
                msg = re.sub(r" @ 0x[0-9a-f]+\]", "]", (err.splitlines() or [""])[-1].replace(path, name))[:200]
                e["ffprobe_says"] = (msg
                                     or "format %s, streams [%s], no audio stream" % (fmt, kinds))
        e["bytes"] = len(data)
        e["sha256"] = hashlib.sha256(data).hexdigest()
        # Facts the generator knows and no measurement can (the recitation's ayah starts).
        extra = os.path.join(os.environ.get("FIXTURE_EXTRAS", ""), name + ".json")
        if os.path.exists(extra):
            e.update(json.load(open(extra)))
        out.append(e)
    extra = sorted(set(os.listdir(dirpath)) - names - {"generate.sh", "manifest.json", ".gitattributes", "README.md"})
    if extra:
        problems.append("unlisted files in fixture dir: %s" % extra)
    if problems:
        raise SystemExit("manifest check FAILED:\n  " + "\n  ".join(problems))
    doc = {"generated_by": "generate.sh", "downmix": DOWNMIX,
           "analysis": {"loudness": "ffmpeg ebur128 integrated loudness of the downmix (null for digital silence / bad files)",
                        "duration_seconds": "decoded sample frames / sample_rate (lossy: after decoder delay/padding trimming)",
                        "speech_seconds_approx": "20 ms frames of the downmix with RMS > -45 dBFS (informational)",
                        "clipped_sample_fraction": "fraction of samples with |x| >= 0.999 full scale"},
           "fixtures": out}
    with open(os.path.join(dirpath, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")

if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    globals()["cmd_" + cmd](*args)
PYEOF
py() { python3 "$PY" "$@"; }

# --------------------------------------------------------------------------
# Clean previous outputs (only this directory; keep the script & notes).
# --------------------------------------------------------------------------
find "$HERE" -maxdepth 1 -type f ! -name generate.sh ! -name README.md ! -name .gitattributes -delete

# --------------------------------------------------------------------------
# Speech source: espeak-ng Arabic, Al-Fatiha 1:1-3, slow (-s 120) with word gaps.
# --------------------------------------------------------------------------
TEXT='بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ. الْحَمْدُ لِلَّهِ رَبِّ الْعَالَمِينَ. الرَّحْمَٰنِ الرَّحِيمِ.'
espeak-ng -v ar -s 120 -g 6 -w "$TMP/espeak.wav" "$TEXT"

# clean speech, float 48 kHz mono, 0.3 s lead-in, peak-normalised to -3 dBFS
"${SOX[@]}" "$TMP/espeak.wav" -b 32 -e floating-point "$TMP/clean48.wav" rate -v 48000 pad 0.3 0 gain -n -3
N48=$(soxi -s "$TMP/clean48.wav")

# noise RMS(dBFS) -> sox whitenoise amplitude (uniform noise: RMS = amplitude / sqrt 3)
amp() { python3 -c "import math,sys; print('%.6f' % (10 ** (float(sys.argv[1]) / 20) * math.sqrt(3)))" "$1"; }
# noise <out> <rate> <channels> <samples> <rms dBFS>: float WAV, channels mutually independent
noise() {
  local out=$1 rate=$2 ch=$3 n=$4 db=$5 a k parts=()
  a=$(amp "$db")
  "${SOX[@]}" -r "$rate" -c 1 -n -b 32 -e floating-point "$TMP/noise_long.wav" synth "$((n * ch))s" whitenoise vol "$a"
  for ((k = 0; k < ch; k++)); do
    "${SOX[@]}" "$TMP/noise_long.wav" "$TMP/noise_part$k.wav" trim "$((k * n))s" "${n}s"
    parts+=("$TMP/noise_part$k.wav")
  done
  if ((ch == 1)); then mv "${parts[0]}" "$out"; else "${SOX[@]}" -M "${parts[@]}" "$out"; fi
}
mix() { "${SOX[@]}" -m -v 1 "$1" -v 1 "$2" -b 32 -e floating-point "$3"; }   # unscaled sum

noise "$TMP/n48.wav" 48000 1 "$N48" -65
mix "$TMP/clean48.wav" "$TMP/n48.wav" "$TMP/master48.wav"                  # THE speech master
"${SOX[@]}" "$TMP/master48.wav" -b 32 -e floating-point "$TMP/master16.wav" rate -v 16000
"${SOX[@]}" "$TMP/master48.wav" -b 32 -e floating-point "$TMP/master8.wav" rate -v 8000

S16=(-b 16 -e signed-integer)
W=(-t wavpcm)   # plain WAVE_FORMAT_PCM / IEEE_FLOAT header (sox "-t wav" uses EXTENSIBLE for >16 bit)

# --------------------------------------------------------------------------
# Accepted fixtures
# --------------------------------------------------------------------------
"${SOX[@]}" "$TMP/master48.wav" "${S16[@]}" "${W[@]}" "$HERE/speech_mono_s16_48k.wav"

"${SOX[@]}" "$TMP/clean48.wav" "$TMP/clean48_st.wav" remix 1v1 1v0.85
noise "$TMP/n48st.wav" 48000 2 "$N48" -65
mix "$TMP/clean48_st.wav" "$TMP/n48st.wav" "$TMP/master48_st.wav"
"${SOX[@]}" "$TMP/master48_st.wav" "${S16[@]}" "${W[@]}" "$HERE/speech_stereo_s16_44k1.wav" rate -v 44100

# (only the two 16-bit references above stay at 44.1/48 kHz; the other formats use 16/8 kHz to keep the repo small)
"${SOX[@]}" "$TMP/master16.wav" -b 24 -e signed-integer "${W[@]}" "$HERE/speech_s24_16k.wav"
"${SOX[@]}" "$TMP/master16.wav" -b 32 -e floating-point "${W[@]}" "$HERE/speech_f32_16k.wav"
"${SOX[@]}" "$TMP/master8.wav" -b 64 -e floating-point "${W[@]}" "$HERE/speech_f64_8k.wav"
"${SOX[@]}" "$TMP/master8.wav" -b 8 -e unsigned-integer "${W[@]}" "$HERE/speech_u8_8k.wav"
"${SOX[@]}" "$TMP/master8.wav" -b 32 -e signed-integer "${W[@]}" "$HERE/speech_s32_8k.wav"

# 4 channels, 8 kHz, 16 bit; sox writes WAVE_FORMAT_EXTENSIBLE for > 2 channels with "-t wav"
"${SOX[@]}" "$TMP/clean48.wav" "$TMP/clean48_4ch.wav" remix 1v1 1v0.9 1v0.8 1v0.7
noise "$TMP/n48q.wav" 48000 4 "$N48" -65
mix "$TMP/clean48_4ch.wav" "$TMP/n48q.wav" "$TMP/master48_4ch.wav"
"${SOX[@]}" "$TMP/master48_4ch.wav" "${S16[@]}" -t wav "$HERE/speech_extensible_4ch_s16_8k.wav" rate -v 8000
tag=$(xxd -s 20 -l 2 -p "$HERE/speech_extensible_4ch_s16_8k.wav")
[[ $tag == feff ]] || { echo "extensible fixture has format tag $tag, expected fffe" >&2; exit 1; }

"${SOX[@]}" "$TMP/master16.wav" "${S16[@]}" "${W[@]}" "$TMP/speech16.wav"
"${SOX[@]}" "$TMP/master8.wav" "${S16[@]}" "${W[@]}" "$TMP/speech8.wav"
py list_chunk "$TMP/speech16.wav" "$HERE/speech_list_chunk_odd.wav"

REF="$HERE/speech_mono_s16_48k.wav"
"${FF[@]}" -i "$TMP/speech16.wav" -c:a flac -compression_level 8 "${BITEXACT[@]}" "$HERE/speech.flac"   # 16 kHz
"${FF[@]}" -i "$REF" -c:a libmp3lame -b:a 64k "${BITEXACT[@]}" "$HERE/speech.mp3"
"${FF[@]}" -i "$REF" -c:a libvorbis -q:a 2 "${BITEXACT[@]}" "$HERE/speech.ogg"
opusenc --quiet --serial 20240101 --bitrate 32 "$REF" "$HERE/speech.opus"
"${FF[@]}" -i "$REF" -c:a aac -b:a 64k "${BITEXACT[@]}" "$HERE/speech.m4a"
"${FF[@]}" -i "$REF" -c:a libopus -b:a 32k "${BITEXACT[@]}" -f webm "$HERE/speech.webm"
"${FF[@]}" -i "$TMP/speech16.wav" -c:a alac "${BITEXACT[@]}" -f caf "$HERE/speech.caf"   # 16 kHz
# ffmpeg's CAF muxer writes a 'pakt' chunk claiming whole 4096-frame packets (remainder 0);
# patch it to the real frame count, as Apple's tools would write it.
py caf_fix_pakt "$HERE/speech.caf" "$(soxi -s "$TMP/speech16.wav")"

# 20 s of -70 dBFS noise, then the speech master; 16 kHz to keep the file small
noise "$TMP/n70.wav" 48000 1 $((20 * 48000)) -70
"${SOX[@]}" "$TMP/n70.wav" "$TMP/master48.wav" "${S16[@]}" "${W[@]}" "$HERE/speech_leading_silence_20s.wav" rate -v 16000

# +12 dB then hard clip (sox clips on conversion to 16 bit). Resample to 16 kHz BEFORE the gain so the
# clipping happens at the file's own rate (resampling an already-clipped signal ripples the flat tops
# below full scale and roughly halves the clipped-sample fraction).
"${SOX[@]}" "$TMP/clean48.wav" -b 32 -e floating-point "$TMP/loud16.wav" rate -v 16000 gain 12
"${SOX[@]}" "$TMP/n48.wav" -b 32 -e floating-point "$TMP/n16.wav" rate -v 16000
mix "$TMP/loud16.wav" "$TMP/n16.wav" "$TMP/loudmix16.wav"
"${SOX[@]}" "$TMP/loudmix16.wav" "${S16[@]}" "${W[@]}" "$HERE/speech_clipped.wav"
frac=$(py clip_fraction "$HERE/speech_clipped.wav")
python3 -c "import sys; f=float(sys.argv[1]); sys.exit(0 if 0.01 <= f <= 0.05 else 1)" "$frac" \
  || { echo "speech_clipped.wav clipped fraction $frac outside 1-5 %" >&2; exit 1; }

# A recitation for the ayah aligner: the isti'adha, then Al-Fatiha ayah by ayah from Tanzil's
# Simple-Clean text (espeak-ng does not read the Uthmani marks), 1:7 split at a word boundary
# with a pause inside it longer than most between ayahs; each clip trimmed of espeak-ng's own
# silence so its offset is where its speech starts; white noise 20 dB under the speech's RMS.
REC_TEXTS=("أعوذ بالله من الشيطان الرجيم" "بسم الله الرحمن الرحيم" "الحمد لله رب العالمين" "الرحمن الرحيم"
           "مالك يوم الدين" "إياك نعبد وإياك نستعين" "اهدنا الصراط المستقيم" "صراط الذين أنعمت عليهم"
           "غير المغضوب عليهم ولا الضالين")
REC_AYAHS=(0 1 2 3 4 5 6 7 -)
REC_PAUSES=(0.8 0.6 0.9 0.5 0.7 0.6 0.8 1.1)
"${SOX[@]}" -r 16000 -n -c 1 -b 32 -e floating-point "$TMP/rec_lead.wav" trim 0 8000s   # -r before -n: the null input's rate
rec_parts=("$TMP/rec_lead.wav"); rec_clips=(); rec_starts=(); rec_at=$(soxi -s "$TMP/rec_lead.wav")
for i in "${!REC_TEXTS[@]}"; do
  espeak-ng -v ar -s 140 -w "$TMP/rec_raw$i.wav" "${REC_TEXTS[$i]}"
  "${SOX[@]}" "$TMP/rec_raw$i.wav" -r 16000 -c 1 -b 32 -e floating-point "$TMP/rec_clip$i.wav" \
    silence 1 0.01 -45d reverse silence 1 0.01 -45d reverse
  [[ ${REC_AYAHS[$i]} == - ]] || rec_starts+=("{\"surah\": 1, \"ayah\": ${REC_AYAHS[$i]}, \"start_seconds\": $(python3 -c "print(round($rec_at / 16000, 4))")}")
  rec_parts+=("$TMP/rec_clip$i.wav"); rec_clips+=("$TMP/rec_clip$i.wav")
  rec_at=$((rec_at + $(soxi -s "$TMP/rec_clip$i.wav")))
  if ((i < ${#REC_PAUSES[@]})); then
    "${SOX[@]}" -r 16000 -n -c 1 -b 32 -e floating-point "$TMP/rec_pause$i.wav" trim 0 "${REC_PAUSES[$i]}"
    rec_parts+=("$TMP/rec_pause$i.wav"); rec_at=$((rec_at + $(soxi -s "$TMP/rec_pause$i.wav")))
  fi
done
"${SOX[@]}" -r 16000 -n -c 1 -b 32 -e floating-point "$TMP/rec_tail.wav" trim 0 12800s
rec_parts+=("$TMP/rec_tail.wav")
"${SOX[@]}" "${rec_clips[@]}" "$TMP/rec_speech.wav"
rec_rms=$("${SOX[@]}" "$TMP/rec_speech.wav" -n stat 2>&1 | awk '/RMS +amplitude/ {print $3}')
"${SOX[@]}" "${rec_parts[@]}" "$TMP/rec_clean.wav"
noise "$TMP/rec_noise.wav" 16000 1 "$(soxi -s "$TMP/rec_clean.wav")" "$(python3 -c "import math; print(20 * math.log10($rec_rms) - 20)")"
mix "$TMP/rec_clean.wav" "$TMP/rec_noise.wav" "$TMP/rec_mix.wav"
"${SOX[@]}" "$TMP/rec_mix.wav" "${S16[@]}" "${W[@]}" "$HERE/recitation_fatiha_16k.wav"
mkdir -p "$TMP/extras"
(IFS=,; echo "{\"ayahs\": \"1:1-7\", \"ayah_starts\": [${rec_starts[*]}]}") > "$TMP/extras/recitation_fatiha_16k.wav.json"
export FIXTURE_EXTRAS="$TMP/extras"

# --------------------------------------------------------------------------
# Rejected fixtures
# --------------------------------------------------------------------------
"${SOX[@]}" -D -r 8000 -c 1 -n "${S16[@]}" "${W[@]}" "$HERE/digital_silence.wav" trim 0 $((12 * 8000))s

noise "$TMP/n60.wav" 8000 1 $((12 * 8000)) -60
"${SOX[@]}" "$TMP/n60.wav" "${S16[@]}" "${W[@]}" "$HERE/low_noise.wav"

"${SOX[@]}" "$TMP/master16.wav" "${S16[@]}" "${W[@]}" "$HERE/too_short.wav" trim 0 $((3 * 16000))s fade t 0 0 0.05

py truncate "$TMP/speech8.wav" "$HERE/truncated.wav" 0.6
py header_4gb "$TMP/speech8.wav" "$HERE/header_4gb.wav" 1
py zero_channels "$TMP/speech8.wav" "$HERE/zero_channels.wav"
py random "$HERE/random_bytes.wav" 65536 tilawa-random-bytes-v1
py png "$HERE/image.m4a"
: >"$HERE/empty.wav"
cat >"$HERE/text.mp3" <<'EOF'
This is not an MP3 file.
It is plain UTF-8 text used as a fixture: the upload must be rejected
with reason "unsupported_format".
بسم الله الرحمن الرحيم
EOF

# --------------------------------------------------------------------------
# Measure everything, check expectations, write manifest.json
# --------------------------------------------------------------------------
py manifest "$HERE"
echo "generate.sh: wrote $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["fixtures"]))' "$HERE/manifest.json") fixtures + manifest.json to $HERE ($(du -sh "$HERE" | cut -f1))"
