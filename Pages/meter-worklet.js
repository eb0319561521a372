// The browser's sound level meter (docs/ARCHITECTURE.md, "Measure here"): an AudioWorklet that
// turns the microphone's samples into levels per second and nothing else. No sample leaves this
// file: the page gets, per second, the A-weighted level (LAeq, 1 s), the C-weighted level (LCeq),
// the peak and the third-octave band levels, in dBFS.
//
// A port of the server's meter (Sources/AudioMetering), so that the numbers agree with
// `hearclear meter` on the same samples:
// * Levels/FrequencyWeightings.swift, IECWeightingPoles.swift, Biquad.swift: IEC 61672-1 A and C
//   weighting as three bilinear biquads designed for this context's sample rate (the 12194 Hz
//   pair pre-warped to be exact at fs/6), each weighting 0 dB at 1 kHz.
// * Levels/SecondLevelMeter.swift: mean squares per second, channels pooled.
// * Spectrum/SpectralMeter.swift and the files beside it: third-octave bands 50 Hz … 10 kHz from
//   FFT power spectra, short sine-windowed frames (~40 ms, hop ½) from 500 Hz up, long Hann frames
//   (~0.5 s, hop ¼) of the audio decimated by a cubic moving sum for 50 … 400 Hz; a second's band
//   power is the mean over the frames centred in it.
"use strict";

var FLOOR = -160;
var NOMINAL = [50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150,
  4000, 5000, 6300, 8000, 10000];
var LONG_BANDS = 10; // bands 0 … 9 from the long frames, the rest from the short

function fromMeanSquare(x) {
  return x > 0 ? Math.max(FLOOR, 10 * Math.log10(x)) : FLOOR;
}

function fromAmplitude(x) {
  return x > 0 ? Math.max(FLOOR, 20 * Math.log10(x)) : FLOOR;
}

// Biquad.swift: transposed direct form II, a bilinear transform of an analogue section.
function Biquad(n, d, k) {
  var k2 = k * k;
  var a0 = d[0] * k2 + d[1] * k + d[2];
  this.b0 = (n[0] * k2 + n[1] * k + n[2]) / a0;
  this.b1 = (2 * (n[2] - n[0] * k2)) / a0;
  this.b2 = (n[0] * k2 - n[1] * k + n[2]) / a0;
  this.a1 = (2 * (d[2] - d[0] * k2)) / a0;
  this.a2 = (d[0] * k2 - d[1] * k + d[2]) / a0;
  this.s1 = 0;
  this.s2 = 0;
}

Biquad.prototype.magnitude = function (w) {
  var c1 = Math.cos(w), s1 = -Math.sin(w), c2 = Math.cos(2 * w), s2 = -Math.sin(2 * w);
  var num = Math.hypot(this.b0 + this.b1 * c1 + this.b2 * c2, this.b1 * s1 + this.b2 * s2);
  var den = Math.hypot(1 + this.a1 * c1 + this.a2 * c2, this.a1 * s1 + this.a2 * s2);
  return num / den;
};

// FrequencyWeightings.swift and IECWeightingPoles.swift.
function Weightings(fs) {
  var rad = function (hz) { return 2 * Math.PI * hz; };
  var w1 = rad(20.598997), w2 = rad(107.65265), w3 = rad(737.86223), w4 = rad(12194.217);
  var match = Math.min(fs / 6, 16000);
  this.low = new Biquad([1, 0, 0], [1, 2 * w1, w1 * w1], 2 * fs);
  this.high = new Biquad([0, 0, 1], [1, 2 * w4, w4 * w4], rad(match) / Math.tan((Math.PI * match) / fs));
  this.middle = new Biquad([1, 0, 0], [1, w2 + w3, w2 * w3], 2 * fs);
  var w = (2 * Math.PI * 1000) / fs;
  var c = this.low.magnitude(w) * this.high.magnitude(w);
  this.cGain = 1 / c;
  this.aGain = 1 / (c * this.middle.magnitude(w));
}

