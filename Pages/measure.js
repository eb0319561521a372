// "Measure here" (docs/ARCHITECTURE.md, "Measure here"): the page's one script. It asks for the
// microphone with the browser's processing off, meters it in an AudioWorklet (/meter-worklet.js,
// which hands back numbers per second, never sound), and sends the levels as a v2 check-in. A
// check-in that cannot be sent is kept in localStorage and sent again, with the same id, when the
// page is next open. Nothing here loads from elsewhere or sends anything but to this server.
(function () {
  "use strict";

  var DEVICE_KEY = "hearclear.device";
  var PENDING_KEY = "hearclear.pending";
  var ANNOUNCE_EVERY = 15; // seconds between spoken updates of the level

  var root = document.getElementById("measure");
  if (!root) return;
  var $ = function (id) { return document.getElementById(id); };
  var message = $("measure-message");

  function say(element, text) { if (element) element.textContent = text; }

  function storage() {
    try {
      return window.localStorage;
    } catch (e) {
      return null;
    }
  }

  // A random id, a UUID v4 from the browser's cryptographic random numbers.
  function uuid() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function deviceID(create) {
    var store = storage();
    var id = store && store.getItem(DEVICE_KEY);
    if (!id && create) {
      id = uuid();
      if (store) store.setItem(DEVICE_KEY, id);
    }
    return id;
  }

  // The id is never shown whole: its first four and last two characters.
  function shortID(id) { return id.slice(0, 4) + "…" + id.slice(-2); }

  // A coarse label of the platform and browser (e.g. "browser/Android/Chrome"), never the user
  // agent: the crowd calibration fits an offset per label as it does per phone model.
  function modelLabel() {
    var platform = "", browser = "";
    var data = navigator.userAgentData;
    if (data) {
      platform = data.platform || "";
      var names = (data.brands || []).map(function (b) { return b.brand; });
      var known = [["Microsoft Edge", "Edge"], ["Opera", "Opera"], ["Samsung Internet", "Samsung"],
        ["Google Chrome", "Chrome"], ["HeadlessChrome", "Chrome"], ["Chromium", "Chrome"]];
      for (var i = 0; i < known.length && !browser; i++) if (names.indexOf(known[i][0]) >= 0) browser = known[i][1];
    }
    var ua = navigator.userAgent || "";
    if (!platform) {
      platform = /Android/.test(ua) ? "Android" : /iPhone|iPad|iPod/.test(ua) ? "iOS" : /Mac OS X/.test(ua) ? "macOS"
        : /Windows/.test(ua) ? "Windows" : /CrOS/.test(ua) ? "ChromeOS" : /Linux/.test(ua) ? "Linux" : "other";
    }
    if (!browser) {
      browser = /Firefox\//.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge" : /OPR\//.test(ua) ? "Opera"
        : /SamsungBrowser/.test(ua) ? "Samsung" : /Chrome\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "other";
    }
    var clean = function (s) { return s.replace(/[^A-Za-z0-9 ]/g, "").slice(0, 20) || "other"; };
    return "browser/" + clean(platform) + "/" + clean(browser);
  }

  function decibels(value) { return (value < 0 ? "−" : "") + Math.abs(value).toFixed(1) + " dBFS"; }

  function minutesAndSeconds(seconds) {
    var m = Math.floor(seconds / 60), s = seconds % 60;
    if (m === 0) return s + (s === 1 ? " second" : " seconds");
    return m + (m === 1 ? " minute" : " minutes") + (s ? " " + s + " s" : "");
  }

  // MARK: Sending, and what waits to be sent

  function pending() {
    var store = storage();
    try {
      return JSON.parse((store && store.getItem(PENDING_KEY)) || "[]");
    } catch (e) {
      return [];
    }
  }

  function savePending(list) {
    var store = storage();
    if (!store) return;
    if (list.length === 0) store.removeItem(PENDING_KEY);
    else store.setItem(PENDING_KEY, JSON.stringify(list));
  }

  function showPending() {
    var list = pending();
    $("pending").hidden = list.length === 0;
    var ul = $("pending-list");
    ul.textContent = "";
    list.forEach(function (item) {
      var li = document.createElement("li");
      li.textContent = item.venueName + ", " + new Date(item.body.samples[0].t).toLocaleString() + ", " +
        minutesAndSeconds(item.body.samples.length);
      ul.appendChild(li);
    });
    showDevice();
  }

  // Sends one check-in; resolves to "sent", "keep" (try again later) or "refused" (with a reason).
  function send(body) {
    return fetch("/api/v2/checkins", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    }).then(
      function (response) {
        if (response.status === 200 || response.status === 201) return { outcome: "sent", status: response.status };
        if (response.status === 429 || response.status >= 500) return { outcome: "keep", status: response.status };
        return response.json().then(
          function (problem) { return { outcome: "refused", status: response.status, problem: problem }; },
          function () { return { outcome: "refused", status: response.status, problem: null }; });
      },
      function () { return { outcome: "keep", status: 0 }; });
  }

  function problemText(problem) {
    if (!problem) return "";
    var errors = (problem.errors || []).map(function (e) { return e.pointer + " " + e.detail; });
    return (problem.detail || problem.title || "") + (errors.length ? " (" + errors.join("; ") + ")" : "");
  }

  var sending = false;

  // Sends what waits, one at a time, each with its own id, so a resend is stored once.
  function sendPending() {
    if (sending) return Promise.resolve();
    sending = true;
    var list = pending();
    var sentNow = 0, refused = [];
    var step = function (index) {
      if (index >= list.length) return Promise.resolve();
      var item = list[index];
      return send(item.body).then(function (result) {
        if (result.outcome !== "keep") {
          savePending(pending().filter(function (other) { return other.body.id !== item.body.id; }));
          if (result.outcome === "sent") sentNow += 1;
          else refused.push(item.venueName + ": " + problemText(result.problem));
        }
        return step(index + 1);
      });
    };
    return step(0).then(function () {
      sending = false;
      showPending();
      if (sentNow > 0 || refused.length > 0) {
        say($("pending-status") || message,
          (sentNow ? sentNow + " waiting measurement" + (sentNow === 1 ? " was" : "s were") + " sent. " : "") +
          (refused.length ? "Refused by HearClear: " + refused.join("; ") : ""));
      }
      return sentNow;
    });
  }

  // MARK: This browser's data

  function showDevice() {
    var id = deviceID(false);
    $("device-none").hidden = !!id;
    $("device-some").hidden = !id;
    if (id) say($("device-short"), shortID(id));
  }

  $("device-show").addEventListener("click", function () {
    var id = deviceID(false), status = $("device-status");
    if (!id) return;
    say(status, "Asking HearClear…");
    fetch("/api/v2/devices/" + encodeURIComponent(id) + "/data", { headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status === 404) return say(status, "HearClear holds nothing for this browser.");
        if (!response.ok) return say(status, "HearClear could not answer (" + response.status + "). Try again later.");
        return response.json().then(function (data) {
          var checkins = data.checkins || [];
          var text = "HearClear holds " + checkins.length + " measurement" + (checkins.length === 1 ? "" : "s") +
            " from this browser, labelled “" + (data.device.model || "no model") + "”";
          if (checkins.length) {
            text += ": " + checkins.map(function (c) {
              return new Date(c.startedAt).toLocaleString() + " at venue " + c.venue + ", " + c.validSeconds +
                " seconds, " + c.status;
            }).join("; ");
          }
          say(status, text + ". Nothing else: no sound, no location.");
        });
      }, function () { say(status, "HearClear could not be reached. Try again later."); });
  });

  $("device-erase").addEventListener("click", function () {
    var id = deviceID(false), status = $("device-status");
    if (!id) return;
    if (!window.confirm("Erase every measurement this browser sent, and its id?")) return;
    say(status, "Erasing…");
    fetch("/api/v2/devices/" + encodeURIComponent(id), { method: "DELETE", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status !== 202 && response.status !== 404) {
          return say(status, "HearClear could not erase it now (" + response.status + "). Try again later.");
        }
        var store = storage();
        if (store) {
          store.removeItem(DEVICE_KEY);
          store.removeItem(PENDING_KEY);
        }
        showPending();
        say($("device-none"), "Erased: HearClear holds nothing from this browser, and this browser keeps no id.");
        $("device-none").focus();
      }, function () { say(status, "HearClear could not be reached. Try again later."); });
  });
  $("device-none").tabIndex = -1;

  // MARK: Choosing the place

  var search = $("place-search");
  if (search) {
    var placeStatus = $("place-status"), results = $("place-results");
    var query = function (params, what) {
      say(placeStatus, "Looking…");
      results.textContent = "";
      var seconds = root.dataset.seconds && new URLSearchParams(location.search).get("seconds");
      fetch("/api/v2/venues?" + params + "&limit=10", { headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
        .then(function (page) {
          var found = page.results || [];
          say(placeStatus, found.length ? found.length + " places " + what + ". Choose yours:" : "No place found " + what + ".");
          found.forEach(function (hit) {
            var li = document.createElement("li"), a = document.createElement("a");
            a.href = "/measure?venue=" + encodeURIComponent(hit.venue.id) + (seconds ? "&seconds=" + seconds : "");
            a.textContent = "Measure at " + hit.venue.name;
            li.appendChild(a);
            if (hit.venue.address) li.appendChild(document.createTextNode(", " + hit.venue.address));
            if (typeof hit.distance === "number" && params.indexOf("near=") === 0) {
              li.appendChild(document.createTextNode(" (" + Math.round(hit.distance) + " m away)"));
            }
            results.appendChild(li);
          });
        }, function () { say(placeStatus, "The search did not work. Try again."); });
    };
    search.addEventListener("submit", function (event) {
      event.preventDefault();
      var q = $("place-q").value.trim();
      if (!q) return say(placeStatus, "Type the start of the place's name.");
      query("q=" + encodeURIComponent(q), "named “" + q + "”");
    });
    var near = $("place-near");
    if (!("geolocation" in navigator)) near.hidden = true;
    near.addEventListener("click", function () {
      say(placeStatus, "Finding where you are…");
      navigator.geolocation.getCurrentPosition(function (position) {
        query("near=" + position.coords.latitude.toFixed(5) + "," + position.coords.longitude.toFixed(5), "near you");
      }, function () {
        say(placeStatus, "Your browser did not share where you are. Search by name instead.");
      }, { enableHighAccuracy: false, timeout: 15000, maximumAge: 300000 });
    });
  }

  // MARK: Measuring

  var start = $("measure-start");
  showPending();
  if (pending().length > 0) sendPending();
  window.addEventListener("online", function () { if (pending().length > 0) sendPending(); });
  $("pending-send").addEventListener("click", function () { sendPending(); });
  if (!start) return;

  var venueID = root.dataset.venueId, venueName = root.dataset.venueName;
  var AudioContextClass = window.AudioContext || window.webkitAudioContext;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    say(message, "This browser cannot use a microphone on this page (it needs a secure, https page and a browser " +
      "that allows it). Nothing can be measured here.");
    return;
  }
  if (!AudioContextClass || !window.AudioWorkletNode) {
    say(message, "This browser cannot measure: it lacks AudioWorklet, which the measurement runs in. " +
      "A recent Chrome, Firefox, Safari or Edge has it.");
    return;
  }
  start.disabled = false;

  var session = null;

  function stopSession() {
    if (!session) return;
    if (session.stream) session.stream.getTracks().forEach(function (t) { t.stop(); });
    if (session.context) session.context.close();
    session = null;
    start.disabled = false;
    $("measure-live").hidden = true;
  }

  $("measure-cancel").addEventListener("click", function () {
    if (session && session.node) session.node.port.postMessage({ stop: true });
    stopSession();
    say(message, "Stopped. Nothing was sent.");
    start.focus();
  });

  start.addEventListener("click", function () {
    var seconds = parseInt($("measure-length").value, 10);
    start.disabled = true;
    say(message, "");
    $("measure-result").hidden = true;
    session = {};
    var current = session;
    navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      video: false,
    }).then(function (stream) {
      current.stream = stream;
      var track = stream.getAudioTracks()[0];
      var settings = (track && track.getSettings && track.getSettings()) || {};
      var capture = {
        echoCancellation: typeof settings.echoCancellation === "boolean" ? settings.echoCancellation : null,
        noiseSuppression: typeof settings.noiseSuppression === "boolean" ? settings.noiseSuppression : null,
        autoGainControl: typeof settings.autoGainControl === "boolean" ? settings.autoGainControl : null,
      };
      var kept = [["autoGainControl", "automatic gain control"], ["noiseSuppression", "noise suppression"],
        ["echoCancellation", "echo cancellation"]].filter(function (p) { return capture[p[0]] === true; });
      if (kept.length) {
        stopSession();
        say(message, "This browser kept its " + kept.map(function (p) { return p[1]; }).join(" and ") +
          " on although asked to turn it off: its levels would not say how loud this place is, so nothing was " +
          "measured or sent. Another browser may do.");
        return;
      }
      current.capture = capture;
      // The microphone's own rate, so nothing is resampled before the meter (its filters are
      // designed for the context's rate); `?rate=` (8000 … 96000) asks for another, for tests.
      var asked = parseInt(new URLSearchParams(location.search).get("rate"), 10);
      var rate = asked >= 8000 && asked <= 96000 ? asked : settings.sampleRate;
      var context;
      try {
        context = rate ? new AudioContextClass({ sampleRate: rate }) : new AudioContextClass();
      } catch (e) {
        context = new AudioContextClass();
      }
      current.context = context;
      return context.audioWorklet.addModule("/meter-worklet.js").then(function () {
        if (session !== current) return;
        var source = context.createMediaStreamSource(stream);
        var node = new AudioWorkletNode(context, "hearclear-level-meter", { numberOfOutputs: 0 });
        current.node = node;
        current.startedAt = Date.now();
        node.port.onmessage = function (event) { onMeter(current, seconds, event.data); };
        node.port.postMessage({ seconds: seconds });
        source.connect(node);
        $("measure-live").hidden = false;
        $("measure-progress").max = seconds;
        $("measure-progress").value = 0;
        say($("time-left"), minutesAndSeconds(seconds) + " left");
        say($("measure-announce"), "Measuring for " + minutesAndSeconds(seconds) + ".");
        $("measure-cancel").focus();
        return context.resume();
      });
    }).catch(function (error) {
      stopSession();
      var name = error && error.name;
      if (name === "NotAllowedError" || name === "SecurityError") {
        say(message, "The microphone was not allowed, so nothing was measured or sent. To measure, allow the " +
          "microphone for this site in your browser's settings, then press “Start measuring” again.");
      } else if (name === "NotFoundError" || name === "OverconstrainedError" || name === "NotReadableError") {
        say(message, "No microphone could be used (none was found, or another app holds it). Nothing was measured.");
      } else {
        say(message, "Measuring could not start (" + (name || error) + "). Nothing was measured or sent.");
      }
    });
  });

  function onMeter(current, seconds, data) {
    if (session !== current) return;
    if (typeof data.second === "number") {
      var done = data.second + 1;
      say($("level-now"), decibels(data.level.average));
      $("measure-progress").value = done;
      say($("time-left"), minutesAndSeconds(seconds - done) + " left");
      if (done % ANNOUNCE_EVERY === 0 && done < seconds) {
        say($("measure-announce"), "Level about " + decibels(Math.round(data.level.average)) + ", " +
          minutesAndSeconds(seconds - done) + " left.");
      }
    } else if (data.done) {
      var capture = current.capture, startedAt = current.startedAt;
      stopSession();
      finish(data, capture, startedAt);
    }
  }

  function finish(data, capture, startedAt) {
    var samples = data.seconds.map(function (s, i) {
      return {
        t: new Date(startedAt + i * 1000).toISOString(),
        average: Math.round(s.average * 100) / 100,
        peak: Math.round(s.peak * 100) / 100,
        lceq: Math.round(s.lceq * 100) / 100,
        bands: s.bands,
      };
    });
    var body = {
      id: uuid(),
      venue: { id: venueID },
      device: { id: deviceID(true), model: modelLabel() },
      unit: "dbfs",
      capture: capture,
      samples: samples,
    };
    var power = 0, loudest = -Infinity, peak = -Infinity;
    samples.forEach(function (s) {
      power += Math.pow(10, s.average / 10);
      loudest = Math.max(loudest, s.average);
      peak = Math.max(peak, s.peak);
    });
    var average = 10 * Math.log10(power / samples.length);
    say($("result-words"), "Over " + minutesAndSeconds(samples.length) + " the level averaged " + decibels(average) +
      " (the loudest second " + decibels(loudest) + ", the loudest instant " + decibels(peak) + "). These are the " +
      "microphone's own numbers, below its full scale; HearClear turns them into dB by what it has learned of " +
      "phones and browsers like this one (" + body.device.model + ").");
    // Kept first, so that a closed page or a failed request loses nothing.
    var list = pending();
    list.push({ venueName: venueName, body: body });
    savePending(list);
    var result = $("measure-result");
    result.hidden = false;
    say($("result-sent"), "Sending…");
    result.focus();
    send(body).then(function (outcome) {
      if (outcome.outcome !== "keep") savePending(pending().filter(function (o) { return o.body.id !== body.id; }));
      if (outcome.outcome === "sent") {
        say($("result-sent"), "Sent: thank you. It counts in " + venueName + "'s week once HearClear has judged it " +
          "(seconds).");
        showWeek(0);
      } else if (outcome.outcome === "keep") {
        say($("result-sent"), "Not sent yet (" + (outcome.status ? "the server answered " + outcome.status :
          "no connection") + "). It is kept in this browser and sent when this page is next open.");
      } else {
        say($("result-sent"), "HearClear refused it: " + problemText(outcome.problem));
      }
      showPending();
    });
  }

  function venueCount() {
    return fetch("/api/v2/venues/" + encodeURIComponent(venueID), { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; }, function () { return null; });
  }

  var countBefore = null;
  venueCount().then(function (venue) { if (venue) countBefore = venue.checkins; });

  // The venue's count and week once they include this check-in (the server's answers are cached
  // for a few seconds): asked again every 2 s, 10 times at most.
  function showWeek(tries) {
    tries = tries || 0;
    venueCount().then(function (venue) {
      if (!venue) return;
      var counted = countBefore === null || venue.checkins > countBefore;
      if (!counted && tries < 10) return setTimeout(function () { showWeek(tries + 1); }, 2000);
      say($("result-count"), venue.name + " has " + venue.checkins + " check-in" + (venue.checkins === 1 ? "" : "s") +
        (counted ? ", yours among them." : "; yours will count in a moment."));
      $("result-week-image").src = "/venues/" + encodeURIComponent(venueID) + "/week.svg?t=" + Date.now();
      $("result-week").hidden = false;
      if (countBefore !== null) countBefore = venue.checkins;
    });
  }
})();
