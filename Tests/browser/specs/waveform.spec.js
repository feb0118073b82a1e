// waveform-model.js: the waveform's arithmetic — peaks read from BBC audiowaveform JSON, the
// first zoom, the zoom view's window following the playhead, the slider's keys and value, and
// the draggable point under the pointer.
async ({ spec, load, equal, same }) => {
  const { firstZoom, followWindow, parsePeaks, pointNear, sliderTarget, sliderValue, ZOOM_SECONDS } = await load("waveform-model.js");

  spec("parsePeaks: 8- and 16-bit peaks as [-1, 1], the widest of several channels, the length from the data", () => {
    const eight = parsePeaks({ version: 2, channels: 1, sample_rate: 8000, samples_per_pixel: 80, bits: 8, length: 2, data: [-128, 127, -64, 64] });
    equal(eight.secondsPerPeak, 0.01);
    same(eight.min, new Float32Array([-1, -0.5]));
    same(eight.max, new Float32Array([127 / 128, 0.5]));
    const sixteen = parsePeaks({ sample_rate: 16000, samples_per_pixel: 160, bits: 16, length: 1, data: [-32768, 16384] });
    same([sixteen.min[0], sixteen.max[0]], [-1, 0.5]);
    const stereo = parsePeaks({ channels: 2, sample_rate: 8000, samples_per_pixel: 80, bits: 8, length: 1, data: [-10, 20, -30, 5] });
    same([stereo.min[0], stereo.max[0]], [-30 / 128, 20 / 128]);
    equal(parsePeaks({ sample_rate: 8000, samples_per_pixel: 80, bits: 8, data: [-1, 1, -2, 2] }).min.length, 2, "no length given");
  });

  spec("firstZoom: the widest span showing a third of the recording or less, at most 10 s", () => {
    same(ZOOM_SECONDS, [5, 10, 20, 40, 80]);
    equal(firstZoom(11), 0, "an 11-s recording: 5 s");
    equal(firstZoom(29), 0);
    equal(firstZoom(30), 1);
    equal(firstZoom(600), 1, "never wider than 10 s at first");
  });

  spec("followWindow: the zoom view turns the page when the playhead leaves it, never past the end", () => {
    equal(followWindow(0, 3, 10, 60), 0, "inside the window");
    equal(followWindow(0, 9.5, 10, 60), 8.5, "past 90 % of it");
    equal(followWindow(20, 5, 10, 60), 4, "before it");
    equal(followWindow(0, 59, 10, 60), 50, "held at the end");
    equal(followWindow(3, 4, 10, 8), 0, "a recording shorter than the window");
  });

  spec("sliderTarget: arrows 5 s, Page Up/Down 30 s, Home and End, within the recording; other keys are not the slider's", () => {
    equal(sliderTarget("ArrowRight", 10, 60), 15);
    equal(sliderTarget("ArrowUp", 10, 60), 15);
    equal(sliderTarget("ArrowDown", 10, 60), 5);
    equal(sliderTarget("ArrowLeft", 2, 60), 0);
    equal(sliderTarget("PageUp", 50, 60), 60);
    equal(sliderTarget("PageDown", 50, 60), 20);
    equal(sliderTarget("Home", 30, 60), 0);
    equal(sliderTarget("End", 30, 60), 60);
    equal(sliderTarget("a", 30, 60), null);
    equal(sliderTarget("Enter", 30, 60), null);
  });

  spec("sliderValue: whole seconds, never past the end, and the time in words", () => {
    same(sliderValue(30.7, 120.4), { max: 120, now: 30, text: "0:30 of 2:00" });
    same(sliderValue(121, 120.4), { max: 120, now: 120, text: "2:01 of 2:00" });
  });

  spec("pointNear: the nearest draggable point within 8 px of the pointer, the point itself", () => {
    const points = [{ time: 5 }, { time: 5.5, id: "a" }, { time: 6, id: "b" }];
    const view = { left: 0, width: 100, start: 0, span: 10 };
    equal(pointNear(points, 57, view), points[1]);
    equal(pointNear(points, 59, view), points[2]);
    equal(pointNear(points, 50, view), points[1], "a point without an id is not draggable");
    equal(pointNear(points, 70, view), null, "too far");
    equal(pointNear(points, 157, { ...view, left: 100 }), points[1], "the view's offset");
    const zoomed = { left: 0, width: 100, start: 5, span: 1 };
    equal(pointNear(points, 52, zoomed), points[1], "a zoomed window: 5.5 s is at 50 px");
    equal(pointNear(points, 60, zoomed), null, "10 px away is too far");
  });
}