// The FFT: mixed radix 2, 3, 4, 5 (the frame lengths have no other factor, FFTLength.swift),
// unscaled like KissFFT's forward transform.
function FFT(n) {
  this.n = n;
  this.factors = [];
  var rest = n;
  [4, 2, 3, 5].forEach(function (p) {
    while (rest % p === 0) {
      this.factors.push(p);
      rest /= p;
    }
  }, this);
  if (rest !== 1) throw new Error("FFT length " + n + " has a factor above 5");
  this.cos = new Float64Array(n);
  this.sin = new Float64Array(n);
  for (var i = 0; i < n; i++) {
    this.cos[i] = Math.cos((2 * Math.PI * i) / n);
    this.sin[i] = -Math.sin((2 * Math.PI * i) / n);
  }
  this.re = new Float64Array(n);
  this.im = new Float64Array(n);
  this.tr = new Float64Array(5);
  this.ti = new Float64Array(5);
}

FFT.prototype.run = function (input, inOff, stride, outOff, n, level) {
  var re = this.re, im = this.im;
  if (n === 1) {
    re[outOff] = input[inOff];
    im[outOff] = 0;
    return;
  }
  var p = this.factors[level];
  var m = n / p;
  for (var q = 0; q < p; q++) this.run(input, inOff + q * stride, stride * p, outOff + q * m, m, level + 1);
  var N = this.n, s = N / n, tr = this.tr, ti = this.ti;
  for (var k = 0; k < m; k++) {
    // Y_q[k] · W_n^{qk}, then a p-point DFT across q.
    for (q = 0; q < p; q++) {
      var idx = outOff + q * m + k;
      var t = (q * k * s) % N;
      tr[q] = re[idx] * this.cos[t] - im[idx] * this.sin[t];
      ti[q] = re[idx] * this.sin[t] + im[idx] * this.cos[t];
    }
    for (var r = 0; r < p; r++) {
      var sr = 0, si = 0;
      for (q = 0; q < p; q++) {
        var u = (((q * r) % p) * m * s) % N; // W_p^{qr} = W_N^{qr·N/p}
        sr += tr[q] * this.cos[u] - ti[q] * this.sin[u];
        si += tr[q] * this.sin[u] + ti[q] * this.cos[u];
      }
      re[outOff + r * m + k] = sr;
      im[outOff + r * m + k] = si;
    }
  }
};

// |X_k|² of `input` (length n), bins 0 … n/2.
FFT.prototype.power = function (input, out) {
  this.run(input, 0, 1, 0, this.n, 0);
  for (var k = 0; k <= this.n / 2; k++) out[k] = this.re[k] * this.re[k] + this.im[k] * this.im[k];
};

function isFiveSmooth(v) {
  [2, 3, 5].forEach(function (f) { while (v % f === 0) v /= f; });
  return v === 1;
}

// FFTLength.nice
function niceLength(target, multiple) {
  var length = Math.max(multiple, Math.ceil(target));
  length += (multiple - (length % multiple)) % multiple;
  while (!isFiveSmooth(length)) length += multiple;
  return length;
}

function windowCoefficients(kind, n) {
  var w = new Float64Array(n);
  for (var i = 0; i < n; i++) {
    w[i] = kind === "sine" ? Math.sin((Math.PI * (i + 0.5)) / n) : 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  }
  return w;
}

function bandEdges(index) {
  var centre = Math.pow(10, (17 + index) / 10);
  var half = Math.pow(10, 1 / 20);
  return [centre / half, centre * half];
}

// BandBinMap: per band, its bins and the share of each bin inside the band's edges.
function bandMap(first, last, binHz, binCount, nyquist, compensation) {
  var map = [];
  for (var band = first; band < last; band++) {
    var edges = bandEdges(band), entries = [];
    if (edges[1] <= nyquist) {
      var lo = Math.max(0, Math.floor(edges[0] / binHz - 0.5));
      var hi = Math.min(binCount - 1, Math.ceil(edges[1] / binHz + 0.5));
      for (var k = lo; k <= hi; k++) {
        var a = Math.max(edges[0], (k - 0.5) * binHz), b = Math.min(edges[1], (k + 0.5) * binHz);
        if (b > a) entries.push([k, ((b - a) / binHz) * (compensation ? compensation(k) : 1)]);
      }
    }
    map.push(entries);
  }
  return map;
}

