// recorder.js: the type a take is recorded in (MP4 before WebM: Safari claims WebM/Opus and
// records it broken) and the Content-Type it is sent with.
async ({ spec, load, equal }) => {
  const { recordingType, uploadType } = await load("recorder.js");

  spec("recordingType: MP4 wins where both are offered, then WebM with Opus, then WebM; null when neither", () => {
    equal(recordingType(() => true), "audio/mp4");
    equal(recordingType((type) => type.startsWith("audio/webm")), "audio/webm;codecs=opus");
    equal(recordingType((type) => type === "audio/webm"), "audio/webm");
    equal(recordingType(() => false), null);
  });

  spec("uploadType: the recorder's type without its parameters, a video container sent as audio, anything else as bytes", () => {
    equal(uploadType("audio/webm;codecs=opus"), "audio/webm");
    equal(uploadType("Audio/MP4; codecs=mp4a.40.2"), "audio/mp4");
    equal(uploadType("video/webm;codecs=opus"), "audio/webm");
    equal(uploadType("video/mp4"), "audio/mp4");
    equal(uploadType("application/ogg"), "application/octet-stream");
    equal(uploadType(""), "application/octet-stream");
    equal(uploadType(undefined), "application/octet-stream");
  });
}
