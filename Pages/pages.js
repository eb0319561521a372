// What a script adds to pages that work without one (docs/ARCHITECTURE.md, "Pages for people").
// "Near me" fills the form's coordinates from the browser's location, with the person's leave,
// and searches; with a tile server set (--map-tiles-url), a map shows the results, drawn by
// Leaflet served from here. The location goes nowhere but into the search, to this server.
(function () {
  "use strict";

  var form = document.querySelector("form.search");
  var nearMe = document.getElementById("near-me");
  if (form && nearMe && "geolocation" in navigator) {
    var status = document.getElementById("near-me-status");
    nearMe.parentElement.hidden = false;
    nearMe.addEventListener("click", function () {
      status.textContent = "Finding where you are…";
      nearMe.disabled = true;
      navigator.geolocation.getCurrentPosition(
        function (position) {
          form.elements.namedItem("lat").value = position.coords.latitude.toFixed(5);
          form.elements.namedItem("lon").value = position.coords.longitude.toFixed(5);
          form.elements.namedItem("q").value = "";
          status.textContent = "Searching near you…";
          form.submit();
        },
        function (error) {
          nearMe.disabled = false;
          status.textContent =
            error.code === 1
              ? "Your browser did not share where you are. Enter a venue's name or coordinates instead."
              : "Where you are is not known. Enter a venue's name or coordinates instead.";
        },
        { enableHighAccuracy: false, timeout: 15000, maximumAge: 300000 }
      );
    });
  }

  var element = document.getElementById("map");
  if (element && window.L) {
    var items = document.querySelectorAll("ol.results > li[data-lat]");
    // Leaflet shows the credit as HTML: the operator's text goes in as text.
    var credit = document.createElement("span");
    credit.textContent = element.dataset.attribution || "";
    var map = L.map(element, { scrollWheelZoom: false });
    L.tileLayer(element.dataset.tiles, { attribution: credit.innerHTML, maxZoom: 19 }).addTo(map);
    var points = [];
    items.forEach(function (item) {
      var link = item.querySelector("h3 a");
      var point = [parseFloat(item.dataset.lat), parseFloat(item.dataset.lon)];
      if (!link || isNaN(point[0]) || isNaN(point[1])) return;
      var marker = L.marker(point, { title: link.textContent, alt: link.textContent }).addTo(map);
      var popup = document.createElement("a");
      popup.href = link.getAttribute("href");
      popup.textContent = link.textContent;
      marker.bindPopup(popup);
      points.push(point);
    });
    if (points.length > 0) {
      element.hidden = false;
      var fit = function () {
        map.invalidateSize();
        map.fitBounds(points, { maxZoom: 16, padding: [24, 24] });
      };
      fit();
      // A phone turned, a window resized, or text zoomed: all results stay in view.
      window.addEventListener("resize", fit);
    }
  }
})();