// OverlappingFrames + PooledPowerSpectrum: frames of `length`, every `hop`, the first starting at
// `offset`; `done(start, bandPowers)` for each, the spectrum summed into bands by `map`.
function Framer(channels, length, hop, offset, kind, map) {
  this.length = length;
  this.hop = hop;
  this.offset = offset;
  this.window = windowCoefficients(kind, length);
  var sum = 0;
  for (var i = 0; i < length; i++) sum += this.window[i] * this.window[i];
  this.scale = 2 / (length * sum) / channels;
  this.rings = [];
  for (var c = 0; c < channels; c++) this.rings.push(new Float64Array(length));
  this.write = 0;
  this.until = length + offset;
  this.handedOut = 0;
  this.fft = new FFT(length);
  this.frame = new Float64Array(length);
  this.bins = new Float64Array(length / 2 + 1);
  this.power = new Float64Array(length / 2 + 1);
  this.map = map;
  this.bands = new Float64Array(map.length);
}

// Takes one frame's samples (one per channel); returns true when a frame is complete.
Framer.prototype.push = function (values) {
  for (var c = 0; c < this.rings.length; c++) this.rings[c][this.write] = values[c];
  this.write = this.write + 1 === this.length ? 0 : this.write + 1;
  this.until -= 1;
  return this.until === 0;
};

// The complete frame's band powers; then the next frame is `hop` on. Returns its start.
Framer.prototype.analyse = function () {
  var n = this.length, power = this.power, bins = this.bins;
  power.fill(0);
  for (var c = 0; c < this.rings.length; c++) {
    var ring = this.rings[c], first = n - this.write;
    for (var i = 0; i < first; i++) this.frame[i] = ring[this.write + i] * this.window[i];
    for (i = 0; i < this.write; i++) this.frame[first + i] = ring[i] * this.window[first + i];
    this.fft.power(this.frame, bins);
    for (var k = 0; k < bins.length; k++) power[k] += this.scale * bins[k];
  }
  power[0] *= 0.5;
  power[n / 2] *= 0.5;
  for (var b = 0; b < this.map.length; b++) {
    var s = 0, entries = this.map[b];
    for (var e = 0; e < entries.length; e++) s += entries[e][1] * power[entries[e][0]];
    this.bands[b] = s;
  }
  var start = this.offset + this.handedOut * this.hop;
  this.handedOut += 1;
  this.until = this.hop;
  return start;
};

// Decimator.swift: a cubic moving sum of D samples as one FIR of 3D − 2 taps, every D-th output.
function Decimator(factor, channels, fs) {
  this.factor = factor;
  this.fs = fs;
  var response = [1];
  for (var round = 0; round < 3; round++) {
    var next = new Array(response.length + factor - 1).fill(0);
    for (var i = 0; i < response.length; i++) for (var j = 0; j < factor; j++) next[i + j] += response[i];
    response = next;
  }
  var total = Math.pow(factor, 3);
  this.taps = Float64Array.from(response.reverse(), function (v) { return v / total; });
  this.keep = this.taps.length - 1;
  this.delay = this.keep / 2;
  this.history = [];
  for (var c = 0; c < channels; c++) this.history.push(new Float64Array(this.taps.length));
  this.pos = 0;
  this.phase = 0;
  this.out = new Float64Array(channels);
}

