// Turnpost's service worker (served as /push-worker.js): it shows the pushes the server
// sends ("Your turn in Siam with Bob", in the game's words) and opens the game when one is
// clicked. It handles nothing else: no fetch, no cache.
"use strict";

self.addEventListener("push", function (event) {
  var message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = {};
  }
  var url = new URL(message.url || "/", self.location.origin);
  event.waitUntil(self.registration.showNotification(message.title || "Turnpost", {
    body: message.body || "",
    tag: message.tag,
    data: { url: url.origin === self.location.origin ? url.href : self.location.origin + "/" }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = event.notification.data.url;
  event.waitUntil(self.clients.matchAll({ type: "window" }).then(function (windows) {
    var open = windows.filter(function (client) { return client.url === url; })[0];
    return open ? open.focus() : self.clients.openWindow(url);
  }));
});