// Takes one input frame; returns true when an output (in `out`) is due.
Decimator.prototype.push = function (values) {
  var len = this.taps.length;
  for (var c = 0; c < this.history.length; c++) this.history[c][this.pos] = values[c];
  this.pos = (this.pos + 1) % len;
  var due = this.phase === 0;
  this.phase = (this.phase + 1) % this.factor;
  if (!due) return false;
  for (c = 0; c < this.history.length; c++) {
    var h = this.history[c], s = 0;
    // Oldest input first: it sits at `pos` now.
    for (var t = 0; t < len; t++) s += this.taps[t] * h[(this.pos + t) % len];
    this.out[c] = s;
  }
  return true;
};

Decimator.prototype.gain = function (hz) {
  if (this.factor <= 1 || hz <= 0) return 1;
  var x = (Math.PI * hz) / this.fs;
  var ratio = Math.sin(x * this.factor) / (this.factor * Math.sin(x));
  return Math.pow(ratio * ratio, 3);
};

function Meter(fs, channels) {
  this.fs = fs;
  this.channels = channels;
  this.filters = [];
  for (var c = 0; c < channels; c++) this.filters.push(new Weightings(fs));
  this.frames = 0;
  this.sum = 0;
  this.aSum = 0;
  this.cSum = 0;
  this.peak = 0;
  this.levels = []; // per second: {average (LAeq), peak, lceq, rms}
  this.shortSums = []; // per second: band power sums and frame counts
  this.longSums = [];

  var shortLength = niceLength(fs * 0.04, 2);
  this.short = new Framer(channels, shortLength, shortLength / 2, shortLength / 4, "sine",
    bandMap(LONG_BANDS, NOMINAL.length, fs / shortLength, shortLength / 2 + 1, fs / 2));
  var factor = Math.max(1, Math.floor(fs / 4000));
  this.decimator = new Decimator(factor, channels, fs);
  var rate = fs / factor;
  var longLength = niceLength(rate * 0.5, 4);
  var longBinHz = rate / longLength, decimator = this.decimator;
  this.long = new Framer(channels, longLength, longLength / 4, longLength / 8, "hann",
    bandMap(0, LONG_BANDS, longBinHz, longLength / 2 + 1, Math.min(fs / 2, rate / 2), function (k) {
      return 1 / Math.max(1e-6, decimator.gain(k * longBinHz));
    }));
  this.values = new Float64Array(channels);
}

Meter.prototype.slot = function (list, second, size) {
  while (list.length <= second) list.push({ sum: new Float64Array(size), frames: 0 });
  return list[second];
};

// One block: `inputs` holds one Float32Array per channel.
Meter.prototype.consume = function (inputs) {
  var n = inputs[0].length, channels = this.channels, closed = [];
  for (var i = 0; i < n; i++) {
    for (var c = 0; c < channels; c++) {
      var x = inputs[Math.min(c, inputs.length - 1)][i];
      this.values[c] = x;
      var f = this.filters[c];
      var lo = f.low, y = lo.b0 * x + lo.s1;
      lo.s1 = lo.b1 * x - lo.a1 * y + lo.s2;
      lo.s2 = lo.b2 * x - lo.a2 * y;
      var hi = f.high, cw = hi.b0 * y + hi.s1;
      hi.s1 = hi.b1 * y - hi.a1 * cw + hi.s2;
      hi.s2 = hi.b2 * y - hi.a2 * cw;
      var mid = f.middle, aw = mid.b0 * cw + mid.s1;
      mid.s1 = mid.b1 * cw - mid.a1 * aw + mid.s2;
      mid.s2 = mid.b2 * cw - mid.a2 * aw;
      aw *= f.aGain;
      cw *= f.cGain;
      this.sum += x * x;
      this.aSum += aw * aw;
      this.cSum += cw * cw;
      var ax = Math.abs(x);
      if (ax > this.peak) this.peak = ax;
    }
    if (this.short.push(this.values)) {
      var start = this.short.analyse();
      var second = Math.floor((start + this.short.length / 2) / this.fs);
      var slot = this.slot(this.shortSums, second, NOMINAL.length - LONG_BANDS);
      for (var b = 0; b < slot.sum.length; b++) slot.sum[b] += this.short.bands[b];
      slot.frames += 1;
    }
    if (this.decimator.push(this.values) && this.long.push(this.decimator.out)) {
      var longStart = this.long.analyse();
      var centre = (longStart + this.long.length / 2) * this.decimator.factor - this.decimator.delay;
      var longSecond = Math.max(0, Math.floor(centre / this.fs));
      var longSlot = this.slot(this.longSums, longSecond, LONG_BANDS);
      for (b = 0; b < longSlot.sum.length; b++) longSlot.sum[b] += this.long.bands[b];
      longSlot.frames += 1;
    }
    this.frames += 1;
    if (this.frames === this.fs) closed.push(this.closeSecond());
  }
  return closed;
};

Meter.prototype.closeSecond = function () {
  var count = this.frames * this.channels;
  var level = {
    average: fromMeanSquare(this.aSum / count),
    peak: fromAmplitude(this.peak),
    lceq: fromMeanSquare(this.cSum / count),
    rms: fromMeanSquare(this.sum / count),
  };
  this.levels.push(level);
  this.frames = 0;
  this.sum = this.aSum = this.cSum = this.peak = 0;
  for (var c = 0; c < this.channels; c++) {
    var f = this.filters[c];
    [f.low, f.high, f.middle].forEach(function (q) {
      if (Math.abs(q.s1) < 1e-200) q.s1 = 0;
      if (Math.abs(q.s2) < 1e-200) q.s2 = 0;
    });
  }
  return level;
};

// The bands of `second`, keyed by nominal centre, levels in dBFS; bands above Nyquist left out.
Meter.prototype.bands = function (second) {
  var out = {};
  for (var band = 0; band < NOMINAL.length; band++) {
    var isLong = band < LONG_BANDS;
    var framer = isLong ? this.long : this.short;
    var entries = framer.map[isLong ? band : band - LONG_BANDS];
    if (entries.length === 0) continue;
    var slot = (isLong ? this.longSums : this.shortSums)[second];
    if (!slot || slot.frames === 0) continue;
    var power = slot.sum[isLong ? band : band - LONG_BANDS] / slot.frames;
    out[String(NOMINAL[band])] = Math.round(fromMeanSquare(power) * 100) / 100;
  }
  return out;
};

// The node: the page sends {seconds: N} to start; each second a {second, level} message; after N
// seconds and enough more audio to complete the frames centred in the last one, {done, seconds}
// with every second's levels and bands; then nothing more is computed.
class LevelMeterProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    this.meter = null;
    this.wanted = 0;
    this.finished = false;
    this.port.onmessage = (event) => {
      if (event.data && event.data.seconds) {
        this.wanted = event.data.seconds;
      } else if (event.data && event.data.stop) {
        this.finished = true;
      }
    };
  }

  process(inputs) {
    var input = inputs[0];
    if (this.finished) return false;
    if (!this.wanted || !input || input.length === 0) return true;
    if (!this.meter) this.meter = new Meter(sampleRate, input.length);
    var meter = this.meter;
    var closed = meter.consume(input);
    for (var i = 0; i < closed.length; i++) {
      var second = meter.levels.length - closed.length + i;
      if (second < this.wanted) this.port.postMessage({ second: second, level: closed[i] });
    }
    // The long frames centred in the last second end about 0.3 s after it.
    var extra = Math.ceil(0.6 * sampleRate);
    var total = (meter.levels.length * sampleRate + meter.frames);
    if (total >= this.wanted * sampleRate + extra) {
      var seconds = [];
      for (var s = 0; s < this.wanted; s++) {
        var level = meter.levels[s];
        seconds.push({ average: level.average, peak: level.peak, lceq: level.lceq, bands: meter.bands(s) });
      }
      this.port.postMessage({ done: true, sampleRate: sampleRate, channels: meter.channels, seconds: seconds });
      this.finished = true;
      return false;
    }
    return true;
  }
}

registerProcessor("hearclear-level-meter", LevelMeterProcessor);
